import { randomUUID } from 'node:crypto';
import { Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { mintAdminToken, mintNodeToken } from '@cp/auth';
import { AppConfigModule, AppConfigToken, createFastifyAdapter, type AppConfig } from '@cp/common';
import { DbModule, PrismaService, seedWhenEmpty } from '@cp/db';
import { Clock, UsageRetentionService } from '@cp/jobs';
import { UsageRetentionRepository } from '../../libs/jobs/src/retention/usage-retention.repository';
import { UsageIngestModule } from '../../apps/control-plane/src/usage-ingest/usage-ingest.module';
import { FixedClock } from '@cp/jobs/testing';
import { createAgent, createManifests, createNode, createUsageBatch } from '../support/given-db';
import { testConfig } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

@Module({ imports: [AppConfigModule, DbModule, UsageIngestModule] })
class UsageIngestTestModule {}

describe('POST /node/v1/usage', () => {
  let db: TestDatabase;
  let pg: Client;
  let app: NestFastifyApplication;
  let config: AppConfig;
  const clock = new FixedClock(new Date('2026-12-02T00:10:00.000Z'));
  let token: string;

  beforeAll(async () => {
    db = await createTestDatabase('usage_ingest');
    config = testConfig({ DATABASE_URL: db.url });
    const ref = await Test.createTestingModule({ imports: [UsageIngestTestModule] })
      .overrideProvider(AppConfigToken)
      .useValue(config)
      .overrideProvider(Clock)
      .useValue(clock)
      .compile();
    app = ref.createNestApplication<NestFastifyApplication>(createFastifyAdapter(config), { logger: false });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
    await seedWhenEmpty(app.get(PrismaService));
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    await createAgent(pg, 'other-agent');
    await createManifests(pg, [{ agentId: 'other-agent', capabilityId: 'other-capability', state: 'ga' }]);
    await createNode(pg, { id: 'node-of-other', agentId: 'other-agent', registeredAt: clock.now() });
    // The agents were created now, by the wall clock; the windows below are on the test's fixed clock.
    // Created long before them, as on a real fleet (else every window is "before the agent existed").
    await pg.query(`UPDATE "Agent" SET "createdAt" = '2026-09-01T00:00:00.000Z'`);
    // Nodes register before they report (POST /node/v1/register); usage for an unregistered node is refused.
    for (const id of [
      'node-1',
      'node-midnight',
      'node-idle',
      'node-dup',
      'node-race',
      'node-bad-cap',
      'node-bad',
      'node-x',
      'node-y',
      'node-late',
      'node-anon',
    ])
      await createNode(pg, { id, agentId: 'finance-agent', registeredAt: new Date('2026-12-01T00:00:00.000Z') });
    token = mintNodeToken(config, 'finance-agent');
  });
  afterAll(async () => {
    await pg.end();
    await app.close();
    await db.drop();
  });

  const post = (body: unknown, bearer: string | null = token) =>
    app.inject({
      method: 'POST',
      url: '/node/v1/usage',
      headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
      payload: body as object,
    });

  const batch = (over: Record<string, unknown> = {}) => ({
    nodeId: 'node-1',
    batchId: randomUUID(),
    windowStart: '2026-12-01T23:59:00.000Z',
    windowEnd: '2026-12-02T00:00:00.000Z',
    counts: [{ capabilityId: 'invoice-lookup', tenant: 'acme-partner', count: 3, lastCallAt: '2026-12-01T23:59:30.000Z' }],
    ...over,
  });

  const buckets = async (nodeId: string) =>
    (
      await pg.query(
        `SELECT "capabilityId", "tenantId", to_char(day, 'YYYY-MM-DD') AS day, count::int, "lastCallAt" FROM "UsageBucket" WHERE "nodeId" = $1 ORDER BY day, "capabilityId", "tenantId"`,
        [nodeId],
      )
    ).rows;
  const coverage = async (nodeId: string) =>
    (await pg.query(`SELECT "coveredFrom", "coveredUntil", closed FROM "NodeUsageCoverage" WHERE "nodeId" = $1`, [nodeId])).rows[0];

  it('accepts a batch (202) from a registered node, and counts it into a daily bucket', async () => {
    const res = await post(batch());
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ accepted: true, duplicate: false });
    expect(await buckets('node-1')).toEqual([
      {
        capabilityId: 'invoice-lookup',
        tenantId: 'acme-partner',
        day: '2026-12-01',
        count: 3,
        lastCallAt: new Date('2026-12-01T23:59:30.000Z'),
      },
    ]);
    const node = (await pg.query(`SELECT "agentId", "lastSeenAt" FROM "Node" WHERE id = 'node-1'`)).rows[0];
    expect(node).toEqual({ agentId: 'finance-agent', lastSeenAt: clock.now() });
    expect(await coverage('node-1')).toEqual({
      coveredFrom: new Date('2026-12-01T23:59:00.000Z'),
      coveredUntil: new Date('2026-12-02T00:00:00.000Z'),
      closed: false,
    });
  });

  it('counts the same batch once: a resend answers duplicate and changes nothing', async () => {
    const body = batch({ nodeId: 'node-dup' });
    expect((await post(body)).json()).toEqual({ accepted: true, duplicate: false });
    const again = await post(body);
    expect(again.statusCode).toBe(202);
    expect(again.json()).toEqual({ accepted: true, duplicate: true });
    const [first, second] = await Promise.all([post({ ...body, batchId: randomUUID() }), post(body)]);
    expect(first.json().duplicate).toBe(false);
    expect(second.json().duplicate).toBe(true);
    expect((await buckets('node-dup'))[0].count).toBe(6);
    expect((await pg.query(`SELECT count(*)::int AS n FROM "UsageBatch" WHERE "nodeId" = 'node-dup'`)).rows[0].n).toBe(2);
  });

  it('counts a batch sent concurrently twice once', async () => {
    const body = batch({ nodeId: 'node-race' });
    const answers = await Promise.all([post(body), post(body), post(body)]);
    expect(answers.map((a) => a.json().duplicate).sort()).toEqual([false, true, true]);
    expect((await buckets('node-race'))[0].count).toBe(3);
  });

  it('splits counts across midnight into the UTC day of their last call, and chains coverage', async () => {
    const nodeId = 'node-midnight';
    await post(
      batch({
        nodeId,
        windowStart: '2026-12-01T23:58:00.000Z',
        windowEnd: '2026-12-01T23:59:00.000Z',
        counts: [{ capabilityId: 'invoice-lookup', tenant: 'acme-partner', count: 2, lastCallAt: '2026-12-01T23:58:59.999Z' }],
      }),
    );
    await post(
      batch({
        nodeId,
        windowStart: '2026-12-01T23:59:00.000Z',
        windowEnd: '2026-12-02T00:01:00.000Z',
        counts: [
          { capabilityId: 'invoice-lookup', tenant: 'acme-partner', count: 5, lastCallAt: '2026-12-02T00:00:00.000Z' },
          { capabilityId: 'invoice-lookup', tenant: 'acme-partner', count: 1, lastCallAt: '2026-12-02T00:00:30.000Z' },
          { capabilityId: 'reconcile-invoice', tenant: 'globex', count: 0, lastCallAt: '2026-12-02T00:00:30.000Z' },
        ],
      }),
    );
    expect(await buckets(nodeId)).toEqual([
      {
        capabilityId: 'invoice-lookup',
        tenantId: 'acme-partner',
        day: '2026-12-01',
        count: 2,
        lastCallAt: new Date('2026-12-01T23:58:59.999Z'),
      },
      {
        capabilityId: 'invoice-lookup',
        tenantId: 'acme-partner',
        day: '2026-12-02',
        count: 6,
        lastCallAt: new Date('2026-12-02T00:00:30.000Z'),
      },
    ]);
    expect(await coverage(nodeId)).toMatchObject({
      coveredFrom: new Date('2026-12-01T23:58:00.000Z'),
      coveredUntil: new Date('2026-12-02T00:01:00.000Z'),
    });
  });

  it('advances coverage with empty batches, and marks it closed on a final batch', async () => {
    const nodeId = 'node-idle';
    await post(batch({ nodeId, windowStart: '2026-12-02T00:00:00.000Z', windowEnd: '2026-12-02T00:01:00.000Z', counts: [] }));
    const res = await post(
      batch({ nodeId, windowStart: '2026-12-02T00:01:00.000Z', windowEnd: '2026-12-02T00:02:00.000Z', counts: [], final: true }),
    );
    expect(res.statusCode).toBe(202);
    expect(await buckets(nodeId)).toEqual([]);
    expect(await coverage(nodeId)).toEqual({
      coveredFrom: new Date('2026-12-02T00:00:00.000Z'),
      coveredUntil: new Date('2026-12-02T00:02:00.000Z'),
      closed: true,
    });
  });

  describe('refuses, naming what is wrong, and writes nothing', () => {
    const nothingWritten = async (nodeId: string) => {
      expect(await buckets(nodeId)).toEqual([]);
      expect((await pg.query(`SELECT count(*)::int AS n FROM "UsageBatch" WHERE "nodeId" = $1`, [nodeId])).rows[0].n).toBe(0);
      const nodes = await pg.query(`SELECT "lastSeenAt" FROM "Node" WHERE id = $1`, [nodeId]);
      expect(nodes.rows).toEqual(nodes.rows.length ? [{ lastSeenAt: new Date('2026-12-01T00:00:00.000Z') }] : []);
    };

    it('a capability of another agent or an unknown id (400)', async () => {
      const res = await post(
        batch({
          nodeId: 'node-bad-cap',
          counts: [
            { capabilityId: 'invoice-lookup', tenant: 'acme-partner', count: 1, lastCallAt: '2026-12-01T23:59:30.000Z' },
            { capabilityId: 'other-capability', tenant: 'acme-partner', count: 1, lastCallAt: '2026-12-01T23:59:30.000Z' },
            { capabilityId: 'no-such-thing', tenant: 'acme-partner', count: 1, lastCallAt: '2026-12-01T23:59:30.000Z' },
          ],
        }),
      );
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'UNKNOWN_CAPABILITY',
        message: 'not capabilities of this agent during the window: other-capability, no-such-thing',
        issues: [
          { path: '$.counts[1].capabilityId', message: '"other-capability" is not a capability of this agent' },
          { path: '$.counts[2].capabilityId', message: '"no-such-thing" is not a capability of this agent' },
        ],
      });
      await nothingWritten('node-bad-cap');
    });

    it('malformed bodies (400)', async () => {
      const cases: [unknown, string, RegExp][] = [
        [batch({ nodeId: 'node-bad', batchId: 'not-a-uuid' }), '$.batchId', /UUID/],
        [batch({ nodeId: 'node-bad', windowStart: 'yesterday' }), '$.windowStart', /ISO-8601/],
        [
          batch({
            nodeId: 'node-bad',
            counts: [{ capabilityId: 'invoice-lookup', tenant: 'acme-partner', count: -1, lastCallAt: '2026-12-01T23:59:30.000Z' }],
          }),
          '$.counts[0].count',
          /≥ 0/,
        ],
        [
          batch({
            nodeId: 'node-bad',
            counts: [{ capabilityId: 'invoice-lookup', tenant: 'acme-partner', count: 1.5, lastCallAt: '2026-12-01T23:59:30.000Z' }],
          }),
          '$.counts[0].count',
          /integer/,
        ],
        [
          batch({ nodeId: 'node-bad', counts: [{ capabilityId: 'invoice-lookup', count: 1, lastCallAt: '2026-12-01T23:59:30.000Z' }] }),
          '$.counts[0].tenant',
          /string/,
        ],
        [
          batch({ nodeId: 'node-bad', windowStart: '2026-12-02T00:00:00.000Z', windowEnd: '2026-12-01T00:00:00.000Z' }),
          '$.windowEnd',
          /not be before windowStart/,
        ],
        [
          batch({ nodeId: 'node-bad', windowStart: '2026-12-03T00:00:00.000Z', windowEnd: '2026-12-03T00:01:00.000Z', counts: [] }),
          '$.windowEnd',
          /in the future/,
        ],
        [
          batch({
            nodeId: 'node-bad',
            counts: [{ capabilityId: 'invoice-lookup', tenant: 'acme-partner', count: 1, lastCallAt: '2026-11-01T00:00:00.000Z' }],
          }),
          '$.counts[0].lastCallAt',
          /inside the window/,
        ],
        [[1, 2, 3], '$', /object/],
      ];
      for (const [body, path, message] of cases) {
        const res = await post(body);
        expect(res.statusCode).toBe(400);
        expect(res.json().error.code).toBe('INVALID_REQUEST');
        expect(res.json().error.issues).toEqual(expect.arrayContaining([{ path, message: expect.stringMatching(message) }]));
      }
      await nothingWritten('node-bad');
    });

    it('a node id registered only for another agent (400), naming no other agent', async () => {
      const res = await post(batch({ nodeId: 'node-of-other' }));
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'INVALID_REQUEST',
        issues: [{ path: '$.nodeId', message: expect.stringMatching(/not a registered node of this agent/) }],
      });
      expect(res.body).not.toContain('other-agent');
      expect((await pg.query(`SELECT count(*)::int AS n FROM "UsageBatch" WHERE "nodeId" = 'node-of-other'`)).rows[0].n).toBe(0);
    });

    it('a batch id another node already used (409)', async () => {
      const body = batch({ nodeId: 'node-x' });
      await post(body);
      const res = await post({ ...body, nodeId: 'node-y' });
      expect(res.statusCode).toBe(409);
      expect(res.json().error.code).toBe('BATCH_ID_REUSED');
      await nothingWritten('node-y');
    });

    it('no token or a bad token (401), an admin token (403)', async () => {
      expect((await post(batch({ nodeId: 'node-anon' }), null)).statusCode).toBe(401);
      const admin = await post(batch({ nodeId: 'node-anon' }), mintAdminToken(config, 'alice', ['platform-admin']));
      expect(admin.statusCode).toBe(403);
      expect(admin.json()).toEqual({ error: { code: 'TOKEN_WRONG_USE', message: expect.stringMatching(/accepts node tokens/) } });
      expect((await post(batch({ nodeId: 'node-anon' }), `${token}x`)).statusCode).toBe(401);
      await nothingWritten('node-anon');
    });

    it('a window that ended before the batch-id retention window (400): a retry of it could count twice', async () => {
      const res = await post(
        batch({
          nodeId: 'node-late',
          windowStart: '2026-10-01T00:00:00.000Z',
          windowEnd: '2026-10-01T00:01:00.000Z',
          counts: [{ capabilityId: 'invoice-lookup', tenant: 'acme-partner', count: 1, lastCallAt: '2026-10-01T00:00:30.000Z' }],
        }),
      );
      expect(res.statusCode).toBe(400);
      expect(res.json().error.issues).toEqual([
        { path: '$.windowEnd', message: expect.stringMatching(/older than the 35-day window/) },
        { path: '$.windowStart', message: expect.stringMatching(/older than the 35-day window/) },
      ]);
      await nothingWritten('node-late');
    });
  });

  it('prunes exactly the batch ids whose windows ingestion would now refuse', async () => {
    const retention = new UsageRetentionService(new UsageRetentionRepository(app.get(PrismaService)), clock, config);
    await createNode(pg, { id: 'node-old', agentId: 'finance-agent', registeredAt: new Date('2026-09-01T00:00:00.000Z') });
    const insert = (id: string, windowEnd: string) => createUsageBatch(pg, { id, nodeId: 'node-old', agentId: 'finance-agent', windowEnd });
    await insert(randomUUID(), '2026-10-01T00:00:00.000Z'); // 62 days before the clock: prunable
    const kept = randomUUID();
    await insert(kept, '2026-11-01T00:00:00.000Z'); // 31 days: still within 35
    const before = (await pg.query(`SELECT count(*)::int AS n FROM "UsageBatch"`)).rows[0].n;
    expect(await retention.prune()).toBe(1);
    expect((await pg.query(`SELECT count(*)::int AS n FROM "UsageBatch"`)).rows[0].n).toBe(before - 1);
    expect((await pg.query(`SELECT id FROM "UsageBatch" WHERE "nodeId" = 'node-old'`)).rows).toEqual([{ id: kept }]);
    expect(await retention.prune()).toBe(0);
  });

  it('prunes hourly health rows older than HEALTH_RETENTION_DAYS, of every agent, and keeps the rest', async () => {
    const retention = new UsageRetentionService(
      new UsageRetentionRepository(app.get(PrismaService)),
      clock,
      testConfig({ DATABASE_URL: db.url, HEALTH_RETENTION_DAYS: '30' }),
    );
    const row = (hour: string) =>
      pg.query(
        `INSERT INTO "CapabilityHealthBucket" ("agentId", "capabilityId", "tenantId", hour, calls, completed, "latencyMs")
         VALUES ('finance-agent', 'invoice-lookup', 'prune-test', $1, 1, 1, '{}') ON CONFLICT DO NOTHING`,
        [hour],
      );
    await row('2026-10-01T00:00:00.000Z'); // 62 days before the clock: pruned
    await row('2026-11-01T23:00:00.000Z'); // 30 days and 1 hour: pruned
    await row('2026-11-02T01:00:00.000Z'); // within 30 days: kept
    const hours = async () =>
      (await pg.query(`SELECT hour FROM "CapabilityHealthBucket" WHERE "tenantId" = 'prune-test' ORDER BY hour`)).rows.map(
        (r: { hour: Date }) => r.hour.toISOString(),
      );
    expect(await retention.pruneHealth()).toBe(2);
    expect(await hours()).toEqual(['2026-11-02T01:00:00.000Z']);
    expect(await retention.pruneHealth()).toBe(0);
  });
});
