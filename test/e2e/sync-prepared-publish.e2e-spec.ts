/**
 * Issue 30, ADR 0365: a change is published from the snapshot read in its own transaction. The
 * bundle is built and signed beside the COMMIT and stored, raised and announced in one Redis call
 * after it: no second PostgreSQL read, the delta from what the fleet was served rides the
 * announcement, the outbox row is marked. Concurrent changes of one agent still announce in
 * order and never push a delta that leads anywhere but the announced bundle; a bundle of the same
 * revision another process stored first is the one served. Real PostgreSQL, Redis, HTTP, NodeSync.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import type { NodeBundle } from '@cp/capabilities';
import { AppConfigToken, createFastifyAdapter, type AppConfig } from '@cp/common';
import { PrismaService, RegistrySnapshotRepository, RegistryWriter, seedWhenEmpty } from '@cp/db';
import { NodeSync, syncKeys } from '@cp/node-sdk';
import { applyNodeBundleDelta, parseChangeMessage } from '@cp/node-protocol';
import { BundleCache, RevisionPublisher } from '@cp/sync';
import { controlPlaneUnderTest } from '../support/control-plane-under-test';
import { testConfig } from '../support/config';
import { startPrivateRedis, type PrivateRedis } from '../support/redis-server';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { syncNodeFactory } from '../support/sync-node';
import { until } from '../support/until';

const AGENT = 'finance-agent';

// No relay: every announcement heard here is the change's own.
const controlPlane = controlPlaneUnderTest({ sync: { outboxIntervalMs: 0 } });

describe('a change published from its own snapshot (ADR 0365; real PostgreSQL, Redis, HTTP)', () => {
  let db: TestDatabase;
  let redis: PrivateRedis;
  let config: AppConfig;
  let app: NestFastifyApplication;
  let url: string;
  let dir: string;
  let commands: Redis;
  let listener: Redis;
  const heard: string[] = [];
  const started: NodeSync[] = [];
  let changes = 0;

  const node = syncNodeFactory(() => ({ url, config, redisUrl: redis.url, dir }), AGENT, started);
  const keys = () => syncKeys(config.REDIS_KEY_PREFIX, AGENT);
  const describeAgent = () =>
    app.get(RegistryWriter).change({ agentId: AGENT, actor: 'test', summary: 'describe the agent' }, async (tx) => {
      const description = `Described again (${++changes}).`;
      await tx.agent.update({ where: { id: AGENT }, data: { description } });
      return { result: description, audit: [] };
    });
  const stored = async (revision: number, epoch: string) => {
    const [body, etag] = await commands.hmget(keys().bundle(revision, epoch), 'body', 'etag');
    return body === null ? null : { bundle: JSON.parse(body) as NodeBundle, etag: etag! };
  };
  const heldStamp = async () => {
    const [revision, epoch] = (await commands.get(keys().revision))!.split('|');
    return { revision: Number(revision), epoch };
  };

  beforeAll(async () => {
    db = await createTestDatabase('sync_prepared');
    redis = await startPrivateRedis();
    config = testConfig({ DATABASE_URL: db.url, REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'sync-prepared-e2e:' });
    dir = await mkdtemp(join(tmpdir(), 'node-prepared-'));
    const ref = await Test.createTestingModule({ imports: [controlPlane] })
      .overrideProvider(AppConfigToken)
      .useValue(config)
      .compile();
    app = ref.createNestApplication<NestFastifyApplication>(createFastifyAdapter(config), { logger: false });
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${new URL(await app.getUrl()).port}`;
    await seedWhenEmpty(app.get(PrismaService));
    commands = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    listener = new Redis(redis.url);
    listener.on('message', (_channel: string, message: string) => heard.push(message));
    await listener.subscribe(keys().changes);
    await describeAgent(); // a first announced revision, so the next change has a base in Redis
  }, 120_000);

  afterAll(async () => {
    await Promise.all(started.map((n) => n.stop()));
    commands?.disconnect();
    listener?.disconnect();
    await app?.close();
    await redis?.stop();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 120_000);

  it('reads nothing after the commit: the bundle is stored, announced with its delta, and the outbox row marked', async () => {
    const cache = app.get(BundleCache);
    const publisher = app.get(RevisionPublisher);
    const reads = cache.stats.postgresReads;
    const before = { ...publisher.stats };
    const base = await heldStamp();
    const baseBundle = (await stored(base.revision, base.epoch))!;
    heard.length = 0;
    const { revision } = await describeAgent();
    expect(revision).toBe(base.revision + 1);
    expect(cache.stats.postgresReads).toBe(reads);
    expect(publisher.stats).toEqual({ prepared: before.prepared + 1, fromDatabase: before.fromDatabase });
    expect(await heldStamp()).toEqual({ revision, epoch: base.epoch });
    const target = (await stored(revision, base.epoch))!;
    expect(target.bundle.revision).toBe(revision);
    expect(target.bundle.snapshot.agent.description).toBe(`Described again (${changes}).`);
    // The announcement's delta leads from the bundle the fleet was served to the stored one.
    await until('the announcement', () => heard.length >= 1);
    const message = parseChangeMessage(heard[0]);
    expect(message.stamp).toEqual({ revision, epoch: base.epoch });
    const applied = applyNodeBundleDelta(baseBundle.bundle, message.delta!);
    expect(applied.ok && applied.bundle.contentHash).toBe(target.bundle.contentHash);
    // The memo serves the stored body: nodes revalidating get the same ETag as Redis holds.
    expect((await cache.current(AGENT))!.etag).toBe(target.etag);
    const row = await app
      .get(PrismaService)
      .registryRevision.findUniqueOrThrow({ where: { agentId_revision: { agentId: AGENT, revision } } });
    expect(row.publishedAt).not.toBeNull();
  });

  it('concurrent changes of one agent: announced in order, every pushed delta leads to the bundle it announces, nodes converge', async () => {
    const n = node('racing-node');
    await n.start();
    const base = await heldStamp();
    heard.length = 0;
    const revisions = (await Promise.all(Array.from({ length: 4 }, () => describeAgent()))).map((c) => c.revision).sort((a, b) => a - b);
    expect(revisions).toEqual([1, 2, 3, 4].map((i) => base.revision + i));
    const last = revisions[3];
    expect(await heldStamp()).toEqual({ revision: last, epoch: base.epoch });
    await until('every announcement', () => heard.length >= 4);
    let pushed = 0;
    for (const text of heard) {
      const message = parseChangeMessage(text);
      if (message.delta === undefined) continue;
      pushed++;
      const delta = JSON.parse(message.delta) as { revision: number; base: { revision: number } };
      expect(delta.revision).toBe(message.stamp!.revision);
      const from = (await stored(delta.base.revision, base.epoch))!;
      const to = (await stored(delta.revision, base.epoch))!;
      const applied = applyNodeBundleDelta(from.bundle, message.delta);
      expect(applied.ok && applied.bundle.contentHash).toBe(to.bundle.contentHash);
    }
    // The first change's base was announced before: its delta at least rides along.
    expect(pushed).toBeGreaterThanOrEqual(1);
    // Never an announcement of a revision older than one announced before it (the key only rises).
    const stamps = heard.map((text) => parseChangeMessage(text).stamp!.revision);
    expect(stamps.every((s, i) => i === 0 || s >= stamps[i - 1])).toBe(true);
    expect(stamps.at(-1)).toBe(last);
    const final = (await stored(last, base.epoch))!;
    expect(final.bundle.snapshot.agent.description).toBe(`Described again (${changes}).`);
    await until('the node on the last revision', () => n.current()?.revision === last);
    expect(n.current()!.servedHash).toBe(final.bundle.contentHash);
    await n.stop();
  });

  it('a bundle of the revision another process stored first is the one served; no delta is pushed to the other', async () => {
    const cache = app.get(BundleCache);
    const base = await heldStamp();
    const baseBundle = (await stored(base.revision, base.epoch))!;
    // The next revision, committed without a publish (as if this process had died after the commit).
    const prisma = app.get(PrismaService);
    await prisma.agent.update({ where: { id: AGENT }, data: { revision: base.revision + 1, description: 'Raced.' } });
    const snapshot = (await app.get(RegistrySnapshotRepository).snapshot(AGENT))!;
    const first = await cache.buildFrom(snapshot);
    const second = await cache.buildFrom(snapshot);
    // ECDSA signatures are randomized: two builds of one revision are two bundles.
    expect(second.entry.etag).not.toBe(first.entry.etag);
    const delta = (b: typeof first) => ({
      revision: base.revision,
      etag: baseBundle.etag,
      delta: JSON.stringify({ kind: 'node-bundle-delta', to: b.entry.etag }),
    });
    heard.length = 0;
    expect(await cache.publishBuilt(first.entry, delta(first))).toEqual({ announced: base.revision + 1, pushed: true, stored: true });
    const loser = second.entry;
    expect(await cache.publishBuilt(loser, delta(second))).toEqual({ announced: base.revision + 1, pushed: false, stored: false });
    expect(loser.etag).toBe(first.entry.etag);
    expect((await stored(base.revision + 1, base.epoch))!.etag).toBe(first.entry.etag);
    expect((await cache.current(AGENT))!.etag).toBe(first.entry.etag);
    await until('both announcements', () => heard.length >= 2);
    expect(parseChangeMessage(heard[0]).delta).toBe(delta(first).delta);
    expect(parseChangeMessage(heard[1]).delta).toBeUndefined();
  });

  it('a delta from a base the fleet was not served (another ETag in Redis) is not pushed', async () => {
    const cache = app.get(BundleCache);
    const base = await heldStamp();
    const prisma = app.get(PrismaService);
    await prisma.agent.update({ where: { id: AGENT }, data: { revision: base.revision + 1, description: 'Off base.' } });
    const built = await cache.buildFrom((await app.get(RegistrySnapshotRepository).snapshot(AGENT))!);
    heard.length = 0;
    const result = await cache.publishBuilt(built.entry, {
      revision: base.revision,
      etag: '"r1-' + '0'.repeat(64) + '"',
      delta: '{"x":1}',
    });
    expect(result).toEqual({ announced: base.revision + 1, pushed: false, stored: true });
    await until('the announcement', () => heard.length >= 1);
    expect(parseChangeMessage(heard[0])).toMatchObject({ stamp: { revision: base.revision + 1 }, delta: undefined });
  });

  it('a change whose publish finds Redis away stays in the outbox and is published from PostgreSQL later', async () => {
    const publisher = app.get(RevisionPublisher);
    const fromDatabase = publisher.stats.fromDatabase;
    await redis.stop();
    let revision = 0;
    try {
      ({ revision } = await describeAgent());
      const row = await app
        .get(PrismaService)
        .registryRevision.findUniqueOrThrow({ where: { agentId_revision: { agentId: AGENT, revision } } });
      expect(row.publishedAt).toBeNull();
    } finally {
      await redis.start();
    }
    await until('Redis back', () => cache().connected());
    expect(await publisher.publish(AGENT, revision)).toBe(revision);
    expect(publisher.stats.fromDatabase).toBe(fromDatabase + 1);
    expect((await heldStamp()).revision).toBe(revision);
  });

  const cache = () => app.get(BundleCache);
});
