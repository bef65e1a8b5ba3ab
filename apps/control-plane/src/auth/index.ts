export { AdminAuthModule } from './admin-auth.module';
export { AdminGuard } from './admin.guard';
export { AdminJwtStrategy, ADMIN_JWT_STRATEGY } from './admin-jwt.strategy';
export { ADMIN_JWT_VERIFIER } from './admin-auth.tokens';
export { CurrentPrincipal } from './current-principal.decorator';
export { Roles, ROLES_KEY, READ_ROLES, WRITE_ROLES } from './roles.decorator';
export { AccessPolicy, type ObjectRef } from './access-policy';
