/**
 * Benchmark of the admin API's list query (issue 4): `manifests(first: 100)` with each
 * manifest's usage, at 20 concurrent clients, against the BUILT control plane.
 *
 *   npx nest build control-plane && npx tsx test/bench/admin-list.bench.ts
 *   (or `npm run bench admin-list`, which builds first)
 *   BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the control plane under the load.
 *   BENCH_VARIANT_ENV="NAME=value ..." also starts a control plane with those settings and measures
 *   it in the same rounds (baseline, product, variant), for an experiment behind a switch.
 *   BENCH_VARIANT_MAIN=/path/to/dist/apps/control-plane/src/main.js: the variant runs that build
 *   instead (e.g. the commit before a change, built elsewhere), for a before/after in one run.
 *
 * It creates its own database (dropped at the end): 1 agent × 1,000 manifests, 30 days of usage
 * for every manifest (30,000 buckets). It starts `node dist/apps/control-plane/src/main.js` on a
 * free port, and side by side a BASELINE: a bare node:http server (also a child process) that
 * answers the same page with the same two SQL statements through pg directly (page of 100
 * manifests + one GROUP BY for their usage) and JSON.stringify: no Nest, GraphQL, auth, Prisma.
 * Rounds interleave baseline and product (the VM has fast and slow phases); the ratio matters.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { processCpuSeconds } from '../support/process-cpu';
import { join } from 'node:path';
// @ts-expect-error autocannon ships no type declarations; `load` below types what we use.
import autocannonUntyped from 'autocannon';
import { Client, Pool } from 'pg';
import { generateKeyRingEntry, mintAdminToken } from '@cp/auth';
import { loadConfig } from '@cp/common';
import { migrate } from '@cp/db';
import { addUsage, createAgents, createManifests, createNodes, DAY_MS } from '../support/given-sql';

const MANIFESTS = 1_000;
const DAYS = 30;
const CONNECTIONS = 20;
const DURATION_S = 10;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const AGENT = 'bench-agent';
const capId = (i: number) => `cap-${String(i).padStart(5, '0')}`;
const ADMIN_URL = process.env.BENCH_DATABASE_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

const PAGE_SQL = `SELECT m."agentId", m."capabilityId", m.state, m.visibility, m.skill
  FROM "CapabilityManifest" m JOIN "Agent" a ON a.id = m."agentId"
 WHERE m."agentId" = $1 ORDER BY m."agentId", m."capabilityId" LIMIT 101`;
const USAGE_SQL = `SELECT "capabilityId", SUM(count)::bigint AS calls, MAX("lastCallAt") AS "lastCallAt"
  FROM "UsageBucket" WHERE "agentId" = $1 AND "capabilityId" = ANY($2::text[]) GROUP BY "capabilityId"`;
const QUERY = `query($agentId: String!) { manifests(filter: {agentId: $agentId}, page: {first: 100}) {
  nodes { id state visibility skill { name } usage { calls lastCallAt } } pageInfo { hasNextPage endCursor } } }`;

/** Child mode: the baseline server. */
async function baselineServer(databaseUrl: string): Promise<void> {
  const pool = new Pool({ connectionString: databaseUrl, max: 10 });
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      answerPage(pool, res).catch((error: unknown) => {
        process.stderr.write(`baseline: ${error instanceof Error ? error.message : 'query failed'}\n`);
        res.writeHead(500).end();
      });
    });
  });
  // The pid: tsx may run the file in a child of the process the bench spawned, and CPU is read per pid.
  server.listen(0, '127.0.0.1', () => process.stdout.write(`LISTENING ${(server.address() as { port: number }).port} ${process.pid}\n`));
}

