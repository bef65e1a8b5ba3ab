/**
 * Issue 18, ADR 0199: the delta rides the announcement. A control plane (node API + publisher) on
 * a private redis-server, real NodeSync instances: a node serving the revision announced before
 * applies the pushed delta without a request; the old channel still carries the bare stamp; the
 * publisher attaches a delta only when it leads to what is announced and fits its limit; and a
 * hostile writer on the changes channel (forged, malformed, huge, another agent's, another base)
 * can only make a node fetch: it keeps serving what the control plane signed, reports nothing false.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import { nodeBundleContentHash, type NodeBundle } from '@cp/capabilities';
import { AppConfigToken, createFastifyAdapter, type AppConfig } from '@cp/common';
import { PrismaService, RegistryWriter, seedWhenEmpty } from '@cp/db';
import { NodeSync, syncKeys } from '@cp/node-sdk';
import { diffNodeBundles, parseChangeMessage, parseRevisionAnnouncement, MAX_PUSHED_DELTA_LENGTH } from '@cp/node-protocol';
import { BundleCache, BundleDeltas, RevisionPublisher, SYNC_OPTIONS, type SyncPublisherOptions } from '@cp/sync';
import { controlPlaneUnderTest } from '../support/control-plane-under-test';
import { testConfig } from '../support/config';
import { startPrivateRedis, type PrivateRedis } from '../support/redis-server';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { syncNodeFactory } from '../support/sync-node';
import { until } from '../support/until';

const AGENT = 'finance-agent';
const OTHER = 'payroll-agent';

const controlPlane = controlPlaneUnderTest({ sync: { outboxIntervalMs: 0 } });

describe('deltas pushed with announcements (ADR 0199; real PostgreSQL, Redis, HTTP)', () => {
  let db: TestDatabase;
  let redis: PrivateRedis;
  let config: AppConfig;
  let app: NestFastifyApplication;
  let url: string;
  let dir: string;
  let commands: Redis;
  let listener: Redis;
  const heard: { channel: string; message: string }[] = [];
  const bundleRequests: string[] = [];
  const faults: string[] = [];
  const started: NodeSync[] = [];
  let changes = 0;

  const node = syncNodeFactory(() => ({ url, config, redisUrl: redis.url, dir }), AGENT, started);
  const keys = () => syncKeys(config.REDIS_KEY_PREFIX, AGENT);
  const describeAgent = (agentId = AGENT) =>
    app.get(RegistryWriter).change({ agentId, actor: 'test', summary: 'describe the agent' }, async (tx) => {
      const description = `Described again (${++changes}).`;
      await tx.agent.update({ where: { id: agentId }, data: { description } });
      return { result: description, audit: [] };
    });
  const current = async () => (await app.get(BundleCache).current(AGENT))!;
  const options = () => app.get<SyncPublisherOptions>(SYNC_OPTIONS);
  /** Until the node has handled every message published so far (its fetch, if any, answered). */
  const settled = async (n: NodeSync, requestsBefore: number) => {
    await new Promise((r) => setTimeout(r, 150));
    await n.refresh(); // queued behind whatever the message started; a 304 when nothing changed
    return bundleRequests.length - requestsBefore - 1;
  };

  beforeAll(async () => {
    db = await createTestDatabase('sync_push');
    redis = await startPrivateRedis();
    config = testConfig({ DATABASE_URL: db.url, REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'sync-push-e2e:' });
    dir = await mkdtemp(join(tmpdir(), 'node-push-'));
    const ref = await Test.createTestingModule({ imports: [controlPlane] })
      .overrideProvider(AppConfigToken)
      .useValue(config)
      .compile();
    app = ref.createNestApplication<NestFastifyApplication>(createFastifyAdapter(config), { logger: false });
    app
      .getHttpAdapter()
      .getInstance()
      .addHook('onSend', (request, reply, payload, done) => {
        if (request.url.startsWith('/node/v1/bundle')) bundleRequests.push(`${reply.statusCode}`);
        if (reply.statusCode >= 500) faults.push(`${reply.statusCode} ${request.url} ${String(payload).slice(0, 300)}`);
        done(null, payload);
      });
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${new URL(await app.getUrl()).port}`;
    await seedWhenEmpty(app.get(PrismaService));
    // A second agent of the same team, for the isolation case.
    const finance = await app.get(PrismaService).agent.findUniqueOrThrow({ where: { id: AGENT } });
    await app.get(PrismaService).agent.create({
      data: { ...finance, id: OTHER, revision: 1 } as unknown as Parameters<PrismaService['agent']['create']>[0]['data'],
    });
    commands = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    listener = new Redis(redis.url);
    listener.on('message', (channel: string, message: string) => heard.push({ channel, message }));
    await listener.subscribe(keys().channel, keys().changes);
    await describeAgent(); // a first announced revision, so the next change has a base in Redis
  }, 120_000);

  afterEach(() => expect(faults).toEqual([]));

  afterAll(async () => {
    await Promise.all(started.map((n) => n.stop()));
    commands?.disconnect();
    listener?.disconnect();
    await app?.close();
    await redis?.stop();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 120_000);

  it('a node serving the revision announced before applies the pushed delta without a request, and serves the right hash', async () => {
    const n = node('pushed-node');
    await n.start();
    const before = n.current()!.revision;
    const requestsBefore = bundleRequests.length;
    await describeAgent();
    const after = await until('the node on the new revision, its apply finished (counted after the disk write and the ack)', async () => {
      const c = await current();
      const { full, delta, pushed, pushUnused } = n.status().fetches;
      return n.current()!.revision === c.revision && c.revision > before && full + delta + pushed + pushUnused === 2 ? c : null;
    });
    expect(bundleRequests.length).toBe(requestsBefore);
    expect(n.status().fetches).toMatchObject({ pushed: 1, pushUnused: 0, delta: 0, full: 1 });
    expect(n.current()!.servedHash).toBe(JSON.parse(after.body).contentHash);
    expect(n.current()!.publicCard.body).toBe(JSON.parse(after.body).publicCard.body);
    await n.stop(); // the server counts every node's requests: one node per test
  });

  it('the old channel carries the bare announcement; the changes channel the same, then the delta to that revision', async () => {
    heard.length = 0;
    await describeAgent();
    const target = await current();
    await until('both messages', () => heard.length >= 2);
    const old = heard.find((h) => h.channel === keys().channel)!;
    const pushed = heard.find((h) => h.channel === keys().changes)!;
    expect(parseRevisionAnnouncement(old.message).stamp).toEqual({ revision: target.revision, epoch: target.epoch });
    expect(old.message).not.toContain('\n');
    const parsed = parseChangeMessage(pushed.message);
    expect(parsed.stamp).toEqual({ revision: target.revision, epoch: target.epoch });
    const delta = JSON.parse(parsed.delta!) as { revision: number; contentHash: string; base: { revision: number } };
    expect(delta.revision).toBe(target.revision);
    expect(delta.contentHash).toBe(JSON.parse(target.body).contentHash);
    expect(delta.base.revision).toBeLessThan(target.revision);
    expect(pushed.message.length).toBeLessThan(target.body.length / 3);
  });

  it('a delta longer than the limit is not pushed: the announcement goes alone and nodes fetch the delta', async () => {
    const n = node('limit-node');
    await n.start();
    const limit = options().pushDeltaMaxLength;
    options().pushDeltaMaxLength = 10;
    try {
      heard.length = 0;
      const requestsBefore = bundleRequests.length;
      await describeAgent();
      const target = await current();
      await until(
        'the node on the new revision, counted',
        () => n.current()!.revision === target.revision && n.status().fetches.delta === 1,
      );
      expect(heard.find((h) => h.channel === keys().changes)!.message).not.toContain('\n');
      expect(bundleRequests.length - requestsBefore).toBe(1);
      expect(n.status().fetches).toMatchObject({ pushed: 0, delta: 1 });
    } finally {
      options().pushDeltaMaxLength = limit;
      await n.stop();
    }
  });

  it('a delta too long to push is stored for the fetch it makes the fleet: the node fetches it, the control plane does not compute it again (ADR 0390)', async () => {
    const n = node('stored-delta-node');
    await n.start();
    const limit = options().pushDeltaMaxLength;
    options().pushDeltaMaxLength = 10;
    const deltas = app.get(BundleDeltas).stats;
    const computedBefore = deltas.computed;
    try {
      const base = await current();
      await describeAgent();
      const target = await current();
      await until(
        'the node on the new revision, counted',
        () => n.current()!.revision === target.revision && n.status().fetches.delta === 1,
      );
      expect(n.status().fetches).toMatchObject({ pushed: 0, delta: 1 });
      expect(n.current()!.servedHash).toBe(JSON.parse(target.body).contentHash);
      // The delta the publisher computed before the commit, stored where the fetch looks for it.
      const baseHash = JSON.parse(base.body).contentHash as string;
      const stored = await commands.get(keys().delta(base.revision, baseHash, target.revision, target.epoch));
      expect(stored).toBe(JSON.stringify(diffNodeBundles(JSON.parse(base.body) as NodeBundle, JSON.parse(target.body) as NodeBundle)));
      expect(deltas.computed).toBe(computedBefore);
    } finally {
      options().pushDeltaMaxLength = limit;
      await n.stop();
    }
  });

  it('a raise that loses to a newer revision announces the newer stamp without the delta it was given', async () => {
    const held = await current();
    heard.length = 0;
    const delta = JSON.stringify({ kind: 'node-bundle-delta', planted: true });
    const announced = await app.get(BundleCache).raise(AGENT, held.revision - 1, true, held.epoch, delta);
    expect(announced).toBe(held.revision);
    await until('both messages', () => heard.length >= 2);
    const pushed = parseChangeMessage(heard.find((h) => h.channel === keys().changes)!.message);
    expect(pushed.stamp).toEqual({ revision: held.revision, epoch: held.epoch });
    expect(pushed.delta).toBeUndefined();
  });

  it('a re-announce of the current revision (outbox relay, lease holder) goes without a delta', async () => {
    const held = await current();
    heard.length = 0;
    expect(await app.get(RevisionPublisher).publish(AGENT, held.revision)).toBe(held.revision);
    await until('both messages', () => heard.length >= 2);
    const again = parseChangeMessage(heard.find((h) => h.channel === keys().changes)!.message);
    expect(again.stamp).toEqual({ revision: held.revision, epoch: held.epoch });
    expect(again.delta).toBeUndefined();
  });

  describe('a hostile writer on the changes channel: the node only fetches, keeps serving what the control plane signed, reports no refusal', () => {
    let n: NodeSync;
    let bundle: NodeBundle;
    /** A well-formed announcement of the next revision, which the control plane has not made. */
    const nextStamp = () => `${bundle.revision + 1}|${n.current()!.epoch ?? ''}`;
    /** A delta that applies and hashes right, but to a bundle the control plane never signed. */
    const forgedDelta = (agentId = AGENT) => {
      // The next revision number on the served content, with the served bundle's signature.
      const target = { ...structuredClone(bundle), revision: bundle.revision + 1 } as NodeBundle;
      target.contentHash = nodeBundleContentHash(target);
      const delta = diffNodeBundles(bundle, target) as unknown as Record<string, unknown>;
      return JSON.stringify({ ...delta, agentId });
    };

    beforeAll(async () => {
      n = node('target-node');
      await n.start();
      bundle = n.current()!.bundle;
    });

    it.each([
      ['a forged delta (applies and hashes right; what it builds was never signed)', () => `${nextStamp()}\n${forgedDelta()}`, 1],
      ['a delta that is not JSON', () => `${nextStamp()}\n{not json`, 1],
      ['another agent’s delta', () => `${nextStamp()}\n${forgedDelta(OTHER)}`, 1],
      ['a delta from another base', () => `${nextStamp()}\n${forgedDelta().replace(bundle.contentHash, 'f'.repeat(64))}`, 1],
      ['a delta past the node’s length limit', () => `${nextStamp()}\n${'x'.repeat(MAX_PUSHED_DELTA_LENGTH + 1)}`, 0],
      ['deeply nested JSON', () => `${nextStamp()}\n${'['.repeat(100_000)}${']'.repeat(100_000)}`, 1],
      ['a head that is not an announcement', () => `${'9'.repeat(5000)}|x\n${forgedDelta()}`, 0],
    ])('%s', async (_what, message, unused) => {
      const served = n.current()!;
      const statusBefore = n.status();
      const requestsBefore = bundleRequests.length;
      await commands.publish(keys().changes, message());
      // The node fetches (it heard of a revision it does not have) and the control plane says 304.
      const fetched = await settled(n, requestsBefore);
      expect(fetched).toBe(1);
      expect(bundleRequests.slice(requestsBefore)).toEqual(['304', '304']);
      expect(n.current()).toBe(served);
      expect(n.status().lastRefusal).toBeNull();
      expect(n.status().fetches.pushed).toBe(statusBefore.fetches.pushed);
      expect(n.status().fetches.pushUnused - statusBefore.fetches.pushUnused).toBe(unused);
    });

    it('after all that, the next real change still arrives pushed', async () => {
      const before = n.status().fetches.pushed;
      const requestsBefore = bundleRequests.length;
      await describeAgent();
      const target = await current();
      await until(
        'the node on the new revision, counted',
        () => n.current()!.revision === target.revision && n.status().fetches.pushed > before,
      );
      expect(n.status().fetches.pushed).toBe(before + 1);
      expect(bundleRequests.length).toBe(requestsBefore);
      expect(n.current()!.servedHash).toBe(JSON.parse(target.body).contentHash);
    });
  });

  it('a change to another agent pushes nothing to this agent’s channels', async () => {
    heard.length = 0;
    await describeAgent(OTHER);
    await new Promise((r) => setTimeout(r, 200));
    expect(heard).toEqual([]);
  });
});
