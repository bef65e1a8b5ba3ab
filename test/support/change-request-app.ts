/**
 * The whole app as the change-request suites over HTTP boot it: AppModule on a database of the
 * suite's own, change-request notices announced to the platform-ops tenant (with the notice
 * schedule off, so that the suite reads them as filed), the finance example written under
 * `agentId`, a second team (`other-team`), and the cast's admin tokens.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mintAdminToken } from '@cp/auth';
import { financeAgentExample } from '@cp/capabilities';
import type { AppConfig } from '@cp/common';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from './boot';
import { testConfig } from './config';
import { givenDb, type GivenDb } from './given-db';
import { createTestDatabase, type TestDatabase } from './test-database';

export interface ChangeRequestApp {
  db: TestDatabase;
  app: NestFastifyApplication;
  url: string;
  config: AppConfig;
  given: GivenDb;
  /**
   * alice, a team admin of the agent's team (the usual author); aliceAgain, the same subject with a
   * platform-admin token (still the author); bob, a second team admin of the team; carol, a team
   * admin of other-team; root, a platform admin.
   */
  tokens: Record<string, string>;
  close(): Promise<void>;
}

/** `label` names the suite's database and Redis prefix; `overrides` go over its config. */
export async function startChangeRequestApp(
  label: string,
  agentId: string,
  overrides: Record<string, string> = {},
): Promise<ChangeRequestApp> {
  const db = await createTestDatabase(label.replace(/-/g, '_'));
  let app: NestFastifyApplication | undefined;
  let given: GivenDb | undefined;
  const close = async () => {
    await given?.close();
    await app?.close();
    await db.drop();
  };
  try {
    const config = testConfig({
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: `test:${label}:${process.pid}:`,
      CHANGE_REQUEST_NOTICE_TENANTS: 'platform-ops',
      DEPRECATION_NOTICE_SCHEDULE_ENABLED: 'false',
      ...overrides,
    });
    const booted = await bootApp(AppModule, config);
    app = booted.app;
    given = givenDb(db.url);
    await given.financeExample(agentId);
    await given.prisma.team.create({ data: { id: 'other-team', name: 'Other' } });
    const team = financeAgentExample().manifests[0].owner;
    const tokens = {
      alice: mintAdminToken(config, 'alice', ['team-admin'], [team]),
      aliceAgain: mintAdminToken(config, 'alice', ['platform-admin'], []),
      bob: mintAdminToken(config, 'bob', ['team-admin'], [team]),
      carol: mintAdminToken(config, 'carol', ['team-admin'], ['other-team']),
      root: mintAdminToken(config, 'root', ['platform-admin'], []),
    };
    return { db, app, url: booted.url, config, given, tokens, close };
  } catch (error) {
    // A suite whose beforeAll failed has nothing to close: leave no database behind.
    await close().catch(() => undefined);
    throw error;
  }
}
