/**
 * Propagation against its floor, and cost growth (issue 18). Run: `npm run bench propagation`
 * (builds dist/ first), or `npm run build && npx tsx test/bench/propagation-floor.bench.ts`.
 * Env: BENCH_NODES (50,200,1000), BENCH_PROCS (4), BENCH_CHANGES (20), BENCH_MANIFESTS
 * (100,1000,10000), BENCH_GROWTH_NODES (5), BENCH_GROWTH_CHANGES (3), BENCH_OUT (JSON results),
 * BENCH_CP_PROFILE_DIR (the control plane writes a CPU profile there when the bench ends),
 * BENCH_NODE_PROFILE_DIR (each node host process writes a CPU profile there when its nodes stop),
 * BENCH_NODE_DIR (where the nodes' disk copies go; default the OS temp directory),
 * BENCH_ACK_SPREADS (e.g. `0,500`: the product measured once per NodeSync `ackSpreadMs`, in the
 * same run, nodes restarted for each; default: one product run with NodeSync's default).
 *
 * Everything runs in separate OS processes: the REAL control plane (dist/apps/control-plane) on a
 * private redis-server (so its memory is ours to read) and a fresh database; the nodes, N/PROCS
 * NodeSync instances per host process; the floor, N/PROCS bare subscribers per process.
 *
 * 1. Propagation with a floor, for each N: the product (GraphQL updateAgent → commit → publish →
 *    every node applies the delta pushed with the announcement (ADR 0199; or fetches it with its
 *    base), rebuilds, checks, swaps, writes disk, acks)
 *    against the floor: one PUBLISH to N ioredis subscribers, each doing one HTTP GET of the same
 *    agent's full bundle bytes from a bare Fastify. Per change: the time until the LAST node has
 *    it (product: from sending the mutation; floor: from the PUBLISH). p50/p99 over changes.
 *    Alternating rounds: product change, its spread acks settle, floor round, 100 ms, next change.
 * 2. Cost growth: control-plane CPU per change (/proc utime+stime), Redis used_memory, as N grows;
 *    then one agent grown to M manifests: propagation to BENCH_GROWTH_NODES nodes, CPU, Redis
 *    memory, and the bytes a node receives per change with and without delta.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Fastify from 'fastify';
import { Redis } from 'ioredis';
import { PrismaPg } from '@prisma/adapter-pg';
import { mintAdminToken, mintNodeToken } from '@cp/auth';
import { loadConfig } from '@cp/common';
import { seedWhenEmpty } from '@cp/db';
import { DEFAULT_ACK_SPREAD_MS, NodeSync } from '@cp/node-sdk';
import { BUNDLE_DELTA_BASE_HEADER, parseChangeMessage, syncKeys } from '@cp/node-protocol';
import { PrismaClient } from '../../prisma/generated/client';
import { createTestDatabase } from '../support/test-database';
import { freePort } from '../support/free-port';
import { startBuiltControlPlane } from '../support/bench-control-plane';
import { updateAgentDescription } from '../support/bench-mutations';
import { processCpuSeconds } from '../support/process-cpu';
import { startPrivateRedis } from '../support/redis-server';

const AGENT = 'finance-agent';
const list = (v: string | undefined, d: number[]) => (v ? v.split(',').map(Number) : d);
const NODES = list(process.env.BENCH_NODES, [50, 200, 1000]);
const PROCS = Number(process.env.BENCH_PROCS ?? 4);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 20);
const MANIFESTS = list(process.env.BENCH_MANIFESTS, [100, 1000, 10000]);
const GROWTH_NODES = Number(process.env.BENCH_GROWTH_NODES ?? 5);
const GROWTH_CHANGES = Number(process.env.BENCH_GROWTH_CHANGES ?? 3);
const WARMUP = 2;
/** The nodes' ackSpreadMs per product variant (ADR 0280); `undefined`: NodeSync's default. */
const ACK_SPREADS: (number | undefined)[] = process.env.BENCH_ACK_SPREADS ? list(process.env.BENCH_ACK_SPREADS, []) : [undefined];
const now = () => performance.timeOrigin + performance.now();
const send = (message: unknown) => process.send!(message);

