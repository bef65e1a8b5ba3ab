/** The JwtVerifier for admin/node tokens (audience JWT_AUDIENCE), built once from config. */
export const ADMIN_JWT_VERIFIER = Symbol('ADMIN_JWT_VERIFIER');
