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
  keyRingFromConfig,
  toolTokenSigner,
  toolTokenVerifier,
} from './from-config';
export {
  KeyRing,
  KeyRingError,
  SIGNING_ALG,
  parseKeyRing,
  generateKeyRingEntry,
  type KeyState,
  type KeyRingKey,
  type KeyRingSource,
  type PublicJwk,
  type SigningKey,
} from './key-ring';
export { bearerToken } from './bearer';
export { VerifiedTokens, DEFAULT_VERIFIED_TOKENS, type VerifiedTokensOptions } from './verified-tokens';
