/**
 * Node sync benchmark (issue 5). Run: `npm run bench sync` (builds dist/ first), or
 * `npx nest build control-plane && npx tsx test/bench/sync-propagation.bench.ts`.
 * Env: BENCH_CHANGES (100), BENCH_NODES (50), BENCH_SECONDS (5), BENCH_ROUNDS (2).
 *
 * 1. Propagation: the REAL control plane (dist/apps/control-plane, its own process, fresh
 *    database, private Redis key prefix) and 50 NodeSync instances (this process). 100 GraphQL
 *    `updateAgent` mutations, one after another; for each, the time until all 50 nodes serve the
 *    new revision, measured (a) from sending the mutation (an upper bound of "from commit": it
 *    includes the mutation's own HTTP + transaction) and (b) from the mutation's answer (which
 *    the server sends after commit + publish: nodes may already be fetching).
 * 2. Revalidation: GET /node/v1/bundle with a current If-None-Match (304) at the control plane,
 *    against a bare Fastify process answering 304 to the same headers, and a bare Fastify that
 *    also does one Redis GET per request (what the product's warm path must do). autocannon,
 *    50 connections, rounds interleaved; each server's CPU per answered request (/proc).
 * BENCH_CHANGES=0 skips the propagation part (revalidation only). BENCH_NODE_ARGS (e.g.
 * "--cpu-prof --cpu-prof-dir=/tmp/prof") is passed to the control plane's node.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Fastify from 'fastify';
import { Redis } from 'ioredis';
import { PrismaPg } from '@prisma/adapter-pg';
import { mintAdminToken, mintNodeToken } from '@cp/auth';
import { loadConfig } from '@cp/common';
import { seedWhenEmpty } from '@cp/db';
import { NodeSync, type ActiveBundle } from '@cp/node-sdk';
import { PrismaClient } from '../../prisma/generated/client';
import { createTestDatabase } from '../support/test-database';
import { freePort } from '../support/free-port';
import { processCpuSeconds } from '../support/process-cpu';

interface AutocannonResult {
  non2xx: number;
  '2xx': number;
  requests: { average: number };
  latency: { p50: number; p99: number };
  statusCodeStats?: Record<string, { count: number }>;
}
const autocannon = require('autocannon') as (opts: {
  url: string;
  connections: number;
  duration: number;
  headers?: Record<string, string>;
}) => Promise<AutocannonResult>;

const ROOT = join(__dirname, '..', '..');
const CHANGES = Number(process.env.BENCH_CHANGES ?? 100);
const NODES = Number(process.env.BENCH_NODES ?? 50);
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const AGENT = 'finance-agent';

// ---- child mode: the bare Fastify baselines ------------------------------------------------
if (process.argv[2] === '--bare') {
  const [, , , port, etag, redisUrl, revKey] = process.argv;
  const redis = redisUrl !== '-' ? new Redis(redisUrl) : undefined;
  const app = Fastify();
  app.get('/node/v1/bundle', async (req, reply) => {
    if (redis) await redis.get(revKey);
    void reply.header('etag', etag).header('cache-control', 'no-cache');
    if (req.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.code(200).send('{}');
  });
  void app.listen({ port: Number(port), host: '127.0.0.1' });
} else {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

async function waitFor(url: string, init: RequestInit = {}, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      const res = await fetch(url, init);
      if (res.status < 500) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer within ${ms} ms`);
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
};
const median = (xs: number[]) => quantile(xs, 0.5);
const ms = (x: number) => x.toFixed(1);
const progress = (message: string) => process.stderr.write(`[sync bench] ${message}\n`);

/** Redis's count of GET commands served since it started (INFO commandstats). */
async function redisGets(redis: Redis): Promise<number> {
  const info = await redis.info('commandstats');
  return Number(/cmdstat_get:calls=(\d+)/.exec(info)?.[1] ?? 0);
}