// ---- child modes ----------------------------------------------------------------------------
const mode = process.argv[2];
if (mode === '--nodes') void nodeHost(JSON.parse(process.argv[3]) as NodeHostArgs);
else if (mode === '--floor') void floorHost(JSON.parse(process.argv[3]) as FloorArgs);
else if (mode === '--bare') void bareServer(Number(process.argv[3]), process.argv[4]);
else
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });

interface NodeHostArgs {
  count: number;
  first: number;
  url: string;
  token: string;
  redisUrl: string;
  prefix: string;
  dir: string;
  ackSpreadMs?: number;
}

/** `count` NodeSync instances; reports each revision once every one of them serves it. */
async function nodeHost(a: NodeHostArgs): Promise<void> {
  const nodes = Array.from(
    { length: a.count },
    (_, i) =>
      new NodeSync({
        controlPlaneUrl: a.url,
        nodeToken: a.token,
        agentId: AGENT,
        nodeId: `bench-${a.first + i}`,
        cacheDir: join(a.dir, `node-${a.first + i}`),
        redisUrl: a.redisUrl,
        redisKeyPrefix: a.prefix,
        pollIntervalMs: 120_000,
        heartbeatIntervalMs: 120_000,
        requestTimeoutMs: 60_000,
        ackSpreadMs: a.ackSpreadMs,
      }),
  );
  const arrivals = new Map<number, number[]>();
  for (const n of nodes) {
    n.onApplied((b) => {
      const times = arrivals.get(b.revision) ?? [];
      times.push(now());
      arrivals.set(b.revision, times);
      if (times.length === a.count) send({ revision: b.revision, times });
    });
  }
  for (let i = 0; i < nodes.length; i += 25) await Promise.all(nodes.slice(i, i + 25).map((n) => n.start()));
  await Promise.all(nodes.map((n) => n.whenReady(120_000)));
  send({ ready: true, revision: nodes[0].current()!.revision });
  process.on('message', (m: { stats?: boolean; exit?: boolean }) => {
    // A normal exit, so that --cpu-prof (BENCH_NODE_PROFILE_DIR) writes its file.
    if (m.exit) process.exit(0);
    if (!m.stats) return;
    const f = nodes.map((n) => n.status().fetches);
    send({
      stats: {
        full: f.reduce((s, x) => s + x.full, 0),
        delta: f.reduce((s, x) => s + x.delta, 0),
        pushed: f.reduce((s, x) => s + x.pushed, 0),
        throttled: f.reduce((s, x) => s + x.throttled, 0),
      },
    });
  });
}

interface ProductRun {
  ackSpreadMs: number | null;
  product: Record<string, number>;
  cpuMsPerChange: number;
  nodeCpuMsPerApply: number;
  mutationAnsweredP50: number;
  /** ms from sending the mutation until its announcement was published. */
  publishedP50: number;
  /** ms from the PUBLISH until the last node serves the change (the floor's clock). */
  afterPublish: { p50: number; p99: number };
  redisUsedMemory: number;
  fetches: Record<string, number>;
}

interface FloorArgs {
  count: number;
  redisUrl: string;
  channel: string;
  url: string;
}

/** The floor: `count` subscribers, each doing one GET of the bytes per message. */
async function floorHost(a: FloorArgs): Promise<void> {
  let times: number[] = [];
  const subs = Array.from({ length: a.count }, () => new Redis(a.redisUrl, { lazyConnect: true }));
  for (const sub of subs) {
    sub.on('message', () => {
      void fetch(a.url)
        .then((r) => r.text())
        .then(() => {
          times.push(now());
          if (times.length === a.count) {
            send({ times });
            times = [];
          }
        });
    });
  }
  for (let i = 0; i < subs.length; i += 50) await Promise.all(subs.slice(i, i + 50).map((s) => s.subscribe(a.channel)));
  send({ ready: true });
}

