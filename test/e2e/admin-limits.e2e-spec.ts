/**
 * Query depth and complexity limits, and the list's promise: listing N manifests with their usage
 * is one SQL statement whatever N is (ADR 0340).
 *
 * How statements are counted: every query Prisma sends goes through node-postgres
 * (`@prisma/adapter-pg` → `pg.Pool` → `pg.Client#query`), and so do the repositories' own
 * statements on Prisma's pool. The suite wraps `Client.prototype.query`
 * (same module instance as the adapter's) and counts calls made while one GraphQL request runs.
 * Nothing else touches this suite's database meanwhile, so the count is exact; it counts
 * statements the server sends, including BEGIN/COMMIT of any transaction.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { mintAdminToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { OutboxRelay } from '@cp/sync';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { givenDb, type GivenAgent, type GivenDb } from '../support/given-db';
import { codeOf, gql, gqlOk } from '../support/graphql-client';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const LIST = `query($agentId: String!, $first: Int!) { manifests(filter: {agentId: $agentId}, page: {first: $first}) {
  nodes { id state usage { calls lastCallAt } } pageInfo { hasNextPage } } }`;

describe('admin API limits and SQL cost (HTTP)', () => {
  let db: TestDatabase;
  let app: NestFastifyApplication;
  let url: string;
  let config: AppConfig;
  let given: GivenDb;
  let token: string;
  let big: GivenAgent;
  let small: GivenAgent;
  let statements = 0;
  let texts: string[] = [];
  const original = Client.prototype.query;

  beforeAll(async () => {
    db = await createTestDatabase('admin_limits');
    config = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: `test:admin-limits:${process.pid}:`, GRAPHQL_MAX_COMPLEXITY: '1000' });
    ({ app, url } = await bootApp(AppModule, config));
    // The sync relay's periodic outbox and re-announce ticks read PostgreSQL on a timer; one that
    // lands inside a counted request is not that request's cost (a loaded machine made it 3, not 2).
    await app.get(OutboxRelay).onApplicationShutdown();
    given = givenDb(db.url);
    big = await given.agent({ id: 'big-agent' });
    small = await given.agent({ id: 'small-agent', teamId: big.teamId });
    await given.manifests(big, 100);
    await given.manifests(small, 10);
    const node = await given.node(big.id);
    const node2 = await given.node(small.id);
    for (let i = 0; i < 100; i += 3)
      await given.usage({
        agentId: big.id,
        capabilityId: `cap-${String(i).padStart(5, '0')}`,
        tenantId: 't',
        nodeId: node.id,
        day: '2026-11-01',
        count: i + 1,
      });
    await given.usage({ agentId: small.id, capabilityId: 'cap-00001', tenantId: 't', nodeId: node2.id, day: '2026-11-01', count: 4 });
    token = mintAdminToken(config, 'viewer', ['viewer']);
    Client.prototype.query = function (this: Client, ...args: unknown[]) {
      statements += 1;
      const sql = args[0];
      texts.push(typeof sql === 'string' ? sql : String((sql as { text?: string } | undefined)?.text));
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof Client.prototype.query;
  });
  afterAll(async () => {
    Client.prototype.query = original;
    await given?.close();
    await app?.close();
    await db?.drop();
  });

  const countStatements = async (agentId: string, first: number) => {
    await gqlOk(url, token, LIST, { agentId, first }); // warm-up: pool connections, prepared plans
    statements = 0;
    texts = [];
    const data = await gqlOk(url, token, LIST, { agentId, first });
    return { statements, texts, data };
  };

  it('lists 100 manifests with their usage in one SQL statement, as 10 (the page and its usage together)', async () => {
    const hundred = await countStatements(big.id, 100);
    const ten = await countStatements(small.id, 10);
    expect(hundred.data.manifests.nodes).toHaveLength(100);
    // Summed per manifest, at the instant stored (UTC, whatever the process's zone); none: 0 and null.
    expect(hundred.data.manifests.nodes[3].usage).toEqual({ calls: 4, lastCallAt: '2026-11-01T12:00:00.000Z' });
    expect(hundred.data.manifests.nodes[4].usage).toEqual({ calls: 0, lastCallAt: null });
    expect(ten.data.manifests.nodes[1].usage.calls).toBe(4);
    expect(ten.data.manifests.nodes.filter((n: { usage: { calls: number } }) => n.usage.calls > 0)).toHaveLength(1);
    expect({ statements: hundred.statements, texts: hundred.texts }).toEqual({ statements: ten.statements, texts: expect.any(Array) });
    expect(hundred.statements).toBe(1);
  });

  it('refuses an operation deeper than GRAPHQL_MAX_DEPTH before running it (fragments counted, introspection not)', async () => {
    // The schema is shallow (4 levels at most), so this runs the same app with a limit of 3.
    const shallow = await bootApp(AppModule, { ...config, GRAPHQL_MAX_DEPTH: 3 });
    try {
      texts = [];
      const deep = await gql(shallow.url, token, '{ manifests { nodes { skill { name } } } }');
      expect(codeOf(deep)).toBe('QUERY_TOO_COMPLEX');
      expect(deep.errors![0].message).toMatch(/4 levels deep; the limit is 3/);
      expect(deep.errors![0].extensions).toMatchObject({ reason: 'DEPTH_LIMIT', depth: 4, maxDepth: 3 });
      // Refused before any resolver ran: nothing read a manifest or its usage. (The app's own
      // background work, such as the outbox relay's poll, may query other tables meanwhile.)
      expect(texts.filter((sql) => /"CapabilityManifest"|"UsageBucket"/.test(sql))).toEqual([]);
      const viaFragment = await gql(
        shallow.url,
        token,
        '{ manifests { ...M } } fragment M on CapabilityManifestConnection { nodes { usage { calls } } }',
      );
      expect(codeOf(viaFragment)).toBe('QUERY_TOO_COMPLEX');
      texts = [];
      expect(codeOf(await gql(shallow.url, token, '{ manifests { nodes { id } } }'))).toBe('OK');
      expect(texts.some((sql) => /"CapabilityManifest"/.test(sql))).toBe(true); // the filter above sees a resolver's read
      expect(codeOf(await gql(shallow.url, token, '{ __schema { types { fields { type { ofType { ofType { name } } } } } } }'))).toBe('OK');
    } finally {
      await shallow.app.close();
    }
  });

  it('refuses an operation more complex than GRAPHQL_MAX_COMPLEXITY, counting page sizes from variables', async () => {
    const q =
      'query($first: Int!) { manifests(page: {first: $first}) { nodes { id agentId state visibility handler owner skill { name description tags } usage { calls lastCallAt } } } }';
    expect(codeOf(await gql(url, token, q, { first: 10 }))).toBe('OK');
    const res = await gql(url, token, q, { first: 100 });
    expect(codeOf(res)).toBe('QUERY_TOO_COMPLEX');
    expect(res.errors![0].message).toMatch(/complexity \d+ exceeds the limit 1000/);
    // The cost is remembered per document and variables (ADR 189): the same text, either way again.
    expect(codeOf(await gql(url, token, q, { first: 10 }))).toBe('OK');
    expect(codeOf(await gql(url, token, q, { first: 100 }))).toBe('QUERY_TOO_COMPLEX');
    expect(codeOf(await gql(url, token, q, { first: '100' }))).toBe('BAD_USER_INPUT');
  });
});