async function answerPage(pool: Pool, res: ServerResponse): Promise<void> {
  const page = await pool.query(PAGE_SQL, [AGENT]);
  const rows = page.rows.slice(0, 100);
  const usage = await pool.query(USAGE_SQL, [AGENT, rows.map((r) => r.capabilityId)]);
  const byId = new Map(usage.rows.map((u) => [u.capabilityId, u]));
  const nodes = rows.map((r) => {
    const u = byId.get(r.capabilityId);
    return {
      id: r.capabilityId,
      state: r.state,
      visibility: r.visibility,
      skill: { name: r.skill.name },
      usage: { calls: Number(u?.calls ?? 0), lastCallAt: u?.lastCallAt ?? null },
    };
  });
  const body = JSON.stringify({
    data: { manifests: { nodes, pageInfo: { hasNextPage: page.rows.length > 100, endCursor: rows.at(-1)?.capabilityId } } },
  });
  res.writeHead(200, { 'content-type': 'application/json' }).end(body);
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createNetServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

async function seed(url: string): Promise<void> {
  await migrate(url);
  const pg = new Client({ connectionString: url });
  await pg.connect();
  try {
    await createAgents(pg, [AGENT], 'bench-team');
    await createManifests(
      pg,
      Array.from({ length: MANIFESTS }, (_, i) => ({
        agentId: AGENT,
        capabilityId: capId(i),
        state: 'ga' as const,
        visibility: 'extended' as const,
        skill: { name: `Capability ${i}`, description: `Does thing ${i}.`, tags: ['bench'] },
        handler: `bench.v1.h${i}`,
        teamId: 'bench-team',
      })),
    );
    await createNodes(pg, [{ id: 'bench-node', agentId: AGENT, registeredAt: new Date() }]);
    const now = Date.now();
    await addUsage(
      pg,
      Array.from({ length: MANIFESTS * DAYS }, (_, k) => {
        const [i, d] = [Math.floor(k / DAYS), (k % DAYS) + 1];
        return {
          agentId: AGENT,
          capabilityId: capId(i),
          tenantId: 'acme',
          nodeId: 'bench-node',
          lastCallAt: new Date(now - d * DAY_MS),
          count: (i % 17) + d,
        };
      }),
    );
    await pg.query('ANALYZE');
  } finally {
    await pg.end();
  }
}

function start(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: (line: string) => boolean,
): Promise<{ child: ChildProcess; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (ready(out)) resolve({ child, output: out });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${command} exited with ${code}:\n${out.slice(-2000)}`)));
  });
}

async function waitForHttp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

type AutocannonResult = {
  non2xx: number;
  errors: number;
  latency: { p50: number; p99: number };
  requests: { average: number; total: number };
};
const autocannon = autocannonUntyped as (options: Record<string, unknown>) => Promise<AutocannonResult>;

/** CPU time (ms) a process has used so far (test/support/process-cpu.ts). */
const cpuMs = (pid: number) => processCpuSeconds(pid) * 1000;

/** Statements committed in the bench database so far (each autocommit statement is one transaction). */
let commits: () => Promise<number> = () => Promise.resolve(0);

async function load(url: string, headers: Record<string, string>, body: string, pid: number) {
  const before = await commits();
  const cpuBefore = cpuMs(pid);
  const result = await autocannon({ url, method: 'POST', headers, body, connections: CONNECTIONS, duration: DURATION_S });
  const cpuPerRequest = (cpuMs(pid) - cpuBefore) / result.requests.total;
  if (result.non2xx || result.errors) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  // pg_stat_database is updated asynchronously (at most every 500 ms by default): let it settle.
  await new Promise((r) => setTimeout(r, 1500));
  const sqlPerRequest = (await commits()) - before;
  return {
    p50: result.latency.p50,
    p99: result.latency.p99,
    rps: result.requests.average,
    cpuMsPerRequest: Number(cpuPerRequest.toFixed(2)),
    txPerRequest: Number((sqlPerRequest / result.requests.total).toFixed(2)),
  };
}

async function main(): Promise<void> {
  const name = `cp_bench_admin_list_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  commits = async () => {
    await admin.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await admin.query<{ n: string }>('SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1', [
      name,
    ]);
    return Number(rows[0]?.n ?? 0);
  };
  const children: ChildProcess[] = [];
  try {
    await seed(databaseUrl);
    const port = await freePort();
    const env = {
      ...process.env,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      DATABASE_URL: databaseUrl,
      CONTROL_PLANE_PORT: String(port),
      // A free metrics port too: the default (9300) may be another process's on a shared machine.
      CONTROL_PLANE_METRICS_PORT: String(await freePort()),
      HOST: '127.0.0.1',
      JWT_SECRET: randomBytes(32).toString('hex'),
      // Production refuses a generated development key (ADR 0130): a key ring of its own.
      SIGNING_KEYS: JSON.stringify({ keys: [generateKeyRingEntry('bench-admin-list')] }),
      REDIS_KEY_PREFIX: `bench:admin-list:${process.pid}:`,
    };
    const config = loadConfig(env);
    // LOG_LEVEL=warn keeps request logs out of the measurement, so readiness is polled, not read from the log.
    // BENCH_NODE_ARGS: extra node flags for the control plane, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile it.
    const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const cp = spawn(process.execPath, [...nodeArgs, join('dist', 'apps', 'control-plane', 'src', 'main.js')], {
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    children.push(cp);
    await waitForHttp(`http://127.0.0.1:${port}/healthz`);
    // BENCH_VARIANT_ENV="NAME=value ...": a second control plane with these settings, measured in the
    // same rounds (an experiment's switch against the default, as for ADR 196), so the two compare within one run.
    const variantEnv = Object.fromEntries(
      (process.env.BENCH_VARIANT_ENV ?? '')
        .split(' ')
        .filter(Boolean)
        .map((pair) => pair.split('=') as [string, string]),
    );
    const variantMain = process.env.BENCH_VARIANT_MAIN;
    const variantName = `admin GraphQL (${[process.env.BENCH_VARIANT_ENV, variantMain].filter(Boolean).join(', ')})`;
    let variant: { port: number; pid: number } | undefined;
    if (Object.keys(variantEnv).length || variantMain) {
      const variantPort = await freePort();
      const child = spawn(process.execPath, [variantMain ?? join('dist', 'apps', 'control-plane', 'src', 'main.js')], {
        env: {
          ...env,
          ...variantEnv,
          CONTROL_PLANE_PORT: String(variantPort),
          CONTROL_PLANE_METRICS_PORT: String(await freePort()),
          REDIS_KEY_PREFIX: `${env.REDIS_KEY_PREFIX}variant:`,
        },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      children.push(child);
      await waitForHttp(`http://127.0.0.1:${variantPort}/healthz`);
      variant = { port: variantPort, pid: child.pid! };
    }
    const baseline = await start(
      process.execPath,
      [require.resolve('tsx/cli'), __filename, '--baseline-server', databaseUrl],
      process.env,
      (out) => /LISTENING \d+ \d+/.test(out),
    );
    children.push(baseline.child);
    const [, baselinePort, baselinePid] = /LISTENING (\d+) (\d+)/.exec(baseline.output)!.map(Number);

    const token = mintAdminToken(config, 'bench', ['viewer']);
    const product = {
      url: `http://127.0.0.1:${port}/graphql`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: QUERY, variables: { agentId: AGENT } }),
    };
    // Sanity: the product answers 100 manifests with usage.
    const probe = (await (await fetch(product.url, { method: 'POST', headers: product.headers, body: product.body })).json()) as {
      data?: { manifests: { nodes: { usage: { calls: number } }[] } };
    };
    if (probe.data?.manifests.nodes.length !== 100 || !(probe.data.manifests.nodes[1].usage.calls > 0))
      throw new Error(`unexpected answer: ${JSON.stringify(probe).slice(0, 500)}`);
    // Later answers must be the first's, byte for byte (an executor that changes with repetition, ADR 196, must not show).
    const answer = (url: string) => fetch(url, { method: 'POST', headers: product.headers, body: product.body }).then((r) => r.text());
    const first = await answer(product.url);
    for (let i = 0; i < 3; i++) if ((await answer(product.url)) !== first) throw new Error('a repeated answer differs from the first');
    const bare = { url: `http://127.0.0.1:${baselinePort}/`, headers: { 'content-type': 'application/json' }, body: '{}' };

    await load(bare.url, bare.headers, bare.body, baselinePid); // warm-up both, discarded
    await load(product.url, product.headers, product.body, cp.pid!);
    const variantUrl = variant && `http://127.0.0.1:${variant.port}/graphql`;
    if (variantUrl && (await answer(variantUrl)) !== first) throw new Error('the variant answers differently');
    if (variant && variantUrl) await load(variantUrl, product.headers, product.body, variant.pid);
    const results: {
      round: number;
      which: string;
      p50: number;
      p99: number;
      rps: number;
      cpuMsPerRequest: number;
      txPerRequest: number;
    }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      results.push({ round, which: 'baseline (pg + JSON)', ...(await load(bare.url, bare.headers, bare.body, baselinePid)) });
      const measureProduct = async () =>
        results.push({ round, which: 'admin GraphQL', ...(await load(product.url, product.headers, product.body, cp.pid!)) });
      const measureVariant = async () => {
        if (variant && variantUrl)
          results.push({ round, which: variantName, ...(await load(variantUrl, product.headers, product.body, variant.pid)) });
      };
      // The one measured first after the baseline did ~6 % better with identical settings
      // (docs/performance.md, ADR 196): product and variant take turns being first.
      if (round % 2 === 1) {
        await measureProduct();
        await measureVariant();
      } else {
        await measureVariant();
        await measureProduct();
      }
    }
    console.table(results);
    const avg = (which: string, key: 'p50' | 'p99' | 'rps' | 'cpuMsPerRequest') => {
      const xs = results.filter((r) => r.which === which).map((r) => r[key]);
      return xs.reduce((a, b) => a + b, 0) / xs.length;
    };
    const summary = (which: string) => ({
      p50: avg(which, 'p50'),
      p99: avg(which, 'p99'),
      rps: avg(which, 'rps'),
      cpu: avg(which, 'cpuMsPerRequest'),
    });
    const b = summary('baseline (pg + JSON)');
    const p = summary('admin GraphQL');
    console.log(
      `\n${MANIFESTS} manifests, ${MANIFESTS * DAYS} usage buckets; manifests(first: 100) with usage; ${CONNECTIONS} connections × ${DURATION_S} s × ${ROUNDS} rounds (mean of rounds)`,
    );
    console.log(`| | p50 ms | p99 ms | req/s | server CPU ms/req |\n|---|---:|---:|---:|---:|`);
    const row = (s: typeof b) => `${s.p50.toFixed(1)} | ${s.p99.toFixed(1)} | ${s.rps.toFixed(0)} | ${s.cpu.toFixed(2)}`;
    console.log(`| baseline: pg, same 2 statements, JSON.stringify | ${row(b)} |`);
    console.log(`| admin GraphQL (Nest + Apollo + auth; the page in SQL on Prisma's pool, ADR 0340) | ${row(p)} |`);
    console.log(
      `| ratio product / baseline | ${(p.p50 / b.p50).toFixed(2)}× | ${(p.p99 / b.p99).toFixed(2)}× | ${(p.rps / b.rps).toFixed(2)}× | ${(p.cpu / b.cpu).toFixed(2)}× |`,
    );
    if (variant) {
      const v = summary(variantName);
      console.log(`| ${variantName} | ${row(v)} |`);
      console.log(
        `| ratio variant / baseline | ${(v.p50 / b.p50).toFixed(2)}× | ${(v.p99 / b.p99).toFixed(2)}× | ${(v.rps / b.rps).toFixed(2)}× | ${(v.cpu / b.cpu).toFixed(2)}× |`,
      );
    }
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

if (process.argv[2] === '--baseline-server') void baselineServer(process.argv[3]);
else
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