async function bareServer(port: number, file: string): Promise<void> {
  const body = readFileSync(file);
  const app = Fastify();
  app.get('/bundle', (_req, reply) => reply.header('content-type', 'application/json').send(body));
  await app.listen({ port, host: '127.0.0.1' });
}

// ---- parent ---------------------------------------------------------------------------------
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
};
const progress = (message: string) => process.stderr.write(`[propagation bench] ${message}\n`);
const f1 = (x: number) => x.toFixed(1);

const NODE_PROFILE_DIR = process.env.BENCH_NODE_PROFILE_DIR;

function child(args: string[]): ChildProcess {
  const profile = NODE_PROFILE_DIR && args[0] === '--nodes' ? ['--cpu-prof', `--cpu-prof-dir=${NODE_PROFILE_DIR}`] : [];
  return spawn(process.execPath, [...profile, '--import', 'tsx', __filename, ...args], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
}

/** Waits for `want` messages matching `pick` from these children. */
function collect<T>(children: ChildProcess[], pick: (m: unknown) => T | undefined, timeoutMs = 300_000): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const got: T[] = [];
    const listeners = children.map((c) => {
      const on = (m: unknown) => {
        const v = pick(m);
        if (v === undefined) return;
        got.push(v);
        if (got.length === children.length) done();
      };
      c.on('message', on);
      return on;
    });
    const timer = setTimeout(() => {
      done();
      reject(new Error(`only ${got.length}/${children.length} answers in ${timeoutMs} ms`));
    }, timeoutMs);
    function done() {
      clearTimeout(timer);
      children.forEach((c, i) => c.off('message', listeners[i]));
      resolve(got);
    }
  });
}

const cpuMs = (pid: number) => processCpuSeconds(pid) * 1000;

