/**
 * Issue 11 item 3: log amplification. A bad token is verified once per request, not once per
 * aliased field, and expected errors (auth refusals, NOT_FOUND) write no error-level log line and
 * no stack. The app's real pino output is captured and its lines counted.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { JwtVerifier, mintAdminToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { gql } from '../support/graphql-client';
import { LogCapture } from '../support/log-capture';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const ALIASES = 500;
const aliases = (field: string) => Array.from({ length: ALIASES }, (_, i) => `a${i}: ${field}`).join(' ');

describe('GraphQL auth and domain errors are not logged once per field', () => {
  let db: TestDatabase;
  let app: NestFastifyApplication;
  let url: string;
  let config: AppConfig;
  const logs = new LogCapture();

  beforeAll(async () => {
    db = await createTestDatabase('sec_log_amplification');
    // Caps raised so the aliased operations run (the point here is what running them logs).
    config = testConfig({
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: `test:sec-log-amp:${process.pid}:`,
      LOG_LEVEL: 'info',
      GRAPHQL_MAX_ALIASES: String(ALIASES),
      GRAPHQL_MAX_ROOT_FIELDS: String(ALIASES),
      GRAPHQL_MAX_COMPLEXITY: '100000',
      GRAPHQL_MAX_TOKENS: '100000',
    });
    ({ app, url } = await bootApp(AppModule, config, { logs }));
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await app?.close();
    await db?.drop();
  });

  const errorLines = () => logs.atLeast(40);
  const stacks = () => logs.lines.filter((line) => JSON.stringify(line).includes('    at '));

  it.each([
    ['no token', undefined],
    ['a garbage token', 'not-a-jwt'],
    ['a token with a bad signature', mintAdminToken({ ...testConfig(), JWT_SECRET: 'y'.repeat(40) }, 'mallory', ['platform-admin'])],
  ])(
    `%s: ${ALIASES} aliased fields are refused UNAUTHENTICATED after one verification, logging one access line and nothing else`,
    async (_name, token) => {
      const verify = jest.spyOn(JwtVerifier.prototype, 'keyFor');
      logs.clear();
      const res = await gql(url, token, `{ ${aliases('me { subject }')} }`);
      // Every field's guard runs; the non-null roots make graphql-js answer data: null with the first refusal.
      expect(res.data).toBeNull();
      expect(res.errors!.length).toBeGreaterThanOrEqual(1);
      expect(new Set(res.errors!.map((e) => e.extensions.code))).toEqual(new Set(['UNAUTHENTICATED']));
      expect(verify.mock.calls.length).toBeLessThanOrEqual(1);
      verify.mockRestore();
      await new Promise((r) => setTimeout(r, 50)); // the access line is written when the response ends
      expect(errorLines()).toEqual([]);
      expect(stacks()).toEqual([]);
      expect(logs.requests()).toHaveLength(1);
      expect(logs.lines).toHaveLength(1);
    },
  );

  it(`NOT_FOUND for ${ALIASES} aliased unknown agents logs no error and no stack`, async () => {
    logs.clear();
    const res = await gql(url, mintAdminToken(config, 'viewer', ['viewer']), `{ ${aliases('agent(id: "no-such-agent") { id }')} }`);
    expect(res.errors!.length).toBeGreaterThanOrEqual(1);
    expect(new Set(res.errors!.map((e) => e.extensions.code))).toEqual(new Set(['NOT_FOUND']));
    await new Promise((r) => setTimeout(r, 50));
    expect(errorLines()).toEqual([]);
    expect(stacks()).toEqual([]);
    expect(logs.requests()).toEqual([expect.objectContaining({ principal: 'admin:viewer', status: 200, route: '/graphql' })]);
  });
});
