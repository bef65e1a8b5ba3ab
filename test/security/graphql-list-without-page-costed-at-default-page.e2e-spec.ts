/**
 * Issue 11 item 2: a list asked for without `page` returns the default page (50 rows), so it is
 * costed at 50 rows, not 1.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mintAdminToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { DEFAULT_PAGE_SIZE } from '../../apps/control-plane/src/common/graphql/pagination';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { codeOf, gql } from '../support/graphql-client';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const FIELDS = 'nodes { id agentId state visibility handler owner skill { name description tags } }';

describe('GraphQL lists without page are costed at the default page size', () => {
  let db: TestDatabase;
  let app: NestFastifyApplication;
  let url: string;
  let config: AppConfig;
  let token: string;

  beforeAll(async () => {
    db = await createTestDatabase('sec_list_cost');
    // 10 fields per row: a 50-row page costs ~500, a 1-row page ~10.
    config = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: `test:sec-list-cost:${process.pid}:`, GRAPHQL_MAX_COMPLEXITY: '300' });
    ({ app, url } = await bootApp(AppModule, config));
    token = mintAdminToken(config, 'viewer', ['viewer']);
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  it('refuses a list without page whose default page would cost more than the limit', async () => {
    const res = await gql(url, token, `{ manifests { ${FIELDS} } }`);
    expect(codeOf(res)).toBe('QUERY_TOO_COMPLEX');
    expect(res.status).toBe(400);
    expect(res.errors![0].extensions.complexity).toBeGreaterThanOrEqual(DEFAULT_PAGE_SIZE * 10);
  });

  it('costs `page: {}` (first left to its default) the same as no page', async () => {
    const res = await gql(url, token, `{ manifests(page: {}) { ${FIELDS} } }`);
    expect(codeOf(res)).toBe('QUERY_TOO_COMPLEX');
  });

  it('lets the same list through when it asks for a page that fits', async () => {
    const res = await gql(url, token, `{ manifests(page: {first: 10}) { ${FIELDS} } }`);
    expect(codeOf(res)).toBe('OK');
  });
});
