/**
 * What a promotion of a clarification costs (issue 31 §7), each path beside its floor in the same
 * run. Run after `npm run build` (the control plane is dist/apps/control-plane):
 *   npx tsx test/bench/promotion-latency.bench.ts
 *
 * The built control plane with CLARIFICATION_AUTO_PROMOTE_AFTER=2 on a private redis-server and a
 * fresh database; the back-office agent of test/fixtures/routing-eval seeded in the database as in
 * routing-learning.bench.ts; one real NodeSync that fetches and applies every revision announced
 * (as in production, and as in that bench). Each round runs, in an order rotated every round:
 *   - promote: `promoteRoutingClarification` of a pending clarification (admin, GraphQL);
 *   - dismiss: `dismissRoutingClarification` of another (the same round trip, token and write
 *     check, one minimal write): the admin floor;
 *   - auto: the node's second identical report of a clarification (POST /node/v1/clarifications),
 *     which the control plane promotes (ADR 0336);
 *   - report: a report of a text never reported (recorded, nothing promoted): the automatic floor.
 * Every promotion is checked: the revision moves by one, the answer names it.
 *
 * BENCH_BASE=<dir>: the same rounds against a second control plane, the build in <dir> (e.g. the
 * commit before a change: `git archive <commit> | tar -x -C <dir>`, node_modules linked, built),
 * with its own database, Redis prefix and node; each round runs both, their order alternating, and
 * the table gives each path's ratio to the same path of that build too.
 *
 * Besides wall time, the control plane's CPU time over each request (/proc/<pid>/stat, 10 ms ticks,
 * so only its mean means anything) is printed: under a busy machine it moves far less than wall time.
 *
 * BENCH_ROUNDS (default 40). BENCH_CPU_PROF=<dir>: the control plane runs with --cpu-prof into
 * <dir> (written when the bench stops it with SIGINT). BENCH_NODE=0: no NodeSync. BENCH_SPANS=1: the
 * control plane exports its spans (OTLP/HTTP JSON) to a collector in this process, and the p50 of
 * each span name is printed per path (tracing costs time of its own: a breakdown, not a figure).
 */
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import { mintAdminToken, mintNodeToken } from '@cp/auth';
import { LexicalClassifier } from '@cp/capabilities';
import { loadConfig } from '@cp/common';
import type { NodeSync } from '@cp/node-sdk';
import { PrismaClient } from '../../prisma/generated/client';
import { startBenchNode, startBuiltControlPlane } from '../support/bench-control-plane';
import { storeSnapshot } from '../support/given-db';
import { startPrivateRedis } from '../support/redis-server';
import { createTestDatabase } from '../support/test-database';
import { tuningClarifications } from '../support/routing-eval/learning';
import { loadEvalSet, type EvalSet } from '../support/routing-eval/routing-eval';

const TENANT = 'bench-tenant';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
const WITH_NODE = process.env.BENCH_NODE !== '0';
const BASE = process.env.BENCH_BASE;
const SPANS = process.env.BENCH_SPANS === '1';

interface Span {
  traceId: string;
  name: string;
  ms: number;
}

