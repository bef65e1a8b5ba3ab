import { Global, Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { VerifiedTokens, controlPlaneVerifier } from '@cp/auth';
import { AppConfigToken, type AppConfig } from '@cp/common';
import { AccessPolicy } from './access-policy';
import { AdminGuard } from './admin.guard';
import { AdminJwtStrategy } from './admin-jwt.strategy';
import { ADMIN_JWT_VERIFIER, ADMIN_VERIFIED_TOKENS } from './admin-auth.tokens';
import { MeResolver } from './me.resolver';

/** Global so every feature module (including other teams') can use AdminGuard and AccessPolicy. */
@Global()
@Module({
  imports: [PassportModule],
  providers: [
    { provide: ADMIN_JWT_VERIFIER, inject: [AppConfigToken], useFactory: (config: AppConfig) => controlPlaneVerifier(config) },
    { provide: ADMIN_VERIFIED_TOKENS, useFactory: () => new VerifiedTokens() },
    AdminJwtStrategy,
    AdminGuard,
    AccessPolicy,
    MeResolver,
  ],
  exports: [AdminGuard, AccessPolicy, ADMIN_JWT_VERIFIER, ADMIN_VERIFIED_TOKENS, PassportModule],
})
export class AdminAuthModule {}
