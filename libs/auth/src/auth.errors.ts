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
  LifetimeTooLong = 'TOKEN_LIFETIME_TOO_LONG',
  CriticalHeader = 'TOKEN_CRITICAL_HEADER',
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

/**
 * The RFC 6750 `error_description` of each refusal: fixed text, so nothing a caller put in its
 * token (an `alg` with CR/LF, a quote in `kid`) ever reaches a response header.
 */
const DESCRIPTION: Record<AuthErrorCode, string> = {
  [AuthErrorCode.Missing]: 'a bearer token is required',
  [AuthErrorCode.Malformed]: 'the bearer token is not a valid JWT',
  [AuthErrorCode.AlgorithmNotAllowed]: 'the token algorithm is not accepted',
  [AuthErrorCode.UnknownKey]: 'no trusted key matches the token',
  [AuthErrorCode.BadSignature]: 'the token signature does not verify',
  [AuthErrorCode.Expired]: 'the token has expired',
  [AuthErrorCode.NotYetValid]: 'the token is not valid yet',
  [AuthErrorCode.WrongIssuer]: 'the token has the wrong issuer',
  [AuthErrorCode.WrongAudience]: 'the token has the wrong audience',
  [AuthErrorCode.WrongUse]: 'the token is for another use',
  [AuthErrorCode.BadClaims]: 'the token claims are incomplete or invalid',
  [AuthErrorCode.LifetimeTooLong]: 'the token lives longer than allowed',
  [AuthErrorCode.CriticalHeader]: 'the token names a critical header extension that is not understood',
};

/** The WWW-Authenticate value for a refusal: `Bearer` alone for a missing token (RFC 6750 §3.1). */
export function wwwAuthenticate(code: AuthErrorCode | string | undefined): string {
  if (code === AuthErrorCode.Missing) return 'Bearer';
  const description = DESCRIPTION[code as AuthErrorCode] ?? DESCRIPTION[AuthErrorCode.Malformed];
  return `Bearer error="invalid_token", error_description="${description}"`;
}