/** An OTLP/HTTP JSON trace receiver on a free port: every span it is sent. */
async function spanCollector(): Promise<{ url: string; spans: Span[]; close(): void }> {
  const spans: Span[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      type Otlp = {
        resourceSpans?: {
          scopeSpans?: { spans?: { traceId: string; name: string; startTimeUnixNano: string; endTimeUnixNano: string }[] }[];
        }[];
      };
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Otlp;
      for (const r of body.resourceSpans ?? [])
        for (const s of r.scopeSpans ?? [])
          for (const span of s.spans ?? [])
            spans.push({
              traceId: span.traceId,
              name: span.name,
              ms: Number(BigInt(span.endTimeUnixNano) - BigInt(span.startTimeUnixNano)) / 1e6,
            });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, spans, close: () => server.close() };
}
/** A child process's CPU time so far (user + system, /proc/<pid>/stat, in ms). */
function cpuMs(child: ChildProcess): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}
const CLOCK_TICKS = 100;
const progress = (message: string) => process.stderr.write(`[promotion-latency bench] ${message}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const LIST = `query($agentId: String!) { routingClarifications(agentId: $agentId, status: "pending") { id text } }`;
const DISMISS = `mutation($id: ID!) { dismissRoutingClarification(id: $id) { id } }`;
const PROMOTE = `mutation($input: PromoteClarificationInput!) { promoteRoutingClarification(input: $input) { revision } }`;

type Path = 'promote' | 'dismiss' | 'auto' | 'report';
const PATHS: Path[] = ['promote', 'dismiss', 'auto', 'report'];

/** One control plane under test: its database, node, tokens, and what the rounds need of it. */
interface Target {
  label: string;
  url: string;
  run: Record<Path, (i: number) => Promise<void>>;
  ms: Record<Path, number[]>;
  /** The control plane's CPU time (user + system, ms) over each timed request. */
  cpu: Record<Path, number[]>;
  /** Waits until its node serves the control plane's revision. */
  settle(): Promise<void>;
  traceOf: Map<string, Path>;
  child: ChildProcess;
  close(): Promise<void>;
}

async function main(): Promise<void> {
  const set = loadEvalSet();
  const redisServer = await startPrivateRedis();
  const dir = mkdtempSync(join(tmpdir(), 'bench-promotion-'));
  const children: ChildProcess[] = [];
  const targets: Target[] = [];
  const loadBefore = readFileSync('/proc/loadavg', 'utf8').trim();
  const collector = SPANS ? await spanCollector() : undefined;
  // --cpu-prof writes its profile at a normal exit only: the first SIGINT listener exits so (Nest's re-raises the signal).
  const exitOnSigint = join(dir, 'exit-on-sigint.cjs');
  writeFileSync(exitOnSigint, "process.once('SIGINT', () => process.exit(0));\n");
  try {
    targets.push(await target('this build', set, redisServer.url, dir, children, collector, exitOnSigint));
    if (BASE) targets.push(await target('base', set, redisServer.url, dir, children, collector, exitOnSigint, BASE));

    for (const i of [...Array(ROUNDS).keys()]) {
      for (const t of i % 2 === 0 ? targets : [...targets].reverse()) {
        for (const path of PATHS.map((_, k) => PATHS[(k + i) % PATHS.length])) {
          const c0 = cpuMs(t.child);
          const t0 = performance.now();
          await t.run[path](i);
          t.ms[path].push(performance.now() - t0);
          t.cpu[path].push(cpuMs(t.child) - c0);
        }
        await t.settle();
      }
      if (i % 10 === 9) progress(`${i + 1} rounds`);
    }

    const quantile = (xs: number[], p: number) => {
      const sorted = [...xs].sort((a, b) => a - b);
      return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? NaN;
    };
    const at = new Date().toISOString().slice(0, 16).replace('T', ' ');
    console.log(`\n${ROUNDS} rounds, ${set.snapshot.manifests.length} manifests, node ${WITH_NODE ? 'on' : 'off'}, ${at} UTC`);
    console.log('| build | path | p50 ms | p90 ms | p99 ms | p50 / floor | p90 / floor | p50 / base | p90 / base |');
    console.log('|---|---|--:|--:|--:|--:|--:|--:|--:|');
    const floorOf: Record<Path, Path> = { promote: 'dismiss', dismiss: 'dismiss', auto: 'report', report: 'report' };
    const base = targets.find((t) => t.label === 'base');
    for (const t of targets)
      for (const path of PATHS) {
        const [p50, p90, p99] = [0.5, 0.9, 0.99].map((p) => quantile(t.ms[path], p));
        const f = t.ms[floorOf[path]];
        const vsBase =
          base && base !== t ? [0.5, 0.9].map((p) => `${(quantile(t.ms[path], p) / quantile(base.ms[path], p)).toFixed(2)}×`) : ['', ''];
        console.log(
          `| ${t.label} | ${path} | ${p50.toFixed(1)} | ${p90.toFixed(1)} | ${p99.toFixed(1)} | ${(p50 / quantile(f, 0.5)).toFixed(1)}× | ${(p90 / quantile(f, 0.9)).toFixed(1)}× | ${vsBase.join(' | ')} |`,
        );
      }
    // CPU time is what the load of other processes changes least: the control plane's own work per request.
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);
    console.log('\n| build | path | control-plane CPU ms per request (mean) | / floor | / base |\n|---|---|--:|--:|--:|');
    for (const t of targets)
      for (const path of PATHS) {
        const cpu = mean(t.cpu[path]);
        const vsBase = base && base !== t ? `${(cpu / mean(base.cpu[path])).toFixed(2)}×` : '';
        console.log(`| ${t.label} | ${path} | ${cpu.toFixed(1)} | ${(cpu / mean(t.cpu[floorOf[path]])).toFixed(1)}× | ${vsBase} |`);
      }
    if (collector) {
      await sleep(7000); // the BatchSpanProcessor exports every 5 s
      const byPath = new Map<string, number[]>();
      for (const span of collector.spans)
        for (const t of targets) {
          const path = t.traceOf.get(span.traceId);
          if (path)
            byPath.set(`${t.label}\u0000${path}\u0000${span.name}`, [
              ...(byPath.get(`${t.label}\u0000${path}\u0000${span.name}`) ?? []),
              span.ms,
            ]);
        }
      console.log('\n| build | path | span | count | p50 ms | p90 ms |\n|---|---|---|--:|--:|--:|');
      for (const [k, xs] of [...byPath].sort())
        console.log(
          `| ${k.split('\u0000').join(' | ')} | ${xs.length} | ${quantile(xs, 0.5).toFixed(1)} | ${quantile(xs, 0.9).toFixed(1)} |`,
        );
    }
    console.log(`load average before/after: ${loadBefore} / ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
    if (PROFILE_DIR)
      for (const t of targets) {
        t.child.kill('SIGINT');
        await new Promise((r) => t.child.once('exit', r));
      }
  } finally {
    for (const t of targets) await t.close().catch(() => undefined);
    for (const c of children) c.kill('SIGKILL');
    collector?.close();
    await redisServer.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A control plane (this build's, or the one in `baseDir`) on a database of its own, seeded, with its node and its rounds. */
async function target(
  label: string,
  set: EvalSet,
  redisUrl: string,
  dir: string,
  children: ChildProcess[],
  collector: Awaited<ReturnType<typeof spanCollector>> | undefined,
  exitOnSigint: string,
  baseDir?: string,
): Promise<Target> {
  const agentId = set.snapshot.agentId;
  const db = await createTestDatabase(baseDir ? 'bench_promotion_base' : 'bench_promotion_latency');
  const prefix = baseDir ? 'bench:promotion-base:' : 'bench:promotion:';
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: db.url, REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix });
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: db.url }) });
  let node: NodeSync | undefined;
  const close = async () => {
    await node?.stop().catch(() => undefined);
    await prisma.$disconnect();
    await db.drop();
  };
  try {
    await storeSnapshot(prisma, agentId, set.snapshot);

    const { url, child } = await startBuiltControlPlane(
      {
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        DATABASE_URL: db.url,
        REDIS_URL: redisUrl,
        REDIS_KEY_PREFIX: prefix,
        CLARIFICATION_AUTO_PROMOTE_AFTER: '2',
        CONTROL_PLANE_METRICS_PORT: '0',
        ...(collector ? { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' } : {}),
      },
      children,
      {
        nodeArgs: PROFILE_DIR ? ['--require', exitOnSigint, '--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [],
        ...(baseDir ? { main: join(baseDir, 'dist/apps/control-plane/src/main.js') } : {}),
      },
    );
    const nodeToken = mintNodeToken(config, agentId);
    const admin = mintAdminToken(config, 'bench', ['team-admin'], [set.snapshot.manifests[0].owner]);
    if (WITH_NODE) {
      node = await startBenchNode({
        controlPlaneUrl: url,
        nodeToken,
        agentId,
        nodeId: `promotion-node-${baseDir ? 'base' : 'this'}`,
        cacheDir: join(dir, baseDir ? 'node-base' : 'node'),
        redisUrl,
        redisKeyPrefix: prefix,
      });
    }

    // With BENCH_SPANS, each timed request names a trace of its own, so its spans are told apart by path.
    const traceOf = new Map<string, Path>();
    let current: Path | undefined;
    const traced = (headers: Record<string, string>) => {
      if (!collector || !current) return headers;
      const traceId = randomBytes(16).toString('hex');
      traceOf.set(traceId, current);
      return { ...headers, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` };
    };
    const graphql = async <T>(query: string, variables: Record<string, unknown>): Promise<T> => {
      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: traced({ 'content-type': 'application/json', authorization: `Bearer ${admin}` }),
        body: JSON.stringify({ query, variables }),
      });
      const body = (await res.json()) as { data?: T; errors?: unknown };
      if (!body.data || body.errors) throw new Error(`GraphQL refused: ${JSON.stringify(body.errors).slice(0, 600)}`);
      return body.data;
    };
    const report = async (choices: { text: string; capabilityId: string }[]) => {
      const res = await fetch(`${url}/node/v1/clarifications`, {
        method: 'POST',
        headers: traced({ 'content-type': 'application/json', authorization: `Bearer ${nodeToken}` }),
        body: JSON.stringify({ choices: choices.map((c) => ({ ...c, tenant: TENANT })) }),
      });
      if (res.status !== 202) throw new Error(`report refused: ${res.status} ${await res.text()}`);
      return (await res.json()) as { autoPromoted: { revision: number }[]; notPromoted: { reason: string }[] };
    };

    // Texts the tuning half's clarifications give, one per path and round (marked, so each is a row of its own).
    const clarifications = tuningClarifications(set, new LexicalClassifier());
    const text = (path: Path, i: number) => {
      const c = clarifications[i % clarifications.length];
      return { text: `${c.text} (${path} ${i})`, capabilityId: c.capabilityId };
    };
    // Pending rows for the admin paths, and the first answer of each text the node answers twice (round ROUNDS: the warm-up).
    const rounds = [...Array(ROUNDS + 1).keys()];
    for (let from = 0; from < rounds.length; from += 30)
      await report(rounds.slice(from, from + 30).flatMap((i) => [text('promote', i), text('dismiss', i), text('auto', i)]));
    const listed = (await graphql<{ routingClarifications: { id: string; text: string }[] }>(LIST, { agentId })).routingClarifications;
    const idOf = new Map(listed.map((r) => [r.text, r.id]));
    const id = (path: Path, i: number) => {
      const found = idOf.get(text(path, i).text);
      if (!found) throw new Error(`clarification "${text(path, i).text}" was not listed`);
      return found;
    };

    let revision = (await prisma.agent.findUniqueOrThrow({ where: { id: agentId } })).revision;
    const run: Record<Path, (i: number) => Promise<void>> = {
      promote: async (i) => {
        const done = await graphql<{ promoteRoutingClarification: { revision: number } }>(PROMOTE, {
          input: { id: id('promote', i), as: 'EXAMPLE', expectedRevision: revision },
        });
        if (done.promoteRoutingClarification.revision !== revision + 1) throw new Error('promote did not make one revision');
        revision++;
      },
      dismiss: async (i) => {
        await graphql(DISMISS, { id: id('dismiss', i) });
      },
      auto: async (i) => {
        const outcome = await report([text('auto', i)]);
        if (outcome.autoPromoted[0]?.revision !== revision + 1)
          throw new Error(`the second answer was not promoted: ${JSON.stringify(outcome).slice(0, 400)}`);
        revision++;
      },
      report: async (i) => {
        const outcome = await report([text('report', i)]);
        if (outcome.autoPromoted.length + outcome.notPromoted.length > 0) throw new Error('a first answer was promoted');
      },
    };
    const settle = async () => {
      if (WITH_NODE) for (let k = 0; k < 2000 && node!.current()?.revision !== revision; k++) await sleep(5);
    };
    const timed: Record<Path, (i: number) => Promise<void>> = { ...run };
    for (const path of PATHS)
      timed[path] = async (i) => {
        current = path;
        try {
          await run[path](i);
        } finally {
          current = undefined;
        }
      };
    // One warm-up round (JIT, connection pools), not counted.
    for (const path of PATHS) await run[path](ROUNDS);
    await settle();
    progress(`${label}: ready at revision ${revision}`);
    return {
      label,
      url,
      run: timed,
      ms: { promote: [], dismiss: [], auto: [], report: [] },
      cpu: { promote: [], dismiss: [], auto: [], report: [] },
      settle,
      traceOf,
      child,
      close,
    };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
