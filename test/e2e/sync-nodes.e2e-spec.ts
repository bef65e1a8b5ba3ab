/**
 * Node sync end to end: a control plane (node API + publisher), a private redis-server this suite
 * may stop and restart, and four NodeSync instances, one of them in a separate process.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import { buildNodeBundle, bundleContentHash, type NodeBundle } from '@cp/capabilities';
import { mintNodeToken } from '@cp/auth';
import { AppConfigToken, createFastifyAdapter, type AppConfig } from '@cp/common';
import { PrismaService, RegistrySnapshotRepository, RegistryWriter, seedWhenEmpty } from '@cp/db';
import { NodeSync, nodeBundleEtag, syncKeys, type NodeSyncOptions } from '@cp/node-sdk';
import { BundleCache, OutboxRelay, SigningKeys } from '@cp/sync';
import { controlPlaneUnderTest } from '../support/control-plane-under-test';
import { testConfig } from '../support/config';
import { spawnNodeProcess, type NodeProcess } from '../support/node-process';
import { startPrivateRedis, type PrivateRedis } from '../support/redis-server';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { until } from '../support/until';

const AGENT = 'finance-agent';

const controlPlane = controlPlaneUnderTest({});

describe('node sync (real PostgreSQL, Redis, HTTP; one node in another process)', () => {
  let db: TestDatabase;
  let redis: PrivateRedis;
  let config: AppConfig;
  let app: NestFastifyApplication;
  let url: string;
  let port: number;
  let dir: string;
  let nodes: NodeSync[] = [];
  let child: NodeProcess | undefined;
  let commands: Redis;

  const optionsFor = (nodeId: string, overrides: Partial<NodeSyncOptions> = {}): NodeSyncOptions => ({
    controlPlaneUrl: url,
    nodeToken: mintNodeToken(config, AGENT),
    agentId: AGENT,
    nodeId,
    hostname: 'test-host',
    cacheDir: join(dir, nodeId),
    redisUrl: redis.url,
    redisKeyPrefix: config.REDIS_KEY_PREFIX,
    pollIntervalMs: 60_000,
    heartbeatIntervalMs: 300,
    requestTimeoutMs: 1000,
    reconnectMaxMs: 200,
    ...overrides,
  });

  /** Boots the control plane on `listenPort` (0: ephemeral); a restart reuses the nodes' known port. */
  const bootControlPlane = async (listenPort = 0) => {
    const ref = await Test.createTestingModule({ imports: [controlPlane] })
      .overrideProvider(AppConfigToken)
      .useValue(config)
      .compile();
    app = ref.createNestApplication<NestFastifyApplication>(createFastifyAdapter(config), { logger: false });
    await app.listen(listenPort, '127.0.0.1');
    port = Number(new URL(await app.getUrl()).port);
    url = `http://127.0.0.1:${port}`;
  };

  const writer = () => app.get(RegistryWriter);
  const prisma = () => app.get(PrismaService);
  const rename = (name: string, w: RegistryWriter = writer()) =>
    w.change({ agentId: AGENT, actor: 'test', summary: `rename to ${name}` }, async (tx) => {
      await tx.agent.update({ where: { id: AGENT }, data: { name } });
      return { result: name, audit: [] };
    });
  /** A writer with no listeners: commits, announces nothing (a lost publish). */
  const silentWriter = () => new RegistryWriter(prisma(), []);
  const revisions = () => nodes.map((n) => n.current()?.revision ?? null);

  beforeAll(async () => {
    db = await createTestDatabase('sync_nodes');
    redis = await startPrivateRedis();
    config = testConfig({ DATABASE_URL: db.url, REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'sync-e2e:' });
    dir = await mkdtemp(join(tmpdir(), 'node-sync-'));
    await bootControlPlane();
    await seedWhenEmpty(prisma());
    commands = new Redis(redis.url, { maxRetriesPerRequest: 1, lazyConnect: true, retryStrategy: () => 100 });
    commands.on('error', () => undefined);
    nodes = ['node-a', 'node-b', 'node-c'].map((id) => new NodeSync(optionsFor(id)));
    await Promise.all(nodes.map((n) => n.start()));
    child = await spawnNodeProcess(optionsFor('node-process'));
  }, 60_000);

  afterAll(async () => {
    await child?.kill();
    await Promise.all(nodes.map((n) => n.stop()));
    commands?.disconnect();
    await app?.close();
    await redis?.stop();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('every node starts on the current revision, serving the bundle the control plane computed', async () => {
    expect(revisions()).toEqual([1, 1, 1]);
    const status = await child!.waitFor((s) => s.revision === 1);
    // What the control plane built and signed (the cards carry signatures, so the hash is of the signed bundle).
    const expected = JSON.parse((await app.get(BundleCache).current(AGENT))!.body) as NodeBundle;
    expect(status.servedHash).toBe(expected.contentHash);
    for (const n of nodes) expect(n.current()!.publicCard).toEqual(expected.publicCard);
    const rows = await until('acks of all four nodes', async () => {
      const r = await prisma().node.findMany({ where: { agentId: AGENT }, orderBy: { id: 'asc' } });
      return r.length === 4 && r.every((x) => x.appliedRevision === 1) ? r : undefined;
    });
    expect(rows.map((r) => [r.id, r.servedHash, r.hostname])).toEqual(
      ['node-a', 'node-b', 'node-c', 'node-process'].map((id) => [id, expected.contentHash, 'test-host']),
    );
  });

  it('a registry change reaches every node, in memory and on disk, and is acked', async () => {
    const applied: number[] = [];
    const off = nodes[0].onApplied((b, previous) => applied.push(previous!.revision, b.revision));
    const { revision } = await rename('Finance Agent (renamed)');
    await until('all in-process nodes on the new revision', () => revisions().every((r) => r === revision));
    await child!.waitFor((s) => s.revision === revision);
    off();
    expect(applied).toEqual([revision - 1, revision]);
    expect(JSON.parse(nodes[1].current()!.publicCard.body).name).toBe('Finance Agent (renamed)');
    await until('every ack recorded', async () =>
      (await prisma().node.findMany({ where: { agentId: AGENT } })).every((r) => r.appliedRevision === revision),
    );
    const outbox = await prisma().registryRevision.findUniqueOrThrow({ where: { agentId_revision: { agentId: AGENT, revision } } });
    expect(outbox.publishedAt).not.toBeNull();
  });

  it('revalidates with a 304 and no PostgreSQL query when the cache is warm', async () => {
    const token = mintNodeToken(config, AGENT);
    const first = await fetch(`${url}/node/v1/bundle`, { headers: { authorization: `Bearer ${token}` } });
    const etag = first.headers.get('etag')!;
    const bundle = (await first.json()) as NodeBundle;
    expect(etag).toBe(nodeBundleEtag(bundle.revision, bundle.contentHash));
    const pg = jest.spyOn(require('pg').Client.prototype, 'query');
    const reads = app.get(BundleCache).stats.postgresReads;
    try {
      for (let i = 0; i < 20; i++) {
        const again = await fetch(`${url}/node/v1/bundle`, { headers: { authorization: `Bearer ${token}`, 'if-none-match': etag } });
        expect(again.status).toBe(304);
        expect(await again.text()).toBe('');
      }
      // The node heartbeats write to PostgreSQL meanwhile; count only what the bundle path reads.
      expect(app.get(BundleCache).stats.postgresReads).toBe(reads);
      expect(pg.mock.calls.filter(([q]) => /"CapabilityManifest"|"Agent"/.test(String((q as { text?: string })?.text ?? q)))).toEqual([]);
    } finally {
      pg.mockRestore();
    }
  });

  it('a dropped invalidation converges by polling', async () => {
    const polling = new NodeSync(optionsFor('node-polling', { redisUrl: undefined, pollIntervalMs: 150 }));
    await polling.start();
    try {
      const { revision } = await rename('renamed without a message', silentWriter());
      // The revision key moves (as when a publish reached Redis but this node missed the message).
      await app.get(BundleCache).raise(AGENT, revision, false);
      await until('the polling node on the new revision', () => polling.current()?.revision === revision);
      expect(polling.status().invalidationsConnected).toBe(false);
    } finally {
      await polling.stop();
    }
  });

  it('a publish lost with the commit is re-published from the outbox', async () => {
    const { revision } = await rename('outbox only', silentWriter());
    await until('nodes on the outbox revision', () => revisions().every((r) => r === revision));
    await child!.waitFor((s) => s.revision === revision);
    // The relay marks the row after announcing, so a node may apply the revision first.
    const row = await until('the outbox row marked published', async () => {
      const r = await prisma().registryRevision.findUniqueOrThrow({ where: { agentId_revision: { agentId: AGENT, revision } } });
      return r.publishedAt ? r : undefined;
    });
    expect(row.publishedAt).toBeInstanceOf(Date);
  });

  it('a corrupt bundle is refused, the node keeps the old one and reports the error', async () => {
    const before = nodes[0].current()!;
    const { revision } = await rename('corrupted in transit', silentWriter());
    const good = buildNodeBundle((await app.get(RegistrySnapshotRepository).snapshot(AGENT))!);
    const corrupt = { ...good, publicCard: { ...good.publicCard, body: good.publicCard.body.replace('corrupted', 'tampered') } };
    const keys = syncKeys(config.REDIS_KEY_PREFIX, AGENT);
    await commands.connect().catch(() => undefined);
    await commands.hset(
      keys.bundle(revision, good.snapshot.epoch),
      'body',
      JSON.stringify(corrupt),
      'etag',
      nodeBundleEtag(revision, good.contentHash),
      'kid',
      app.get(SigningKeys).active().kid,
    );
    await app.get(BundleCache).raise(AGENT, revision, true);
    await until('every node refused it', () => nodes.every((n) => n.status().lastRefusal !== null));
    expect(nodes[0].status().lastRefusal).toMatch(/contentHash mismatch/);
    expect(nodes.map((n) => n.current())).toEqual(nodes.map(() => expect.objectContaining({ revision: before.revision })));
    expect(nodes[0].current()).toBe(before);
    const rows = await until('the refusals in the fleet', async () => {
      const r = await prisma().node.findMany({ where: { agentId: AGENT, id: { in: ['node-a', 'node-b', 'node-c'] } } });
      return r.every((x) => x.lastError !== null) ? r : undefined;
    });
    expect(rows[0].lastError).toMatch(new RegExp(`^revision ${revision}: contentHash mismatch`));
    expect(rows.every((r) => r.appliedRevision === before.revision)).toBe(true);

    // The next good revision heals them.
    const next = await rename('healed');
    await until('nodes past the corrupt revision', () => revisions().every((r) => r === next.revision));
    await until('errors cleared by the good ack', async () =>
      (await prisma().node.findMany({ where: { agentId: AGENT } })).every((r) => r.lastError === null),
    );
  });

  it('Redis stopped and started again: nodes keep serving, then converge', async () => {
    const served = revisions();
    await redis.stop();
    try {
      await until('the control plane notices', () => !app.get(BundleCache).connected());
      // Changes commit while Redis is down: the publish fails fast, the outbox keeps them. (A
      // publish that waited for Redis would wait until it is back, below: far past this bound,
      // which is loose because a loaded machine slows the mutation itself.)
      const started = Date.now();
      const { revision } = await rename('while redis is down');
      expect(Date.now() - started).toBeLessThan(10_000);
      await new Promise((r) => setTimeout(r, 300));
      expect(revisions()).toEqual(served);
      expect(nodes.every((n) => n.current() !== undefined)).toBe(true);
      await until('nodes notice the disconnection', () => nodes.every((n) => !n.status().invalidationsConnected));
      await redis.start();
      await until('nodes converge after Redis is back', () => revisions().every((r) => r === revision), 15_000);
      await child!.waitFor((s) => s.revision === revision, 15_000);
      await until('nodes resubscribed', () => nodes.every((n) => n.status().invalidationsConnected));
      // And invalidations flow again.
      const next = await rename('after redis came back');
      await until('the next change arrives by invalidation', () => revisions().every((r) => r === next.revision));
    } finally {
      await redis.start().catch(() => undefined);
    }
  }, 40_000);

  it('control plane stopped: nodes keep serving; a node restarted meanwhile serves from disk', async () => {
    const served = nodes[0].current()!;
    const childBefore = await child!.status();
    await app.close();
    await new Promise((r) => setTimeout(r, 200));
    expect(nodes[0].current()).toBe(served);
    expect(await nodes[1].refresh()).toBe('unreachable');
    expect(nodes[1].current()!.revision).toBe(served.revision);

    // A node process crashes and comes back while the control plane is away: after its disk copy of
    // what it served was written (within ackSpreadMs of the swap, ADR 0280; a crash before loses it).
    const diskFile = join(dir, 'node-process', `${AGENT}.bundle.json`);
    await until('the node process has its served revision on disk', async () => {
      const text = await readFile(diskFile, 'utf8').catch(() => '{}');
      return (JSON.parse(text) as { revision?: number }).revision === childBefore.revision;
    });
    await child!.kill();
    child = await spawnNodeProcess(optionsFor('node-process'));
    const status = await child.status();
    expect(status).toMatchObject({ revision: childBefore.revision, servedHash: childBefore.servedHash, source: 'disk' });
    expect(status.lastFetchError).toMatch(/unreachable/);

    // So does an in-process one.
    await nodes[2].stop();
    nodes[2] = new NodeSync(optionsFor('node-c'));
    await nodes[2].start();
    expect(nodes[2].current()!.servedHash).toBe(served.servedHash);
    expect(nodes[2].status().source).toBe('disk');

    await bootControlPlane(port);
    const { revision } = await rename('control plane is back');
    await until('nodes converge once the control plane is back', () => revisions().every((r) => r === revision));
    await child.waitFor((s) => s.revision === revision && s.source === 'control-plane');
  }, 40_000);

  it('checks bundles independently of the transport: a hand-made bundle for another agent is refused', async () => {
    const node = nodes[0];
    const snapshot = (await app.get(RegistrySnapshotRepository).snapshot(AGENT))!;
    const other = buildNodeBundle({ ...snapshot, agentId: 'other-agent', revision: snapshot.revision + 10 });
    expect(other.contentHash).toBe(bundleContentHash(other));
    expect(await node.offer(JSON.stringify(other))).toBe('refused');
    expect(node.status().lastRefusal).toMatch(/other-agent/);
    expect(node.current()!.agentId).toBe(AGENT);
  });

  it('the outbox relay leaves nothing unpublished', async () => {
    await app.get(OutboxRelay).republishOutbox();
    expect(await prisma().registryRevision.count({ where: { agentId: AGENT, publishedAt: null } })).toBe(0);
  });

  it('a registry recreated from scratch (new epoch, lower revision) replaces the old one everywhere', async () => {
    const before = nodes[0].current()!;
    expect(before.revision).toBeGreaterThan(2);
    // What a reset or restored database looks like: the agent is new and its revisions restart.
    await prisma().$transaction([
      prisma().registryRevision.deleteMany({ where: { agentId: AGENT } }),
      prisma()
        .$executeRaw`UPDATE "Agent" SET revision = 1, name = 'Recreated Agent', "createdAt" = now() + interval '1 second' WHERE id = ${AGENT}`,
      prisma().registryRevision.create({ data: { agentId: AGENT, revision: 1, actor: 'system:seed', summary: 'reseeded' } }),
    ]);
    await app.get(OutboxRelay).republishOutbox();
    await until('every node on the recreated registry', () =>
      nodes.every((n) => n.current()?.revision === 1 && n.current()?.publicCard.body.includes('Recreated Agent')),
    );
    expect(nodes[0].current()!.epoch).not.toBe(before.epoch);
    await child!.waitFor((s) => s.revision === 1);
  });
});
