/**
 * A node's CPU per apply, in one process (issue 18). Run after `npm run build`:
 * `flock /tmp/bench.lock npx tsx test/bench/node-apply.bench.ts`. Env: BENCH_NODES (50),
 * BENCH_CHANGES (10), BENCH_ROUNDS (2), BENCH_PROFILE (a .cpuprofile path: profile the measured
 * changes of the last round, and print the top self-time functions).
 *
 * The real control plane (dist/apps/control-plane) on a private redis-server and a fresh database;
 * BENCH_NODES NodeSync instances in THIS process, so process.cpuUsage() is their CPU. Per change
 * (a GraphQL updateAgent), each node fetches its delta, rebuilds, checks, verifies, swaps, writes
 * disk and acks; CPU is counted from the mutation until every node serves it plus a quiet 300 ms
 * (the disk writes and acks finish in it; every ack is then checked in the database).
 *
 * The baseline, alternating with the product in the same run: as many bare ioredis subscribers
 * in this process, each doing the propagation floor's work per PUBLISH (one `fetch` GET of the
 * agent's full bundle bytes from a bare Fastify).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { Redis } from 'ioredis';
import { PrismaPg } from '@prisma/adapter-pg';
import { mintAdminToken, mintNodeToken } from '@cp/auth';
import { loadConfig } from '@cp/common';
import { seedWhenEmpty } from '@cp/db';
import { NodeSync } from '@cp/node-sdk';
import { PrismaClient } from '../../prisma/generated/client';
import { createTestDatabase } from '../support/test-database';
import { freePort } from '../support/free-port';
import { startBuiltControlPlane } from '../support/bench-control-plane';
import { updateAgentDescription } from '../support/bench-mutations';
import { startPrivateRedis } from '../support/redis-server';

const ROOT = join(__dirname, '..', '..');
const AGENT = 'finance-agent';
const NODES = Number(process.env.BENCH_NODES ?? 50);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const PROFILE = process.env.BENCH_PROFILE;
const progress = (message: string) => process.stderr.write(`[node-apply bench] ${message}\n`);
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const sysMs = () => process.cpuUsage().system / 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
};

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** Self time by function (and by package), from a V8 CPU profile. */
function summarize(profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n] as const));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const byFn = new Map<string, number>();
  const byArea = new Map<string, number>();
  for (const [id, us] of self) {
    const f = byId.get(id)!.callFrame;
    const url = f.url.replace(/^file:\/\//, '').replace(ROOT + '/', '');
    const area =
      /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? (url.startsWith('node:') ? url : url.split('/').slice(0, 3).join('/')) ?? '';
    byFn.set(
      `${f.functionName || '(anonymous)'} ${url}:${f.lineNumber + 1}`,
      (byFn.get(`${f.functionName || '(anonymous)'} ${url}:${f.lineNumber + 1}`) ?? 0) + us,
    );
    byArea.set(area || f.functionName, (byArea.get(area || f.functionName) ?? 0) + us);
  }
  const top = (m: Map<string, number>, k: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([name, us]) => `${((100 * us) / total).toFixed(1).padStart(5)}%  ${name}`)
      .join('\n');
  return `by area:\n${top(byArea, 25)}\n\nby function (self):\n${top(byFn, 40)}`;
}

