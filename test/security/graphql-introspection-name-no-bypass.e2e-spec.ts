/**
 * Issue 11 item 1: no operation escapes the cost limit by its name, aliases and root fields are
 * capped, and introspection is bounded by its shape, while graphql-js's getIntrospectionQuery()
 * (what schema tools send) still works, with or without a token.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { getIntrospectionQuery } from 'graphql';
import { mintAdminToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { codeOf, gql } from '../support/graphql-client';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const aliases = (n: number, field: string) => Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ');

describe('GraphQL cost limits cannot be bypassed by the operation name', () => {
  let db: TestDatabase;
  let app: NestFastifyApplication;
  let url: string;
  let config: AppConfig;

  beforeAll(async () => {
    db = await createTestDatabase('sec_introspection');
    config = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: `test:sec-introspection:${process.pid}:` });
    ({ app, url } = await bootApp(AppModule, config));
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  it('refuses the reported 18,500 aliases named IntrospectionQuery without a token, at parse time', async () => {
    const res = await gql(url, undefined, `query IntrospectionQuery { ${aliases(18_500, 'agents { nodes { id } }')} }`);
    expect(res.status).toBe(400);
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', reason: 'TOKEN_LIMIT' });
    expect(res.data).toBeUndefined(); // nothing executed: no per-field UNAUTHENTICATED answers
  });

  it('refuses 200 aliased fields named IntrospectionQuery without a token before running any of them', async () => {
    const res = await gql(url, undefined, `query IntrospectionQuery { ${aliases(200, 'agents { nodes { id } }')} }`);
    expect(res.status).toBe(400);
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', reason: 'ALIAS_LIMIT', aliases: 200 });
    expect(res.data).toBeUndefined();
  });

  it('refuses an operation of many aliases even when each costs nothing (__typename) and it is named IntrospectionQuery', async () => {
    const res = await gql(url, undefined, `query IntrospectionQuery { ${aliases(config.GRAPHQL_MAX_ALIASES + 1, '__typename')} }`);
    expect(codeOf(res)).toBe('QUERY_TOO_COMPLEX');
    expect(res.errors![0].message).toMatch(
      new RegExp(`${config.GRAPHQL_MAX_ALIASES + 1} aliases; the limit is ${config.GRAPHQL_MAX_ALIASES}`),
    );
  });

  it('counts aliases inside fragments once per spread', async () => {
    const fragment = `fragment F on Query { ${aliases(10, '__typename')} }`;
    const res = await gql(url, undefined, `query IntrospectionQuery { ...F ... on Query { ...F ...F ...F } } ${fragment}`);
    expect(codeOf(res)).toBe('QUERY_TOO_COMPLEX');
    expect(res.errors![0].extensions).toMatchObject({ reason: 'ALIAS_LIMIT', aliases: 40 });
  });

  it('caps root fields, repeats of the same field included', async () => {
    const res = await gql(
      url,
      undefined,
      `query IntrospectionQuery { ${Array(config.GRAPHQL_MAX_ROOT_FIELDS + 1)
        .fill('me { subject }')
        .join(' ')} }`,
    );
    expect(codeOf(res)).toBe('QUERY_TOO_COMPLEX');
    expect(res.errors![0].extensions.reason).toBe('ROOT_FIELD_LIMIT');
  });

  it('applies the complexity limit to an operation named IntrospectionQuery', async () => {
    const token = mintAdminToken(config, 'viewer', ['viewer']);
    // Under the alias and root caps, over the cost limit: 10 lists of 100 rows of 6 fields.
    const list = 'manifests(page: {first: 100}) { nodes { id agentId state visibility handler owner } }';
    const res = await gql(url, token, `query IntrospectionQuery { ${aliases(10, list)} }`);
    expect(codeOf(res)).toBe('QUERY_TOO_COMPLEX');
    expect(res.errors![0].extensions.reason).toBe('COMPLEXITY_LIMIT');
  });

  it('bounds introspection by its shape: one __schema, and lists no deeper than the standard query', async () => {
    const twice = await gql(url, undefined, '{ a: __schema { queryType { name } } b: __schema { queryType { name } } }');
    expect(codeOf(twice)).toBe('QUERY_TOO_COMPLEX');
    expect(twice.errors![0].extensions.reason).toBe('INTROSPECTION_LIMIT');
    const fanOut = await gql(url, undefined, '{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }');
    expect(codeOf(fanOut)).toBe('QUERY_TOO_COMPLEX');
    expect(fanOut.errors![0].extensions).toMatchObject({ reason: 'INTROSPECTION_LIMIT', listDepth: 4 });
  });

  it("still answers graphql-js's getIntrospectionQuery() for schema tools, with and without a token", async () => {
    for (const token of [undefined, mintAdminToken(config, 'viewer', ['viewer'])]) {
      const res = await gql(url, token, getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }));
      expect(res.errors).toBeUndefined();
      expect(res.status).toBe(200);
      expect((res.data!.__schema.types as { name: string }[]).map((t) => t.name)).toContain('CapabilityManifest');
    }
  });
});
