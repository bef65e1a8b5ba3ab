export enum AuthErrorCode {
  Missing = 'TOKEN_MISSING',
  Malformed = 'TOKEN_MALFORMED',
  AlgorithmNotAllowed = 'TOKEN_ALGORITHM_NOT_ALLOWED',
  UnknownKey = 'TOKEN_UNKNOWN_KEY',
  BadSignature = 'TOKEN_BAD_SIGNATURE',
  Expired = 'TOKEN_EXPIRED',
  NotYetValid = 'TOKEN_NOT_YET_VALID',
  WrongIssuer = 'TOKEN_WRONG_ISSUER',
  WrongAudience = 'TOKEN_WRONG_AUDIENCE',
  WrongUse = 'TOKEN_WRONG_USE',
  BadClaims = 'TOKEN_BAD_CLAIMS',
}

/** Authentication failed; `message` is safe to show the caller (it names no key material). */
export class AuthError extends Error {
  override readonly name = 'AuthError';
  constructor(
    readonly code: AuthErrorCode,
    message: string,
  ) {
    super(message);
  }
}