async function main(): Promise<void> {
  const redisServer = await startPrivateRedis();
  const db = await createTestDatabase('bench_node_apply');
  const prefix = 'bench:apply:';
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: db.url, REDIS_URL: redisServer.url, REDIS_KEY_PREFIX: prefix });
  const prisma = new PrismaClient({
    adapter: new PrismaPg({ connectionString: db.url }),
    transactionOptions: { maxWait: 30_000, timeout: 60_000 },
  });
  const redis = new Redis(redisServer.url);
  const dir = mkdtempSync(join(tmpdir(), 'bench-apply-'));
  const children: ChildProcess[] = [];
  const loadBefore = readFileSync('/proc/loadavg', 'utf8').trim();
  let nodes: NodeSync[] = [];
  const subs: Redis[] = [];
  try {
    await seedWhenEmpty(prisma);
    const { url } = await startBuiltControlPlane(
      { NODE_ENV: 'test', LOG_LEVEL: 'warn', DATABASE_URL: db.url, REDIS_URL: redisServer.url, REDIS_KEY_PREFIX: prefix },
      children,
    );
    const token = mintNodeToken(config, AGENT);
    const admin = mintAdminToken(config, 'bench', ['platform-admin']);
    let revision = (await prisma.agent.findUniqueOrThrow({ where: { id: AGENT } })).revision;
    const mutate = async (i: number): Promise<void> => {
      revision = await updateAgentDescription(url, admin, {
        agentId: AGENT,
        expectedRevision: revision,
        description: `Change number ${i} of the bench.`,
      });
    };

    // The bare baseline's server and subscribers.
    const bundleBytes = await (await fetch(`${url}/node/v1/bundle`, { headers: { authorization: `Bearer ${token}` } })).text();
    const bare = Fastify();
    bare.get('/bundle', (_req, reply) => reply.header('content-type', 'application/json').send(bundleBytes));
    const barePort = await freePort();
    await bare.listen({ port: barePort, host: '127.0.0.1' });
    const channel = `${prefix}floor`;
    let floorDone: (() => void) | undefined;
    let floorGot = 0;
    for (let i = 0; i < NODES; i++) {
      const sub = new Redis(redisServer.url, { lazyConnect: true });
      sub.on('message', () => {
        void fetch(`http://127.0.0.1:${barePort}/bundle`)
          .then((r) => r.text())
          .then(() => {
            if (++floorGot === NODES) floorDone?.();
          });
      });
      await sub.subscribe(channel);
      subs.push(sub);
    }

    // The product's nodes.
    nodes = Array.from(
      { length: NODES },
      (_, i) =>
        new NodeSync({
          controlPlaneUrl: url,
          nodeToken: token,
          agentId: AGENT,
          nodeId: `apply-${i}`,
          cacheDir: join(dir, `node-${i}`),
          redisUrl: redisServer.url,
          redisKeyPrefix: prefix,
          pollIntervalMs: 120_000,
          heartbeatIntervalMs: 120_000,
          requestTimeoutMs: 60_000,
        }),
    );
    for (let i = 0; i < nodes.length; i += 25) await Promise.all(nodes.slice(i, i + 25).map((n) => n.start()));
    await Promise.all(nodes.map((n) => n.whenReady(120_000)));
    progress(`${NODES} nodes serve; measuring`);

    /** Until every node serves `target`, then a quiet 300 ms for the disk writes and acks (no DB polling inside the CPU window). */
    const allServe = async (target: number) => {
      for (let i = 0; i < 6000 && !nodes.every((n) => n.current()?.revision === target); i++) await sleep(5);
      await sleep(300);
    };
    const everyAck = async (target: number) => {
      for (let i = 0; i < 100; i++) {
        const acked = await prisma.node.count({ where: { agentId: AGENT, id: { startsWith: 'apply-' }, appliedRevision: target } });
        if (acked === NODES) return;
        await sleep(50);
      }
      throw new Error(`revision ${target} not acked by every node`);
    };
    const productSys: number[] = [];
    const productChange = async (i: number) => {
      const c0 = cpuMs();
      const s0 = sysMs();
      await mutate(i);
      await allServe(revision);
      const perNode = (cpuMs() - c0) / NODES;
      productSys.push((sysMs() - s0) / NODES);
      await everyAck(revision);
      return perNode;
    };
    const floorChange = async (i: number) => {
      const c0 = cpuMs();
      floorGot = 0;
      const done = new Promise<void>((r) => (floorDone = r));
      await redis.publish(channel, String(i));
      await done;
      return (cpuMs() - c0) / NODES;
    };
    for (let i = 0; i < 2; i++) {
      await productChange(i);
      await floorChange(i);
    }

    const product: number[] = [];
    const floor: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const session = PROFILE && round === ROUNDS - 1 ? new Session() : undefined;
      if (session) {
        session.connect();
        await session.post('Profiler.enable');
        await session.post('Profiler.setSamplingInterval', { interval: 200 });
        await session.post('Profiler.start');
      }
      for (let i = 0; i < CHANGES; i++) {
        product.push(await productChange(100 + round * CHANGES + i));
        await sleep(50);
      }
      if (session) {
        const { profile } = await session.post('Profiler.stop');
        writeFileSync(PROFILE!, JSON.stringify(profile));
        console.log(summarize(profile as never));
        session.disconnect();
      }
      for (let i = 0; i < CHANGES; i++) {
        floor.push(await floorChange(100 + i));
        await sleep(50);
      }
    }
    const f2 = (x: number) => x.toFixed(2);
    console.log(`\n${NODES} nodes in one process, ${ROUNDS} rounds × ${CHANGES} changes`);
    console.log('| | CPU ms per node per change p50 | p90 | mean |');
    console.log('|---|---:|---:|---:|');
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    console.log(
      `| product (delta GET, apply, verify, disk, ack) | ${f2(quantile(product, 0.5))} | ${f2(quantile(product, 0.9))} | ${f2(mean(product))} |`,
    );
    console.log(
      `| baseline (one fetch GET of the full bundle) | ${f2(quantile(floor, 0.5))} | ${f2(quantile(floor, 0.9))} | ${f2(mean(floor))} |`,
    );
    console.log(`product: of which system (kernel) CPU p50 ${f2(quantile(productSys.slice(2), 0.5))} ms`);
    console.log(`ratio p50: ${(quantile(product, 0.5) / quantile(floor, 0.5)).toFixed(2)}`);
    console.log(`load average before/after: ${loadBefore} / ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
    await bare.close();
  } finally {
    await Promise.all(nodes.map((n) => n.stop().catch(() => undefined)));
    for (const s of subs) s.disconnect();
    for (const c of children) c.kill('SIGKILL');
    redis.disconnect();
    await prisma.$disconnect();
    await redisServer.stop();
    rmSync(dir, { recursive: true, force: true });
    await db.drop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
