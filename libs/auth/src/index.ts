export * from './principals';
export { AuthError, AuthErrorCode, wwwAuthenticate } from './auth.errors';
export { JwtVerifier, toAuthError, DEFAULT_MAX_LIFETIME_SECONDS, type JwtVerifierOptions } from './jwt-verifier';
export { KeyResolver, type JwtAlgorithm, type KeySourceOptions } from './key-resolver';
export { TokenSigner, type SignOptions } from './token-signer';
export {
  controlPlaneVerifier,
  a2aVerifier,
  a2aAudience,
  maxLifetimes,
  tokenSigner,
  mintAdminToken,
  mintNodeToken,
  mintA2AToken,
} from './from-config';
export { bearerToken } from './bearer';
