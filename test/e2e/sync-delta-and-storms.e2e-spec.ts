/**
 * Issue 18: delta sync for large agents and reconnect storms, end to end: a control plane (node
 * API + publisher) on a private redis-server this suite stops and restarts, NodeSync instances
 * (200 of them through a Redis restart), then the agent grown to 2,000 manifests for deltas.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import { mintNodeToken } from '@cp/auth';
import { AppConfigToken, createFastifyAdapter, type AppConfig } from '@cp/common';
import { PrismaService, RegistryWriter, seedWhenEmpty } from '@cp/db';
import { NodeSync, nodeBundleEtag, syncKeys } from '@cp/node-sdk';
import { BUNDLE_DELTA_BASE_HEADER, NODE_BUNDLE_DELTA_TYPE } from '@cp/node-protocol';
import { BundleCache, BundleDeltas, SYNC_OPTIONS, type SyncPublisherOptions } from '@cp/sync';
import { NodeBundleRoute } from '../../apps/control-plane/src/node-api/node-bundle.route';
import { controlPlaneUnderTest } from '../support/control-plane-under-test';
import { testConfig } from '../support/config';
import { startPrivateRedis, type PrivateRedis } from '../support/redis-server';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { syncNodeFactory } from '../support/sync-node';
import { until } from '../support/until';

const AGENT = 'finance-agent';
const MANIFESTS = 2000;
const STORM_NODES = 200;

const controlPlane = controlPlaneUnderTest({});

describe('delta sync and reconnect storms (real PostgreSQL, Redis, HTTP)', () => {
  let db: TestDatabase;
  let redis: PrivateRedis;
  let config: AppConfig;
  let app: NestFastifyApplication;
  let url: string;
  let dir: string;
  let commands: Redis;
  const statuses = new Map<number, number>();
  const faults: string[] = [];
  const started: NodeSync[] = [];

  const node = syncNodeFactory(() => ({ url, config, redisUrl: redis.url, dir }), AGENT, started, { reconnectMaxMs: 500 });
  const writer = () => app.get(RegistryWriter);
  const prisma = () => app.get(PrismaService);
  const describeSkill = (capabilityId: string, description: string) =>
    writer().change({ agentId: AGENT, actor: 'test', summary: `describe ${capabilityId}` }, async (tx) => {
      const row = await tx.capabilityManifest.findUniqueOrThrow({ where: { agentId_capabilityId: { agentId: AGENT, capabilityId } } });
      await tx.capabilityManifest.update({
        where: { agentId_capabilityId: { agentId: AGENT, capabilityId } },
        data: { skill: { ...(row.skill as object), description } },
      });
      return { result: description, audit: [] };
    });
  const describeAgent = (description: string) =>
    writer().change({ agentId: AGENT, actor: 'test', summary: 'describe the agent' }, async (tx) => {
      await tx.agent.update({ where: { id: AGENT }, data: { description } });
      return { result: description, audit: [] };
    });
  const current = async () => (await app.get(BundleCache).current(AGENT))!;
  const get = (headers: Record<string, string>) =>
    fetch(`${url}/node/v1/bundle`, { headers: { authorization: `Bearer ${mintNodeToken(config, AGENT)}`, ...headers } });

  beforeAll(async () => {
    db = await createTestDatabase('sync_delta');
    redis = await startPrivateRedis();
    config = testConfig({
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: 'sync-delta-e2e:',
      NODE_BUNDLE_MAX_IN_FLIGHT: '8',
      NODE_BUNDLE_RETRY_AFTER_SECONDS: '1',
    });
    dir = await mkdtemp(join(tmpdir(), 'node-delta-'));
    const ref = await Test.createTestingModule({ imports: [controlPlane] })
      .overrideProvider(AppConfigToken)
      .useValue(config)
      .compile();
    app = ref.createNestApplication<NestFastifyApplication>(createFastifyAdapter(config), { logger: false });
    app
      .getHttpAdapter()
      .getInstance()
      // Counted when an answer is decided (onSend), not when it has been written (onResponse): a
      // node that gave up waiting closes its socket first, and Fastify then never calls onResponse.
      .addHook('onSend', (request, reply, payload, done) => {
        if (request.url.startsWith('/node/v1/bundle')) statuses.set(reply.statusCode, (statuses.get(reply.statusCode) ?? 0) + 1);
        if (reply.statusCode >= 500 && reply.statusCode !== 503) faults.push(`${reply.statusCode} ${String(payload).slice(0, 300)}`);
        done(null, payload);
      });
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${new URL(await app.getUrl()).port}`;
    await seedWhenEmpty(prisma());
    commands = new Redis(redis.url, { maxRetriesPerRequest: 1, lazyConnect: true, retryStrategy: () => 100 });
    commands.on('error', () => undefined);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(started.map((n) => n.stop()));
    commands?.disconnect();
    await app?.close();
    await redis?.stop();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 120_000);

  describe('reconnect storms', () => {
    it('a burst of full-bundle fetches past NODE_BUNDLE_MAX_IN_FLIGHT is shed with 503 + Retry-After, the rest served whole', async () => {
      const answers = await Promise.all(Array.from({ length: 120 }, () => get({})));
      const codes = answers.map((r) => r.status);
      const shed = answers.filter((r) => r.status === 503);
      expect(new Set(codes)).toEqual(new Set([200, 503]));
      expect(shed.length).toBeGreaterThan(0);
      for (const r of shed) {
        const after = Number(r.headers.get('retry-after'));
        expect(after).toBeGreaterThanOrEqual(1);
        expect(after).toBeLessThanOrEqual(2);
        expect(((await r.json()) as { error: { code: string } }).error.code).toBe('OVERLOADED');
      }
      const c = await current();
      for (const r of answers.filter((a) => a.status === 200)) expect((await r.text()).length).toBe(c.body.length);
    });

    it(`${STORM_NODES} nodes through a Redis restart with a change made while it was down: all converge, the control plane sheds and never fails`, async () => {
      const fleet = Array.from({ length: STORM_NODES }, (_, i) => node(`storm-${i}`, { reconnectSpreadMs: 1000, pollIntervalMs: 5_000 }));
      // Start in waves of 20 (a fleet comes up over time); the in-flight cap still sheds some.
      for (let i = 0; i < fleet.length; i += 20) await Promise.all(fleet.slice(i, i + 20).map((n) => n.start()));
      await until('every node serving', () => fleet.every((n) => n.current() !== undefined), 60_000);
      const before = (await current()).revision;
      statuses.clear();
      const shedBefore = app.get(NodeBundleRoute).stats.shed;
      const throttledBefore = fleet.reduce((sum, n) => sum + n.status().fetches.throttled, 0);
      const unansweredBefore = fleet.reduce((sum, n) => sum + n.status().fetches.unanswered, 0);
      const fullBefore = fleet.reduce((sum, n) => sum + n.status().fetches.full, 0);
      try {
        await redis.stop();
        // Committed while Redis is down: the publish fails, the outbox keeps it.
        await describeAgent('Looks up invoices, also after a Redis restart.');
        await new Promise((r) => setTimeout(r, 500));
        await redis.start();

        await until(
          'every node on the change made while Redis was down',
          () => fleet.every((n) => (n.current()?.revision ?? 0) > before),
          60_000,
        );
        const hashes = new Set(fleet.map((n) => n.current()!.servedHash));
        expect(hashes.size).toBe(1);
        // Converged is not quiet: nodes still have fetches in flight and retries due (a node shed
        // earlier retries after Retry-After even once an announcement brought it up to date), and
        // the server counts an answer when it decides it, the node when it has read it. Stopping
        // the fleet waits for every fetch in flight and cancels the pending ones: then both sides
        // have seen the same answers, except those a node stopped waiting for.
        await Promise.all(fleet.map((n) => n.stop()));
        // Whatever the nodes were told: served, not modified or shed with Retry-After; never another 5xx.
        expect(faults).toEqual([]);
        for (const code of statuses.keys()) expect([200, 304, 503]).toContain(code);
        const throttled = fleet.reduce((sum, n) => sum + n.status().fetches.throttled, 0) - throttledBefore;
        const unanswered = fleet.reduce((sum, n) => sum + n.status().fetches.unanswered, 0) - unansweredBefore;
        const shed = app.get(NodeBundleRoute).stats.shed - shedBefore;
        expect(shed).toBe(statuses.get(503) ?? 0);
        // Every 503 sent was read by its node, unless that node had stopped waiting for it (on a
        // loaded machine a fetch can time out while the server is still queueing its answer).
        expect(throttled).toBeLessThanOrEqual(shed);
        expect(shed - throttled).toBeLessThanOrEqual(unanswered);
        // The restarted Redis kept nothing (no persistence here), so every base bundle was gone:
        // each node asked for a delta and got the full bundle instead.
        const full = fleet.reduce((sum, n) => sum + n.status().fetches.full, 0) - fullBefore;
        expect(full).toBe(STORM_NODES);
        expect(fleet.reduce((sum, n) => sum + n.status().fetches.delta, 0)).toBe(0);
      } finally {
        await Promise.all(fleet.map((n) => n.stop()));
      }
    }, 180_000);
  });

  describe('delta sync', () => {
    beforeAll(async () => {
      // A large agent: 2,000 more manifests, extended and public (written directly, then one change announces them).
      const owner = (await prisma().capabilityManifest.findFirstOrThrow({ where: { agentId: AGENT } })).ownerTeamId;
      await prisma().capabilityManifest.createMany({
        data: Array.from({ length: MANIFESTS }, (_, i) => ({
          agentId: AGENT,
          capabilityId: `bulk-${String(i).padStart(5, '0')}`,
          state: 'ga' as const,
          visibility: i % 2 === 0 ? ('public' as const) : ('extended' as const),
          skill: { name: `Bulk skill ${i}`, description: `Handles bulk request number ${i}.`, tags: ['bulk'] },
          requiresScopes: [],
          tenantsAll: true,
          tenants: [],
          handler: 'finance.v1.lookup_invoice',
          ownerTeamId: owner,
        })),
      });
      await describeAgent('Looks up invoices in bulk.');
    }, 60_000);

    it('a node serving a revision gets the delta of a one-manifest change (pushed with the announcement, ADR 0199), rebuilds the full bundle and serves its hash', async () => {
      const n = node('delta-node');
      await n.start();
      const before = await current();
      expect(n.current()!.revision).toBe(before.revision);
      await describeSkill('bulk-00042', 'Handles bulk requests, now faster.');
      const after = await until('the new revision at the node, its apply counted', async () => {
        const c = await current();
        const { delta, pushed } = n.status().fetches;
        return n.current()!.revision === c.revision && c.revision > before.revision && delta + pushed === 1 ? c : null;
      });
      expect(n.status().fetches).toMatchObject({ full: 1, pushed: 1, delta: 0, deltaRefused: 0 });
      expect(n.current()!.servedHash).toBe(JSON.parse(after.body).contentHash);
      expect(n.current()!.publicCard.body).toBe(JSON.parse(after.body).publicCard.body);
      expect(n.status().lastRefusal).toBeNull();
    });

    it('the delta is a small fraction of the full bundle on the wire', async () => {
      const base = await current();
      await describeSkill('bulk-00100', 'Handles bulk requests, now with receipts.');
      await until('the publisher to build the new revision', async () => (await current()).revision > base.revision);
      const full = await get({});
      const fullBytes = (await full.text()).length;
      const delta = await get({ [BUNDLE_DELTA_BASE_HEADER]: base.etag });
      expect(delta.status).toBe(200);
      expect(delta.headers.get('content-type')).toContain(NODE_BUNDLE_DELTA_TYPE);
      expect(delta.headers.get('etag')).toBe((await current()).etag);
      const deltaBytes = (await delta.text()).length;
      expect(fullBytes).toBeGreaterThan(500_000);
      expect(deltaBytes).toBeLessThan(fullBytes / 50);
    });

    it('a change reaching a fleet is not shed: a burst of delta and 304 answers past NODE_BUNDLE_MAX_IN_FLIGHT is all served', async () => {
      const base = await current();
      await describeSkill('bulk-00150', 'Handles bulk requests, now for a fleet.');
      const target = await until('the publisher to build the new revision', async () => {
        const c = await current();
        return c.revision > base.revision ? c : null;
      });
      const shedBefore = app.get(NodeBundleRoute).stats.shed;
      // 120 at once against a cap of 8: what a thousand nodes hearing one announcement do.
      const deltas = await Promise.all(Array.from({ length: 120 }, () => get({ [BUNDLE_DELTA_BASE_HEADER]: base.etag })));
      const notModified = await Promise.all(Array.from({ length: 120 }, () => get({ 'if-none-match': target.etag })));
      expect(deltas.map((r) => r.status)).toEqual(Array.from({ length: 120 }, () => 200));
      for (const r of deltas) expect(r.headers.get('content-type')).toContain(NODE_BUNDLE_DELTA_TYPE);
      await Promise.all(deltas.map((r) => r.text()));
      expect(notModified.map((r) => r.status)).toEqual(Array.from({ length: 120 }, () => 304));
      expect(app.get(NodeBundleRoute).stats.shed).toBe(shedBefore);
    });

    it('a node that does not ask for deltas (an older node) keeps getting the full bundle', async () => {
      const old = node('old-node', { deltas: false });
      await old.start();
      const before = old.current()!.revision;
      await describeSkill('bulk-00007', 'Handles bulk requests for old nodes.');
      await until('the old node on the new revision', async () => old.current()!.revision > before);
      expect(old.status().fetches).toMatchObject({ full: 2, delta: 0 });
    });

    it('falls back to the full bundle when the base is gone from Redis (evicted, expired)', async () => {
      const n = node('evicted-node');
      await n.start();
      const base = n.current()!;
      await commands.connect().catch(() => undefined);
      await commands.del(syncKeys(config.REDIS_KEY_PREFIX, AGENT).bundle(base.revision, base.epoch ?? ''));
      await describeSkill('bulk-00300', 'Handles bulk requests after an eviction.');
      await until('the node on the new revision', async () => n.current()!.revision > base.revision);
      expect(n.status().fetches).toMatchObject({ full: 2, delta: 0 });
      expect(app.get(BundleDeltas).stats.unavailable).toBeGreaterThan(0);
    });

    it('a delta that does not rebuild the target (corrupted in Redis) is refused; the node fetches the full bundle and serves the right hash', async () => {
      const n = node('corrupt-node');
      await n.start();
      const base = n.current()!;
      // The delta the control plane will serve for (base → next revision), planted wrong in advance.
      const next = base.revision + 1;
      const key = syncKeys(config.REDIS_KEY_PREFIX, AGENT).delta(base.revision, base.servedHash, next, base.epoch ?? '');
      const wrong = {
        kind: 'node-bundle-delta',
        format: 1,
        agentId: AGENT,
        base: { revision: base.revision, contentHash: base.servedHash },
        revision: next,
        contentHash: 'a'.repeat(64),
        generatedAt: new Date().toISOString(),
        patch: { fields: { revision: { set: next } } },
      };
      await commands.set(key, JSON.stringify(wrong));
      // Deltas off at the publisher, so the node asks the route for the delta and the route serves
      // the stored one: a delta the publisher computes from the bundles themselves, pushed or too long
      // to push, is stored over this key (ADRs 0365, 0390).
      const options = app.get<SyncPublisherOptions>(SYNC_OPTIONS);
      const limit = options.pushDeltaMaxLength;
      options.pushDeltaMaxLength = 0;
      try {
        await describeSkill('bulk-00400', 'Handles bulk requests after a corruption.');
      } finally {
        options.pushDeltaMaxLength = limit;
      }
      const c = await until('the node on the new revision', async () => {
        const cur = await current();
        return n.current()!.revision === next && cur.revision === next ? cur : null;
      });
      expect(n.status().fetches).toMatchObject({ deltaRefused: 1, delta: 0, full: 2, pushed: 0 });
      expect(n.current()!.servedHash).toBe(JSON.parse(c.body).contentHash);
    });

    describe('hostile bundle-delta-base values: a clear 400 or the full bundle, never a 5xx, nothing changed', () => {
      it.each([
        ['not an ETag', 'hello'],
        ['a weak ETag', `W/"r1-${'a'.repeat(64)}"`],
        ['a list', `"r1-${'a'.repeat(64)}", "r2-${'b'.repeat(64)}"`],
        ['a negative revision', `"r-1-${'a'.repeat(64)}"`],
        ['huge', `"r1-${'a'.repeat(8000)}"`],
      ])('%s: 400 INVALID_DELTA_BASE naming the header', async (_what, value) => {
        const res = await get({ [BUNDLE_DELTA_BASE_HEADER]: value });
        expect(res.status).toBe(400);
        const body = (await res.json()) as { error: { code: string; message: string } };
        expect(body.error.code).toBe('INVALID_DELTA_BASE');
        expect(body.error.message).toContain(BUNDLE_DELTA_BASE_HEADER);
      });

      it("a well-formed ETag of a revision with another content (another agent's, another epoch's): the full bundle", async () => {
        const c = await current();
        for (const base of [nodeBundleEtag(1, 'f'.repeat(64)), nodeBundleEtag(c.revision - 1, '0'.repeat(64))]) {
          const res = await get({ [BUNDLE_DELTA_BASE_HEADER]: base });
          expect(res.status).toBe(200);
          expect(res.headers.get('content-type')).toContain('application/json');
          expect(JSON.parse(await res.text()).contentHash).toBe(JSON.parse(c.body).contentHash);
        }
      });

      it('a base newer than the current revision, or the current one: the full bundle, or 304 with If-None-Match', async () => {
        const c = await current();
        const newer = await get({ [BUNDLE_DELTA_BASE_HEADER]: nodeBundleEtag(c.revision + 5, 'a'.repeat(64)) });
        expect(newer.status).toBe(200);
        expect(newer.headers.get('content-type')).toContain('application/json');
        await newer.text();
        const same = await get({ [BUNDLE_DELTA_BASE_HEADER]: c.etag, 'if-none-match': c.etag });
        expect(same.status).toBe(304);
      });
    });
  });
});
