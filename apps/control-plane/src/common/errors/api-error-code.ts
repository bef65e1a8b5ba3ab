/** The `extensions.code` values the admin API answers with (Apollo's names where Apollo has one). */
export enum ApiErrorCode {
  BadUserInput = 'BAD_USER_INPUT',
  Unauthenticated = 'UNAUTHENTICATED',
  Forbidden = 'FORBIDDEN',
  NotFound = 'NOT_FOUND',
  Conflict = 'CONFLICT',
  PayloadTooLarge = 'PAYLOAD_TOO_LARGE',
  QueryTooComplex = 'QUERY_TOO_COMPLEX',
  /** A dependency (PostgreSQL) is down: retry later. HTTP 503 on the wire. */
  ServiceUnavailable = 'SERVICE_UNAVAILABLE',
  Internal = 'INTERNAL_SERVER_ERROR',
}
