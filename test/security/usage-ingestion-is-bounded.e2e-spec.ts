/**
 * Issue 11, item 10: usage ingestion trusts nothing a node sends. Counts are bounded per entry
 * and per batch and summed without overflow (also when read back through GraphQL); tenants must
 * exist, node ids must be registered for the token's agent, capabilities must exist and not be
 * removed before the window, windows are bounded. Every refusal is a 4xx in the node API's shape
 * naming the JSON path, and writes nothing.
 */
import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { mintAdminToken, mintNodeToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { addUsage, createManifests, createNode } from '../support/given-db';
import { bootApp } from '../support/boot';
import { registerNode } from '../support/node-api';
import { testConfig } from '../support/config';
import { gql } from '../support/graphql-client';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const AGENT = 'finance-agent';
const NODE = 'usage-node:1';
const BIGINT_MAX = 9223372036854775807n;
type ErrorBody = { error: { code: string; message: string; issues?: { path: string; message: string }[] } };

describe('usage ingestion refuses what it cannot trust', () => {
  let db: TestDatabase;
  let config: AppConfig;
  let app: NestFastifyApplication;
  let url: string;
  let pg: Client;

  const post = async (body: unknown, agentId = AGENT) => {
    const res = await fetch(`${url}/node/v1/usage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${mintNodeToken(config, agentId)}` },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text, json: () => JSON.parse(text) as ErrorBody };
  };
  const at = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();
  const batch = (over: Record<string, unknown> = {}, count: Record<string, unknown> = {}) => ({
    nodeId: NODE,
    batchId: randomUUID(),
    windowStart: at(120_000),
    windowEnd: at(0),
    counts: [{ capabilityId: 'invoice-lookup', tenant: 'acme-partner', count: 3, lastCallAt: at(60_000), ...count }],
    ...over,
  });
  const snapshot = async () => ({
    buckets: (await pg.query(`SELECT * FROM "UsageBucket" ORDER BY 1, 2, 3, 4, 5`)).rows,
    batches: (await pg.query(`SELECT id FROM "UsageBatch" ORDER BY id`)).rows,
    coverage: (await pg.query(`SELECT * FROM "NodeUsageCoverage" ORDER BY 1, 2`)).rows,
    nodes: (await pg.query(`SELECT * FROM "Node" ORDER BY 1, 2`)).rows,
  });
  /** Refused with a 4xx naming `path`, and nothing written. */
  const expectRefused = async (body: unknown, path: string, code = 'INVALID_REQUEST') => {
    const before = await snapshot();
    const res = await post(body);
    expect({ status: res.status, code: res.json().error.code }).toEqual({ status: 400, code });
    expect(res.json().error.issues?.map((i) => i.path)).toContain(path);
    expect(await snapshot()).toEqual(before);
  };

  beforeAll(async () => {
    db = await createTestDatabase('sec_usage');
    config = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: `test:sec-usage:${process.pid}:` });
    ({ app, url } = await bootApp(AppModule, config));
    await seedWhenEmpty(app.get(PrismaService));
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    await createManifests(pg, [
      {
        agentId: AGENT,
        capabilityId: 'long-gone',
        state: 'removed',
        removedAt: new Date(Date.now() - 3_600_000),
        teamId: 'finance-agents-team',
      },
      {
        agentId: AGENT,
        capabilityId: 'just-removed',
        state: 'removed',
        removedAt: new Date(Date.now() - 30_000),
        teamId: 'finance-agents-team',
      },
    ]);
    expect((await registerNode(url, config, AGENT, NODE)).status).toBe(204);
  }, 60_000);

  afterAll(async () => {
    await pg?.end();
    await app?.close();
    await db?.drop();
  });

  it('accepts a sound batch (the control for everything below)', async () => {
    expect((await post(batch())).status).toBe(202);
    expect((await post(batch({}, { tenant: 'anonymous', count: 1 }))).status).toBe(202);
    // Removed after the window started: calls before the removal are real.
    expect((await post(batch({}, { capabilityId: 'just-removed', lastCallAt: at(90_000) }))).status).toBe(202);
  });

  it('bounds counts per entry and per batch: huge counts are a 400 naming the entry, not a 500', async () => {
    await expectRefused(batch({}, { count: Number.MAX_SAFE_INTEGER }), '$.counts[0].count');
    const many = Array.from({ length: 1100 }, (_, i) => ({
      capabilityId: 'invoice-lookup',
      tenant: i % 2 ? 'acme-partner' : 'anonymous',
      count: 1_000_000_000,
      lastCallAt: at(60_000),
    }));
    await expectRefused(batch({ counts: many }), '$.counts');
  });

  it('sums into a stored bucket near the bigint limit without overflowing', async () => {
    const day = at(60_000).slice(0, 10);
    await pg.query(
      `UPDATE "UsageBucket" SET count = $1 WHERE "agentId" = $2 AND "capabilityId" = 'invoice-lookup' AND "tenantId" = 'acme-partner' AND day = $3::date`,
      [String(BIGINT_MAX - 5n), AGENT, day],
    );
    const res = await post(batch({}, { count: 1000 }));
    expect(res.status).toBe(202);
    const { rows } = await pg.query(
      `SELECT count::text FROM "UsageBucket" WHERE "agentId" = $1 AND "capabilityId" = 'invoice-lookup' AND "tenantId" = 'acme-partner' AND day = $2::date`,
      [AGENT, day],
    );
    expect(rows).toEqual([{ count: String(BIGINT_MAX) }]);
  });

  it('the usage query never fails because of stored sums', async () => {
    await createNode(pg, { id: 'usage-node:2', agentId: AGENT, registeredAt: new Date() });
    await addUsage(pg, [
      {
        agentId: AGENT,
        capabilityId: 'invoice-lookup',
        tenantId: 'acme-partner',
        nodeId: 'usage-node:2',
        lastCallAt: new Date(),
        count: BIGINT_MAX,
      },
    ]);
    const admin = mintAdminToken(config, 'alice', ['platform-admin']);
    const daily = await gql(url, admin, `query($a: String!) { usage(filter: { agentId: $a }) { nodes { day calls } } }`, { a: AGENT });
    expect(daily.errors).toBeUndefined();
    expect(daily.data!.usage.nodes[0].calls).toBeGreaterThan(Number(BIGINT_MAX));
    const totals = await gql(url, admin, `query($a: String!) { manifests(filter: { agentId: $a }) { nodes { id usage { calls } } } }`, {
      a: AGENT,
    });
    expect(totals.errors).toBeUndefined();
  });

  it('refuses tenants that do not exist, right-to-left overrides included', async () => {
    await expectRefused(batch({}, { tenant: 'no-such-tenant' }), '$.counts[0].tenant');
    await expectRefused(batch({}, { tenant: 'acme-partner\u202e' }), '$.counts[0].tenant');
    await expectRefused(batch({}, { tenant: '\u202eacme-partner' }), '$.counts[0].tenant');
  });

  it('refuses node ids off the register pattern and node ids not registered for this agent', async () => {
    await expectRefused(batch({ nodeId: 'has spaces\u202e' }), '$.nodeId');
    await expectRefused(batch({ nodeId: 'never-registered' }), '$.nodeId');
  });

  it('refuses capabilities that are unknown or were removed before the window', async () => {
    await expectRefused(batch({}, { capabilityId: 'long-gone' }), '$.counts[0].capabilityId', 'UNKNOWN_CAPABILITY');
    await expectRefused(batch({}, { capabilityId: 'no-such-capability' }), '$.counts[0].capabilityId', 'UNKNOWN_CAPABILITY');
  });

  it('bounds windows: not from 1970, not before the agent existed, not longer than a day, not in the future', async () => {
    await expectRefused(batch({ windowStart: '1970-01-01T00:00:00.000Z' }), '$.windowStart');
    const created = (await pg.query(`SELECT "createdAt" FROM "Agent" WHERE id = $1`, [AGENT])).rows[0].createdAt as Date;
    await expectRefused(batch({ windowStart: new Date(created.getTime() - 3_600_000).toISOString() }), '$.windowStart');
    await expectRefused(batch({ windowStart: at(2 * 86_400_000) }), '$.windowStart');
    const future = new Date(Date.now() + 3_600_000).toISOString();
    await expectRefused(batch({ windowEnd: future }, { lastCallAt: at(60_000) }), '$.windowEnd');
  });
});
