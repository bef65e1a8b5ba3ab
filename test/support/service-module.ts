/**
 * The service tier (Immich's "medium" tests): one control-plane feature module with its real
 * services, repositories and PrismaService on a database of its own; no HTTP, no GraphQL
 * server, no Redis (unless the module enqueues jobs: give it a REDIS_KEY_PREFIX of its own). `const { get, given, close } = await serviceModule(db, [AgentsModule])`.
 */
import { Global, Module, type Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { VerifiedTokens, type AdminPrincipal, type AdminRole } from '@cp/auth';
import { AppConfigToken } from '@cp/common';
import { DbModule } from '@cp/db';
import { AccessPolicy } from '../../apps/control-plane/src/auth/access-policy';
import { ADMIN_VERIFIED_TOKENS } from '../../apps/control-plane/src/auth/admin-auth.tokens';
import { testConfig } from './config';
import { givenDb } from './given-db';
import type { TestDatabase } from './test-database';

/** `config`: overrides of the test config, e.g. a REDIS_KEY_PREFIX of its own for a module that enqueues jobs. */
export async function serviceModule(db: TestDatabase, imports: Type[], config: Record<string, string> = {}) {
  // What AppConfigModule and AdminAuthModule give every feature module in the app (the guard is
  // HTTP-side and never runs here, but its resolvers' guards are built: they need the token cache).
  @Global()
  @Module({
    providers: [
      { provide: AppConfigToken, useValue: testConfig({ ...config, DATABASE_URL: db.url }) },
      AccessPolicy,
      { provide: ADMIN_VERIFIED_TOKENS, useFactory: () => new VerifiedTokens<AdminPrincipal>() },
    ],
    exports: [AppConfigToken, AccessPolicy, ADMIN_VERIFIED_TOKENS],
  })
  class ServiceTierGlobals {}

  const ref = await Test.createTestingModule({ imports: [ServiceTierGlobals, DbModule, ...imports] }).compile();
  await ref.init();
  const given = givenDb(db.url);
  return {
    /** A provider by class, or by token (a queue: `get<Queue>(getQueueToken(name))`). */
    get: <T>(type: Type<T> | string | symbol): T => ref.get<T>(type, { strict: false }),
    given,
    async close() {
      await given.close();
      await ref.close();
    },
  };
}

export const principal = (roles: AdminRole[], teams: string[] = [], subject = 'someone'): AdminPrincipal => ({
  kind: 'admin',
  subject,
  roles,
  teams,
});
