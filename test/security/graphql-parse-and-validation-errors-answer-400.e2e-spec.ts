/**
 * Issue 11 item 4: the GraphQL layer's own refusals are the caller's mistakes: parse errors answer
 * GRAPHQL_PARSE_FAILED, validation errors GRAPHQL_VALIDATION_FAILED, a document over the token
 * limit QUERY_TOO_COMPLEX, all with HTTP 400, never INTERNAL_SERVER_ERROR, and none is logged
 * as an unhandled error.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mintAdminToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { codeOf, gql } from '../support/graphql-client';
import { LogCapture } from '../support/log-capture';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

describe('GraphQL parse, validation and size errors answer 400 with their own code', () => {
  let db: TestDatabase;
  let app: NestFastifyApplication;
  let url: string;
  let config: AppConfig;
  let token: string;
  const logs = new LogCapture();

  beforeAll(async () => {
    db = await createTestDatabase('sec_graphql_errors');
    config = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: `test:sec-gql-errors:${process.pid}:`, LOG_LEVEL: 'info' });
    ({ app, url } = await bootApp(AppModule, config, { logs }));
    token = mintAdminToken(config, 'viewer', ['viewer']);
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  it.each([
    ['an unclosed selection', 'GRAPHQL_PARSE_FAILED', '{ agents { nodes { id }'],
    ['garbage', 'GRAPHQL_PARSE_FAILED', '%%%'],
    ['an unknown field', 'GRAPHQL_VALIDATION_FAILED', '{ agents { nodes { nope } } }'],
    ['a missing required argument', 'GRAPHQL_VALIDATION_FAILED', '{ agent { id } }'],
    ['an undefined variable', 'GRAPHQL_VALIDATION_FAILED', '{ agent(id: $id) { id } }'],
    ['a document over the token limit', 'QUERY_TOO_COMPLEX', `{ ${Array(3000).fill('me { subject }').join(' ')} }`],
  ])('%s answers %s with HTTP 400', async (_name, code, query) => {
    logs.clear();
    const res = await gql(url, token, query);
    expect(res.status).toBe(400);
    expect(codeOf(res)).toBe(code);
    expect(res.errors!.map((e) => e.extensions.code)).not.toContain('INTERNAL_SERVER_ERROR');
    expect(JSON.stringify(res.errors)).not.toMatch(/errorId/);
    await new Promise((r) => setTimeout(r, 50));
    expect(logs.atLeast(40)).toEqual([]);
  });

  it('names the token limit in the answer', async () => {
    const res = await gql(url, undefined, `{ ${Array(6000).fill('__typename').join(' ')} }`);
    expect(res.errors![0].extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      reason: 'TOKEN_LIMIT',
      maxTokens: config.GRAPHQL_MAX_TOKENS,
    });
  });

  it('answers a variable of the wrong type BAD_USER_INPUT with HTTP 400', async () => {
    const res = await gql(url, token, 'query($id: String!) { agent(id: $id) { id } }', { id: { not: 'a string' } });
    expect(res.status).toBe(400);
    expect(codeOf(res)).toBe('BAD_USER_INPUT');
  });
});
