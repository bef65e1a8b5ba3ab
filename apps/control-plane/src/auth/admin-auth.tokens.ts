/** The JwtVerifier for admin/node tokens (audience JWT_AUDIENCE), built once from config. */
export const ADMIN_JWT_VERIFIER = Symbol('ADMIN_JWT_VERIFIER');
/** The admin tokens verified in full lately (VerifiedTokens<AdminPrincipal>, ADR 0342), shared by the strategy and AdminGuard. */
export const ADMIN_VERIFIED_TOKENS = Symbol('ADMIN_VERIFIED_TOKENS');
