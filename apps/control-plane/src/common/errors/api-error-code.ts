/** The `extensions.code` values the admin API answers with (Apollo's names where Apollo has one). */
export enum ApiErrorCode {
  BadUserInput = 'BAD_USER_INPUT',
  Unauthenticated = 'UNAUTHENTICATED',
  Forbidden = 'FORBIDDEN',
  NotFound = 'NOT_FOUND',
  Conflict = 'CONFLICT',
  PayloadTooLarge = 'PAYLOAD_TOO_LARGE',
  QueryTooComplex = 'QUERY_TOO_COMPLEX',
  Internal = 'INTERNAL_SERVER_ERROR',
}
