/**
 * The control plane alone (GraphQL admin API, node API) on a database and Redis prefix of its own,
 * seeded with the finance example through givenDb, and a team-admin token of the finance team: what
 * the admin API specs start from.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mintAdminToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from './boot';
import { testConfig } from './config';
import { givenDb, type GivenDb } from './given-db';
import type { LogCapture } from './log-capture';
import { createTestDatabase, type TestDatabase } from './test-database';

export interface FinanceAdminApp {
  db: TestDatabase;
  app: NestFastifyApplication;
  url: string;
  config: AppConfig;
  given: GivenDb;
  /** A team admin of the finance example's owning team. */
  admin: string;
  example: Awaited<ReturnType<GivenDb['financeExample']>>['example'];
  close(): Promise<void>;
}

/** `label` names the database and the Redis prefix; `logs` captures the app's log lines. */
export async function financeAdminApp(
  label: string,
  options: { config?: Record<string, string>; logs?: LogCapture; agentId?: string } = {},
): Promise<FinanceAdminApp> {
  const db = await createTestDatabase(label);
  const config = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: `test:${label}:${process.pid}:`, ...options.config });
  const { app, url } = await bootApp(AppModule, config, options.logs ? { logs: options.logs } : {});
  const given = givenDb(db.url);
  const { example } = await given.financeExample(options.agentId ?? 'finance-agent');
  const admin = mintAdminToken(config, 'ci-finance', ['team-admin'], [example.manifests[0].owner]);
  return {
    db,
    app,
    url,
    config,
    given,
    admin,
    example,
    async close() {
      await given.close();
      await app.close();
      await db.drop();
    },
  };
}