async function main(): Promise<void> {
  const loadAtStart = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  const db = await createTestDatabase('bench_sync');
  const prefix = `bench:sync:${process.pid}:`;
  const env = { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'warn', DATABASE_URL: db.url, REDIS_KEY_PREFIX: prefix };
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: db.url, REDIS_KEY_PREFIX: prefix });
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: db.url }) });
  await seedWhenEmpty(prisma);
  await prisma.$disconnect();

  const children: ChildProcess[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'bench-sync-'));
  const nodes: NodeSync[] = [];
  const redis = new Redis(config.REDIS_URL);
  try {
    const cpPort = await freePort();
    const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const cp = spawn(process.execPath, [...nodeArgs, join(ROOT, 'dist/apps/control-plane/src/main.js')], {
      env: { ...env, CONTROL_PLANE_PORT: String(cpPort) },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(cp);
    const cpUrl = `http://127.0.0.1:${cpPort}`;
    await waitFor(`${cpUrl}/healthz`);
    progress('control plane up');

    // ---- 1. propagation ----------------------------------------------------------------
    for (let i = 0; i < NODES; i++) {
      nodes.push(
        new NodeSync({
          controlPlaneUrl: cpUrl,
          nodeToken: mintNodeToken(config, AGENT),
          agentId: AGENT,
          nodeId: `bench-node-${i}`,
          cacheDir: join(dir, `node-${i}`),
          redisUrl: config.REDIS_URL,
          redisKeyPrefix: prefix,
          pollIntervalMs: 60_000,
          heartbeatIntervalMs: 60_000,
        }),
      );
    }
    await Promise.all(nodes.map((n) => n.start()));
    await Promise.all(nodes.map((n) => n.whenReady()));
    const admin = mintAdminToken(config, 'bench', ['platform-admin']);
    let revision = nodes[0].current()!.revision;
    const fromSend: number[] = [];
    const fromAnswer: number[] = [];
    const firstNode: number[] = [];
    const WARMUP = CHANGES > 0 ? 5 : 0;
    for (let i = 0; i < CHANGES + WARMUP; i++) {
      const target = revision + 1;
      const arrivals: number[] = [];
      let done!: () => void;
      const all = new Promise<void>((resolve) => (done = resolve));
      const offs = nodes.map((n) =>
        n.onApplied((b: ActiveBundle) => {
          if (b.revision !== target) return;
          arrivals.push(performance.now());
          if (arrivals.length === NODES) done();
        }),
      );
      const sent = performance.now();
      const res = await fetch(`${cpUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
        body: JSON.stringify({
          query: 'mutation($input: UpdateAgentInput!) { updateAgent(input: $input) { revision } }',
          variables: { input: { id: AGENT, expectedRevision: revision, description: `Change number ${i}.` } },
        }),
      });
      const answered = performance.now();
      const body = (await res.json()) as { data?: { updateAgent: { revision: number } }; errors?: unknown };
      if (!body.data) throw new Error(`mutation failed: ${JSON.stringify(body.errors)}`);
      revision = body.data.updateAgent.revision;
      if (revision !== target) throw new Error(`expected revision ${target}, got ${revision}`);
      await Promise.race([
        all,
        new Promise((_, reject) =>
          setTimeout(() => reject(new Error(`change ${i}: only ${arrivals.length}/${NODES} nodes after 10 s`)), 10_000),
        ),
      ]);
      offs.forEach((off) => off());
      const last = Math.max(...arrivals);
      if (i >= WARMUP) {
        fromSend.push(last - sent);
        fromAnswer.push(Math.max(0, last - answered));
        firstNode.push(Math.min(...arrivals) - sent);
      }
      // Let the 50 acks land before the next change (changes are not back to back in service).
      await new Promise((r) => setTimeout(r, 100));
    }
    if (CHANGES > 0) progress(`propagation done: p50 ${ms(median(fromSend))} ms`);
    const served = new Set(nodes.map((n) => n.current()!.servedHash));
    if (served.size !== 1) throw new Error('nodes disagree on what they serve');

    // ---- 2. revalidation throughput ----------------------------------------------------
    const token = mintNodeToken(config, AGENT);
    const current = await fetch(`${cpUrl}/node/v1/bundle`, { headers: { authorization: `Bearer ${token}` } });
    const etag = current.headers.get('etag')!;
    await current.text();
    const bare = await freePort();
    const bareRedis = await freePort();
    const revKey = `${prefix}sync:{${AGENT}}:rev`;
    // `node --import tsx` (not the tsx CLI, which forks a grandchild that SIGKILL would orphan).
    const bareArgs = (port: number, redisUrl: string) => ['--import', 'tsx', __filename, '--bare', String(port), etag, redisUrl, revKey];
    const bareChild = spawn(process.execPath, bareArgs(bare, '-'), { stdio: 'inherit' });
    const bareRedisChild = spawn(process.execPath, bareArgs(bareRedis, config.REDIS_URL), { stdio: 'inherit' });
    children.push(bareChild, bareRedisChild);
    const headers = { authorization: `Bearer ${token}`, 'if-none-match': etag };
    await waitFor(`http://127.0.0.1:${bare}/node/v1/bundle`, { headers });
    await waitFor(`http://127.0.0.1:${bareRedis}/node/v1/bundle`, { headers });
    // The nodes are idle now (no changes): stop them so the load generator has the core.
    await Promise.all(nodes.map((n) => n.stop()));
    progress('baselines up; load runs');

    const runs: Record<'bare' | 'bareRedis' | 'product', { rps: number; p50: number; p99: number; cpuUs: number; gets: number }[]> = {
      bare: [],
      bareRedis: [],
      product: [],
    };
    const targets = { bare: `http://127.0.0.1:${bare}`, bareRedis: `http://127.0.0.1:${bareRedis}`, product: cpUrl } as const;
    const pids = { bare: bareChild.pid, bareRedis: bareRedisChild.pid, product: cp.pid };
    for (const name of Object.keys(targets) as (keyof typeof targets)[]) {
      await autocannon({ url: `${targets[name]}/node/v1/bundle`, connections: 50, duration: 1, headers }); // warm-up
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of Object.keys(targets) as (keyof typeof targets)[]) {
        const cpu0 = processCpuSeconds(pids[name]);
        const gets0 = await redisGets(redis);
        const r = await autocannon({ url: `${targets[name]}/node/v1/bundle`, connections: 50, duration: DURATION, headers });
        const cpu = processCpuSeconds(pids[name]) - cpu0;
        const gets = (await redisGets(redis)) - gets0;
        const notModified = r.statusCodeStats?.['304']?.count;
        if (notModified !== undefined && notModified < r.non2xx) throw new Error(`${name}: answers other than 304`);
        const answered = r.non2xx + r['2xx'];
        const cpuUs = answered > 0 ? Math.round((cpu / answered) * 1e7) / 10 : 0;
        // Redis GETs per answer (server-wide INFO: anything else using this Redis adds to it).
        const getsPerAnswer = answered > 0 ? Math.round((gets / answered) * 100) / 100 : 0;
        runs[name].push({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, cpuUs, gets: getsPerAnswer });
      }
    }

    // ---- report -------------------------------------------------------------------------
    if (CHANGES > 0) {
      console.log(`\nPropagation: ${CHANGES} changes (after ${WARMUP} warm-up), ${NODES} nodes, ms`);
      console.log('| measure | p50 | p99 | max |');
      console.log('|---|---:|---:|---:|');
      const row = (name: string, xs: number[]) =>
        console.log(`| ${name} | ${ms(median(xs))} | ${ms(quantile(xs, 0.99))} | ${ms(Math.max(...xs))} |`);
      row('mutation sent → all nodes serve it (upper bound of commit → all)', fromSend);
      row('mutation answered → all nodes serve it', fromAnswer);
      row('mutation sent → first node serves it', firstNode);
    }
    console.log(`\nRevalidation (304), ${ROUNDS} rounds × ${DURATION} s, 50 connections`);
    console.log(
      '| server | req/s (median of rounds) | p50 ms | p99 ms | CPU µs/req | Redis GETs/req | ratio to bare | ratio to bare+Redis (per round, median) |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    const bareRps = median(runs.bare.map((r) => r.rps));
    for (const name of ['bare', 'bareRedis', 'product'] as const) {
      const rps = median(runs[name].map((r) => r.rps));
      const toFloor = median(runs[name].map((r, i) => r.rps / runs.bareRedis[i].rps));
      console.log(
        `| ${name} | ${Math.round(rps)} | ${median(runs[name].map((r) => r.p50))} | ${median(runs[name].map((r) => r.p99))} | ${median(runs[name].map((r) => r.cpuUs))} | ${median(runs[name].map((r) => r.gets))} | ${(rps / bareRps).toFixed(2)} | ${toFloor.toFixed(2)} |`,
      );
    }
    console.log(`rounds: ${JSON.stringify(runs)}`);
    console.log(
      `load average at start / end: ${loadAtStart} / ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await Promise.all(nodes.map((n) => n.stop()));
    // The control plane first gets to exit on its own (a --cpu-prof profile is written at exit).
    const cp = children[0];
    if (cp && cp.exitCode === null) {
      const exited = new Promise((resolve) => cp.once('exit', resolve));
      cp.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    }
    for (const c of children) c.kill('SIGKILL');
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
    await db.drop();
  }
}
