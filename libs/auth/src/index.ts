export * from './principals';
export { AuthError, AuthErrorCode } from './auth.errors';
export { JwtVerifier, toAuthError, type JwtVerifierOptions } from './jwt-verifier';
export { KeyResolver, type JwtAlgorithm, type KeySourceOptions } from './key-resolver';
export { TokenSigner, type SignOptions } from './token-signer';
export { controlPlaneVerifier, a2aVerifier, tokenSigner, mintAdminToken, mintNodeToken, mintA2AToken } from './from-config';
export { bearerToken } from './bearer';