async function main(): Promise<void> {
  const redisServer = await startPrivateRedis();
  const db = await createTestDatabase('bench_propagation');
  const prefix = 'bench:prop:';
  const env = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATABASE_URL: db.url,
    REDIS_URL: redisServer.url,
    REDIS_KEY_PREFIX: prefix,
  };
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: db.url, REDIS_URL: redisServer.url, REDIS_KEY_PREFIX: prefix });
  // Long transaction timeouts: the shared PostgreSQL is slow under other sessions' load.
  const prisma = new PrismaClient({
    adapter: new PrismaPg({ connectionString: db.url }),
    transactionOptions: { maxWait: 30_000, timeout: 60_000 },
  });
  const redis = new Redis(redisServer.url);
  // When each revision's announcement was published (seen by one more subscriber): splits the
  // product's time into the mutation until its PUBLISH, and the fan-out and applies after it.
  const announcements = new Redis(redisServer.url);
  const announcedAt = new Map<number, number>();
  announcements.on('message', (_channel: string, message: string) => {
    const revision = parseChangeMessage(message).stamp?.revision;
    if (revision !== undefined && !announcedAt.has(revision)) announcedAt.set(revision, now());
  });
  await announcements.subscribe(syncKeys(prefix, AGENT).changes);
  // BENCH_NODE_DIR: where the nodes keep their disk copies (e.g. /dev/shm: one host's disk then does
  // not carry a whole fleet's file syncs beside PostgreSQL's commits).
  const dir = mkdtempSync(join(process.env.BENCH_NODE_DIR ?? tmpdir(), 'bench-prop-'));
  const children: ChildProcess[] = [];
  let cpForProfile: ChildProcess | undefined;
  const results: Record<string, unknown> = {
    machine: { loadavg: readFileSync('/proc/loadavg', 'utf8').trim(), node: process.version },
    growthNodes: GROWTH_NODES,
  };
  // Written after every step, so a run cut short still leaves what it measured.
  const save = (part: Record<string, unknown>) => {
    Object.assign(results, part, { loadavgAfter: readFileSync('/proc/loadavg', 'utf8').trim() });
    if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, JSON.stringify(results, null, 2));
  };
  try {
    // Retried: the shared PostgreSQL is slow enough under other sessions' load to time the seed's transaction out.
    for (let attempt = 0; ; attempt++) {
      try {
        await seedWhenEmpty(prisma);
        break;
      } catch (error) {
        if (attempt >= 5) throw error;
        progress(`seed failed (${(error as Error).message.slice(-120)}); retrying`);
      }
    }
    // BENCH_CP_PROFILE_DIR: the control plane writes a V8 CPU profile there when the bench ends.
    const profileDir = process.env.BENCH_CP_PROFILE_DIR;
    const { url, child: cp } = await startBuiltControlPlane(env, children, {
      log: process.env.BENCH_CP_LOG,
      nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
    });
    cpForProfile = profileDir ? cp : undefined;
    const token = mintNodeToken(config, AGENT);
    const admin = mintAdminToken(config, 'bench', ['platform-admin']);
    let revision = (await prisma.agent.findUniqueOrThrow({ where: { id: AGENT } })).revision;
    // Retried: on this loaded machine PostgreSQL sometimes cannot start the transaction in time
    // while a fleet registers (Prisma's "Unable to start a transaction"); nothing was committed then.
    const mutate = async (i: number): Promise<void> => {
      revision = await updateAgentDescription(
        url,
        admin,
        { agentId: AGENT, expectedRevision: revision, description: `Change number ${i} of the bench.` },
        { attempts: 5, onRetry: (why) => progress(`mutation failed (${why}); retrying`) },
      );
    };
    const spread = (n: number, procs: number) =>
      Array.from({ length: procs }, (_, p) => Math.floor(n / procs) + (p < n % procs ? 1 : 0)).filter((c) => c > 0);

    /** Starts `n` nodes over `procs` host processes; returns them once every node serves. */
    const startNodes = async (n: number, procs: number, ackSpreadMs?: number) => {
      let first = 0;
      const nodesDir = join(dir, `n${n}-ack${ackSpreadMs ?? 'default'}`);
      const hosts = spread(n, procs).map((count) => {
        const h = child([
          '--nodes',
          JSON.stringify({ count, first, url, token, redisUrl: redisServer.url, prefix, dir: nodesDir, ackSpreadMs }),
        ]);
        first += count;
        children.push(h);
        return h;
      });
      await collect(hosts, (m) => ((m as { ready?: boolean }).ready ? true : undefined));
      return hosts;
    };
    /** One change through the product: ms from sending the mutation until the last node serves it, and per-node ms. */
    const productChange = async (hosts: ChildProcess[], i: number) => {
      const target = revision + 1;
      const arrivals = collect(hosts, (m) =>
        (m as { revision?: number }).revision === target ? (m as { times: number[] }).times : undefined,
      );
      const sent = now();
      await mutate(i);
      const answered = now() - sent;
      const times = (await arrivals).flat();
      // The mutation answers after its PUBLISH; one more subscriber may see it later (Redis
      // writes to a channel's subscribers one by one): the earlier of the two bounds it.
      const published = Math.min(announcedAt.get(target) ?? Infinity, sent + answered) - sent;
      return { last: Math.max(...times) - sent, each: times.map((t) => t - sent), answered, published };
    };
    const stopHosts = async (hosts: ChildProcess[], nodes = true) => {
      if (NODE_PROFILE_DIR && nodes) {
        const exited = hosts.map((h) => new Promise((resolve) => h.once('exit', resolve)));
        hosts.forEach((h) => h.send({ exit: true }));
        await Promise.race([Promise.all(exited), new Promise((resolve) => setTimeout(resolve, 30_000))]);
      }
      hosts.forEach((h) => h.kill('SIGKILL'));
    };

    // ---- 1. propagation with a floor, and cost as N grows ----------------------------------
    const bundleFile = join(dir, 'bundle.json');
    writeFileSync(bundleFile, await (await fetch(`${url}/node/v1/bundle`, { headers: { authorization: `Bearer ${token}` } })).text());
    const barePort = await freePort();
    children.push(child(['--bare', String(barePort), bundleFile]));
    const floorChannel = `${prefix}floor`;
    const byN: Record<number, unknown> = {};
    /** The product at `n` nodes with the nodes' ackSpreadMs (undefined: NodeSync's default). */
    const measureProduct = async (
      n: number,
      ackSpreadMs: number | undefined,
      floorRound: (i: number) => Promise<void>,
    ): Promise<ProductRun> => {
      progress(`N=${n}, ackSpreadMs=${ackSpreadMs ?? 'default'}: starting nodes`);
      const hosts = await startNodes(n, PROCS, ackSpreadMs);
      const product: number[] = [];
      const productEach: number[] = [];
      // Alternating rounds: each product change is followed, once its nodes' disk copies and acks
      // are done (the spread, ADR 0280), by one floor round, so both meet the same moments of a
      // shared machine; the next change comes 100 ms after that.
      const settled = () => new Promise((res) => setTimeout(res, (ackSpreadMs ?? DEFAULT_ACK_SPREAD_MS) + 100));
      for (let i = 0; i < WARMUP; i++) {
        await productChange(hosts, i);
        await settled();
        await floorRound(i);
        await new Promise((res) => setTimeout(res, 100));
      }
      const cpu0 = cpuMs(cp.pid!);
      // The simulated nodes' own CPU (delta apply, bundle check, signature verification, disk, ack):
      // on a real fleet each node pays it on its own machine; here N/PROCS of them share a process.
      const hostsCpu = () => hosts.reduce((sum, h) => sum + cpuMs(h.pid!), 0);
      const nodeCpu0 = hostsCpu();
      const answered: number[] = [];
      const published: number[] = [];
      const afterPublish: number[] = [];
      for (let i = 0; i < CHANGES; i++) {
        const r = await productChange(hosts, i);
        product.push(r.last);
        productEach.push(...r.each);
        answered.push(r.answered);
        published.push(r.published);
        afterPublish.push(r.last - r.published);
        await settled();
        await floorRound(WARMUP + i);
        await new Promise((res) => setTimeout(res, 100));
      }
      const cpuPerChange = (cpuMs(cp.pid!) - cpu0) / CHANGES;
      const nodeCpuPerApply = (hostsCpu() - nodeCpu0) / (CHANGES * n);
      const memory = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]);
      const fetchStats = await (async () => {
        const p = collect(hosts, (m) => (m as { stats?: Record<string, number> }).stats);
        hosts.forEach((h) => h.send({ stats: true }));
        return (await p).reduce(
          (s, x) => ({
            full: s.full + x.full,
            delta: s.delta + x.delta,
            pushed: s.pushed + x.pushed,
            throttled: s.throttled + x.throttled,
          }),
          { full: 0, delta: 0, pushed: 0, throttled: 0 },
        );
      })();
      await stopHosts(hosts);
      return {
        ackSpreadMs: ackSpreadMs ?? null,
        product: {
          p50: quantile(product, 0.5),
          p99: quantile(product, 0.99),
          eachP50: quantile(productEach, 0.5),
          eachP99: quantile(productEach, 0.99),
        },
        cpuMsPerChange: cpuPerChange,
        nodeCpuMsPerApply: nodeCpuPerApply,
        mutationAnsweredP50: quantile(answered, 0.5),
        publishedP50: quantile(published, 0.5),
        afterPublish: { p50: quantile(afterPublish, 0.5), p99: quantile(afterPublish, 0.99) },
        redisUsedMemory: memory,
        fetches: fetchStats,
      };
    };
    for (const n of NODES) {
      progress(`N=${n}: floor subscribers`);
      const floors = spread(n, PROCS).map((count) => {
        const f = child([
          '--floor',
          JSON.stringify({ count, redisUrl: redisServer.url, channel: floorChannel, url: `http://127.0.0.1:${barePort}/bundle` }),
        ]);
        children.push(f);
        return f;
      });
      await collect(floors, (m) => ((m as { ready?: boolean }).ready ? true : undefined));
      const floor: number[] = [];
      const floorEach: number[] = [];
      /** One floor round: a PUBLISH, every subscriber's GET; the first WARMUP rounds are not counted. */
      const floorRound = async (i: number) => {
        const got = collect(floors, (m) => (m as { times?: number[] }).times);
        const sent = now();
        await redis.publish(floorChannel, String(i));
        const times = (await got).flat();
        if (i >= WARMUP) {
          floor.push(Math.max(...times) - sent);
          floorEach.push(...times.map((t) => t - sent));
        }
      };
      const variants: ProductRun[] = [];
      for (const ackSpreadMs of ACK_SPREADS) variants.push(await measureProduct(n, ackSpreadMs, floorRound));
      await stopHosts(floors, false);
      byN[n] = {
        // The first variant's figures at the top level (the plot and older readers), every variant in `variants`.
        ...variants[0],
        floor: {
          p50: quantile(floor, 0.5),
          p99: quantile(floor, 0.99),
          eachP50: quantile(floorEach, 0.5),
          eachP99: quantile(floorEach, 0.99),
        },
        variants,
      };
      progress(`N=${n}: ${JSON.stringify(byN[n])}`);
      save({ byNodes: byN });
    }
    results.byNodes = byN;

    // ---- 2. cost as one agent grows --------------------------------------------------------
    const byM: Record<number, unknown> = {};
    const owner = (await prisma.capabilityManifest.findFirstOrThrow({ where: { agentId: AGENT } })).ownerTeamId;
    let have = 0;
    for (const m of MANIFESTS) {
      progress(`M=${m}: growing the agent`);
      await prisma.capabilityManifest.createMany({
        data: Array.from({ length: m - have }, (_, k) => ({
          agentId: AGENT,
          capabilityId: `bulk-${String(have + k).padStart(5, '0')}`,
          state: 'ga' as const,
          visibility: (have + k) % 2 === 0 ? ('public' as const) : ('extended' as const),
          // Names that are not substrings of each other across visibilities ("Bulk skill 1" is in
          // "Bulk skill 10"): the public-card leak check would refuse the change otherwise.
          skill: {
            name: `Bulk ${(have + k) % 2 === 0 ? 'public' : 'extended'} skill #${have + k}#`,
            description: `Handles bulk request number ${have + k}.`,
            tags: ['bulk'],
          },
          requiresScopes: [],
          tenantsAll: true,
          tenants: [],
          handler: 'finance.v1.lookup_invoice',
          ownerTeamId: owner,
        })),
      });
      have = m;
      await mutate(-1);
      const hosts = await startNodes(GROWTH_NODES, Math.min(PROCS, GROWTH_NODES));
      const times: number[] = [];
      const full: number[] = [];
      const delta: number[] = [];
      const cpu0 = cpuMs(cp.pid!);
      for (let i = 0; i < GROWTH_CHANGES; i++) {
        const before = await fetch(`${url}/node/v1/bundle`, { headers: { authorization: `Bearer ${token}` } });
        const base = before.headers.get('etag')!;
        await before.arrayBuffer();
        times.push((await productChange(hosts, 1000 + i)).last);
        const headers = { authorization: `Bearer ${token}` };
        full.push((await (await fetch(`${url}/node/v1/bundle`, { headers })).arrayBuffer()).byteLength);
        delta.push(
          (await (await fetch(`${url}/node/v1/bundle`, { headers: { ...headers, [BUNDLE_DELTA_BASE_HEADER]: base } })).arrayBuffer())
            .byteLength,
        );
      }
      const cpuPerChange = (cpuMs(cp.pid!) - cpu0) / GROWTH_CHANGES;
      const memory = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]);
      const bundleKeys = await redis.keys(`${syncKeys(prefix, AGENT).revision.replace(/:rev$/, '')}:bundle:*`);
      await stopHosts(hosts);
      byM[m] = {
        propagationP50: quantile(times, 0.5),
        propagationMax: Math.max(...times),
        cpuMsPerChange: cpuPerChange,
        redisUsedMemory: memory,
        cachedBundles: bundleKeys.length,
        fullBytes: quantile(full, 0.5),
        deltaBytes: quantile(delta, 0.5),
      };
      progress(`M=${m}: ${JSON.stringify(byM[m])}`);
      save({ byManifests: byM });
    }
    results.byManifests = byM;

    // ---- report ------------------------------------------------------------------------------
    console.log(
      `\nPropagation (ms until the last node serves the change; ${CHANGES} changes after ${WARMUP} warm-up; nodes over ${PROCS} processes)`,
    );
    console.log(
      "| nodes | nodes' ackSpreadMs | product p50 | product p99 | floor p50 | floor p99 | p99 ratio | per-node p50/p99 product | per-node p50/p99 floor | mutation answered p50 | published p50 | after PUBLISH p50/p99 | CP CPU ms/change | node CPU ms/apply | Redis used_memory | fetches full/delta/503, deltas pushed |",
    );
    console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const [n, r] of Object.entries(byN) as [string, { floor: Record<string, number>; variants: ProductRun[] }][]) {
      for (const v of r.variants) {
        console.log(
          `| ${n} | ${v.ackSpreadMs ?? 'default'} | ${f1(v.product.p50)} | ${f1(v.product.p99)} | ${f1(r.floor.p50)} | ${f1(r.floor.p99)} | ${(v.product.p99 / r.floor.p99).toFixed(2)} | ${f1(v.product.eachP50)}/${f1(v.product.eachP99)} | ${f1(r.floor.eachP50)}/${f1(r.floor.eachP99)} | ${f1(v.mutationAnsweredP50)} | ${f1(v.publishedP50)} | ${f1(v.afterPublish.p50)}/${f1(v.afterPublish.p99)} | ${f1(v.cpuMsPerChange)} | ${f1(v.nodeCpuMsPerApply)} | ${(v.redisUsedMemory / 1e6).toFixed(1)} MB | ${v.fetches.full}/${v.fetches.delta}/${v.fetches.throttled}, ${v.fetches.pushed} |`,
        );
      }
    }
    console.log(`\nOne agent growing (${GROWTH_NODES} nodes, ${GROWTH_CHANGES} changes each)`);
    console.log(
      '| manifests | propagation p50 ms | max ms | CP CPU ms/change | Redis used_memory | full bundle bytes | delta bytes | delta/full |',
    );
    console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const [m, r] of Object.entries(byM) as [string, Record<string, number>][]) {
      console.log(
        `| ${m} | ${f1(r.propagationP50)} | ${f1(r.propagationMax)} | ${f1(r.cpuMsPerChange)} | ${(r.redisUsedMemory / 1e6).toFixed(1)} MB | ${r.fullBytes} | ${r.deltaBytes} | ${(r.deltaBytes / r.fullBytes).toFixed(4)} |`,
      );
    }
    results.loadavgAfter = readFileSync('/proc/loadavg', 'utf8').trim();
    if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, JSON.stringify(results, null, 2));
    console.log(`\nload average before/after: ${(results.machine as { loadavg: string }).loadavg} / ${results.loadavgAfter as string}`);
  } finally {
    if (cpForProfile) {
      // A graceful stop, so that --cpu-prof writes its file.
      const exited = new Promise((resolve) => cpForProfile!.once('exit', resolve));
      cpForProfile.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
    }
    for (const c of children) c.kill('SIGKILL');
    redis.disconnect();
    announcements.disconnect();
    await prisma.$disconnect();
    await redisServer.stop();
    rmSync(dir, { recursive: true, force: true });
    await db.drop();
  }
}
