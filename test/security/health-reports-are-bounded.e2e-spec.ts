/**
 * Issue 32 (ADR 0310): the outcomes and latency buckets a node reports with its usage trust
 * nothing either. Unknown outcomes, negative, fractional, huge or NaN counts, bucket arrays of the
 * wrong length, buckets that do not add up, another agent's capability: a 400 naming the JSON
 * path, nothing written. A retried batch adds nothing twice; sums saturate instead of failing.
 */
import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { mintNodeToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import { LATENCY_BUCKETS, MAX_COUNT_PER_ENTRY } from '@cp/node-protocol';
import { bootApp } from '../support/boot';
import { registerNode } from '../support/node-api';
import { controlPlaneUnderTest } from '../support/control-plane-under-test';
import { testConfig } from '../support/config';
import { createAgent, createManifests } from '../support/given-db';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const AGENT = 'finance-agent';
const NODE = 'health-node:1';
type ErrorBody = { error: { code: string; message: string; issues?: { path: string; message: string }[] } };
const zeros = () => new Array<number>(LATENCY_BUCKETS).fill(0);

describe('health reports are bounded', () => {
  let db: TestDatabase;
  let config: AppConfig;
  let app: NestFastifyApplication;
  let url: string;
  let pg: Client;

  const post = async (body: unknown) => {
    const res = await fetch(`${url}/node/v1/usage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${mintNodeToken(config, AGENT)}` },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: () => JSON.parse(text) as ErrorBody };
  };
  const at = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();
  const latency = (first: number) => [first, ...zeros().slice(1)];
  const batch = (count: Record<string, unknown> = {}, batchId = randomUUID()) => ({
    nodeId: NODE,
    batchId,
    windowStart: at(120_000),
    windowEnd: at(0),
    counts: [
      {
        capabilityId: 'invoice-lookup',
        tenant: 'acme-partner',
        count: 3,
        lastCallAt: at(60_000),
        outcomes: { completed: 2, failed: 1, refused: 1 },
        latencyMs: latency(3),
        ...count,
      },
    ],
  });
  const health = async () =>
    (
      await pg.query(
        `SELECT "capabilityId", "tenantId", calls, completed, failed, refused, "latencyMs" FROM "CapabilityHealthBucket" ORDER BY 1, 2, hour`,
      )
    ).rows;
  const expectRefused = async (body: unknown, path: string, code = 'INVALID_REQUEST') => {
    const before = { health: await health(), batches: (await pg.query(`SELECT id FROM "UsageBatch" ORDER BY id`)).rows };
    const res = await post(body);
    expect({ status: res.status, code: res.json().error.code }).toEqual({ status: 400, code });
    expect(res.json().error.issues?.map((i) => i.path)).toContain(path);
    expect({ health: await health(), batches: (await pg.query(`SELECT id FROM "UsageBatch" ORDER BY id`)).rows }).toEqual(before);
  };

  beforeAll(async () => {
    db = await createTestDatabase('sec_health');
    config = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: `test:sec-health:${process.pid}:` });
    ({ app, url } = await bootApp(controlPlaneUnderTest({ a2a: true }), config));
    await seedWhenEmpty(app.get(PrismaService));
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    await createAgent(pg, 'other-agent');
    await createManifests(pg, [{ agentId: 'other-agent', capabilityId: 'other-capability', state: 'ga' }]);
    expect((await registerNode(url, config, AGENT, NODE)).status).toBe(204);
  }, 60_000);

  afterAll(async () => {
    await pg?.end();
    await app?.close();
    await db?.drop();
  });

  it('stores a sound report once, however often the batch is retried; an older node (no outcomes) still adds its calls', async () => {
    const sound = batch();
    for (let i = 0; i < 3; i++) expect((await post(sound)).status).toBe(202);
    expect((await post(batch({ outcomes: undefined, latencyMs: undefined, count: 4 }))).status).toBe(202);
    const [row] = await health();
    expect(row).toMatchObject({ calls: '7', completed: '2', failed: '1', refused: '1' });
    expect(row.latencyMs).toEqual(latency(3).map(String));
  });

  it.each([
    ['an unknown outcome', { outcomes: { completed: 2, failed: 1, refused: 1, exploded: 5 } }, '$.counts[0].outcomes'],
    ['a negative outcome', { outcomes: { completed: -1 }, latencyMs: undefined }, '$.counts[0].outcomes.completed'],
    ['a fractional outcome', { outcomes: { failed: 0.5 }, latencyMs: undefined }, '$.counts[0].outcomes.failed'],
    ['a huge outcome', { outcomes: { refused: MAX_COUNT_PER_ENTRY + 1 }, latencyMs: undefined }, '$.counts[0].outcomes.refused'],
    ['NaN (null in JSON) in a bucket', { latencyMs: [null, ...zeros().slice(1)] }, '$.counts[0].latencyMs[0]'],
    ['ten thousand buckets', { latencyMs: new Array<number>(10_000).fill(0) }, '$.counts[0].latencyMs'],
    ['a huge bucket count', { latencyMs: latency(1e300) }, '$.counts[0].latencyMs[0]'],
    ['buckets that do not add up to the outcomes', { latencyMs: latency(1000) }, '$.counts[0].latencyMs'],
    ['latency without outcomes', { outcomes: undefined }, '$.counts[0].latencyMs'],
    ['an outcome dated outside the window', { count: 0, lastCallAt: at(3_600_000) }, '$.counts[0].lastCallAt'],
  ])('refuses %s with a 400 naming it, writing nothing', async (_what, count, path) => {
    await expectRefused(batch(count), path);
  });

  it("refuses outcomes of another agent's capability, even with no calls counted", async () => {
    await expectRefused(
      batch({ capabilityId: 'other-capability', count: 0, outcomes: { failed: 1 }, latencyMs: latency(1) }),
      '$.counts[0].capabilityId',
      'UNKNOWN_CAPABILITY',
    );
  });

  it('saturates stored sums instead of overflowing bigint', async () => {
    await pg.query(`UPDATE "CapabilityHealthBucket" SET failed = 9223372036854775000, "latencyMs"[1] = 9223372036854775000`);
    expect((await post(batch({ outcomes: { failed: 5000 }, latencyMs: latency(5000) }))).status).toBe(202);
    const [row] = await health();
    expect([row.failed, row.latencyMs[0]]).toEqual(['9223372036854775807', '9223372036854775807']);
  });
});
