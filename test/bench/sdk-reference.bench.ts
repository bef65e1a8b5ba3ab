/**
 * This node against the server it replaces (issue 30). Run: `npm run bench sdk-reference`, or
 * `npx tsx test/bench/sdk-reference.bench.ts`. Needs the machine's Redis.
 *
 * Four servers, each its own process, the same invoice-lookup answer (one artifact, completed),
 * JSON-RPC (A2A 1.0), 16 concurrent clients (autocannon, in this process):
 * - sdk: the official @a2a-js/sdk server (express, jsonRpcHandler, DefaultRequestHandler,
 *   InMemoryTaskStore, no auth) with an AgentExecutor publishing that answer. A FRESH process each
 *   round: its in-memory store only grows, so fresh is its best case.
 * - node: the node's A2A layer as the agent node wires it (apps/agent-node/src/finance-a2a.ts:
 *   Redis task store and event bus, JWT verification, routing, execution limits with Redis
 *   budgets, usage), on Fastify, handlers giving the same answer; called anonymously and with a
 *   partner token (HS256, as on nodes).
 * - floor: bare Fastify doing one Redis round trip (a SET of the answer) per request: the physical
 *   floor of a durably stored task.
 * Rounds alternate sdk / node anonymous / node token / floor, each after a 1 s warm-up; figures are
 * medians over rounds, ratios are against the SDK in the same run (the VM runs in two speeds).
 * SendMessage: requests/s, p50/p99, server CPU per request. SendStreamingMessage: streams/s,
 * events/s (streams × events per stream), and time to first event (16 concurrent streaming fetches).
 *
 * The servers run this file's child modes compiled (test/support/bench-build.ts), as the node SDK
 * packages run (ADR 0398); BENCH_RUNTIME=tsx runs them through tsx instead, as before (its keepNames wraps every function
 * the node creates in a defineProperty call, a cost the SDK's plain-JavaScript library does not pay).
 * BENCH_BASE_RUNTIME (BENCH_RUNTIME): the base tree's; with BENCH_BASE_TREE=. it compares the two runtimes.
 * BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the node under the load;
 * BENCH_BASE_TREE: a checkout of another commit (its own tsconfig.json, node_modules linked, this bench
 * file and test/support/bench-build.ts copied in); its node runs beside this one as `base anonymous` / `base token`, in the same rounds.
 * BENCH_CLIENTS (16): concurrent clients (1: the latency of one caller alone).
 * BENCH_REDIS_URL: a Redis of the bench's own (its CPU per request then belongs to this run alone).
 * BENCH_SECONDS (4), BENCH_ROUNDS (3), BENCH_CASES=send|stream; BENCH_SUBJECTS (default all: sdk,node
 * anonymous,node token,floor) picks subjects by name, e.g. `node token` alone to profile the token path.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type * as BenchA2ANode from '../support/bench-a2a-node';
import type * as SdkAgent from '../support/sdk-agent';
import { processCpuSeconds } from '../support/process-cpu';
import { freePort } from '../support/free-port';
import { benchChildArgs, benchRuntime } from '../support/bench-build';

const ROOT = join(__dirname, '..', '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CASES = process.env.BENCH_CASES ?? 'send,stream';
const SUBJECTS = process.env.BENCH_SUBJECTS?.split(',').map((s) => s.trim());
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
const TEXT = 'What is the status of invoice INV-20931?';
const ANSWER = { invoiceNumber: 'INV-20931', status: 'paid', amount: { value: 1234.56, currency: 'EUR' }, dueDate: '2026-03-04' };

// ---- child modes ---------------------------------------------------------------------------
const mode = process.argv[2];
if (mode === '--sdk') void sdkServer(Number(process.argv[3]));
else if (mode === '--node') void nodeServer(Number(process.argv[3]), process.argv[4]);
else if (mode === '--floor') void floorServer(Number(process.argv[3]), process.argv[4]);
else void main();

async function sdkServer(port: number): Promise<void> {
  // Required here, not imported: only this child mode loads the SDK server.
  const { serveSdkInvoiceLookup } = require('../support/sdk-agent') as typeof SdkAgent;
  serveSdkInvoiceLookup(port, { name: 'Finance agent (SDK reference)', answer: ANSWER, firstState: 'TASK_STATE_SUBMITTED' });
}

async function nodeServer(port: number, prefix: string): Promise<void> {
  const { buildNodeBundle, financeAgentExample } = await import('@cp/capabilities');
  const { HandlerRegistry } = await import('@cp/node-sdk');
  const { serveBenchA2ANode } = require('../support/bench-a2a-node') as typeof BenchA2ANode;
  const answer = async () => ({
    state: 'completed' as const,
    artifacts: [{ name: 'invoice', parts: [{ data: ANSWER, mediaType: 'application/json' }] }],
  });
  await serveBenchA2ANode(port, {
    prefix,
    bundle: buildNodeBundle({ agentId: 'finance-agent', revision: 1, ...financeAgentExample(), previewTenants: [] }),
    nodeToken: 'unused',
    ...(process.env.BENCH_REDIS_URL ? { env: { REDIS_URL: process.env.BENCH_REDIS_URL } } : {}),
    handlers: new HandlerRegistry().register('invoices.v1.lookup', answer).register('recon.v3.reconcile', answer),
  });
}

async function floorServer(port: number, prefix: string): Promise<void> {
  const Fastify = (await import('fastify')).default;
  const { connectRedis, loadConfig } = await import('@cp/common');
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', REDIS_URL: process.env.BENCH_REDIS_URL });
  const redis = connectRedis(config, 'floor');
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    result: { task: { id: 't', status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [{ parts: [{ data: ANSWER }] }] } },
  });
  let n = 0;
  const app = Fastify();
  app.post('/a2a/jsonrpc', async (_req, reply) => {
    await redis.set(`${prefix}floor:${n++ % 1000}`, body, 'PX', 60_000);
    return reply.header('content-type', 'application/json').send(body);
  });
  await app.listen({ port, host: '127.0.0.1' });
}

// ---- the load ------------------------------------------------------------------------------
interface AutocannonResult {
  non2xx: number;
  errors: number;
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
}

const autocannon = require('autocannon') as (opts: {
  url: string;
  connections: number;
  duration: number;
  method: 'POST';
  headers: Record<string, string>;
  body: string;
}) => Promise<AutocannonResult>;

interface Server {
  name: string;
  url: string;
  child: ChildProcess;
}

/** Servers still running when this process exits (a failed run) do not outlive it. */
const children = new Set<ChildProcess>();
process.on('exit', () => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')));

async function start(name: string, args: string[], nodeArgs: string[] = [], tree?: string): Promise<Server> {
  const port = await freePort();
  // This file's child mode compiled, as the node SDK packages run (bench-build.ts, ADR 0398; BENCH_RUNTIME=tsx: tsx as
  // a loader in the server's own process). Another tree runs this file's copy, with its tsconfig.
  const file = tree ? `${tree}/test/bench/sdk-reference.bench.ts` : __filename;
  const runtime = benchRuntime(tree ? 'BENCH_BASE_RUNTIME' : 'BENCH_RUNTIME');
  const childArgs = await benchChildArgs(file, tree ?? ROOT, nodeArgs, [args[0], String(port), ...args.slice(1)], runtime);
  const child = spawn(process.execPath, childArgs, {
    stdio: ['ignore', 'inherit', 'inherit'],
    ...(tree ? { cwd: tree } : {}),
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const url = `http://127.0.0.1:${port}/a2a/jsonrpc`;
  // A loaded machine (other sessions' type checks and tests) can take minutes to compile the node.
  const end = Date.now() + 300_000;
  while (Date.now() < end) {
    try {
      await fetch(url, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' } });
      return { name, url, child };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  child.kill('SIGKILL');
  throw new Error(`${name} did not listen within 300 s`);
}

async function stopServer(s: Server): Promise<void> {
  if (s.child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    s.child.once('exit', () => resolve());
    s.child.kill('SIGTERM');
  });
}

const rpcBody = (method: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method,
    params: { message: { messageId: `m-${randomBytes(4).toString('hex')}`, role: 'ROLE_USER', parts: [{ text: TEXT }] } },
  });

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  cpuUs: number;
  /** The Redis server's CPU per request in the same window (INFO cpu; the machine's Redis is shared, so an upper bound). */
  redisUs: number;
  events?: number;
  ttfeP50?: number;
  ttfeP99?: number;
}

/** The Redis server's own CPU seconds (user + sys) so far. */
async function redisCpuSeconds(): Promise<number> {
  const info = await benchRedis().info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? NaN);
  return field('used_cpu_user') + field('used_cpu_sys');
}

let redisClient: import('ioredis').Redis | undefined;
function benchRedis(): import('ioredis').Redis {
  if (!redisClient) {
    const { Redis } = require('ioredis') as typeof import('ioredis');
    const { loadConfig } = require('@cp/common') as typeof import('@cp/common');
    redisClient = new Redis(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', REDIS_URL: process.env.BENCH_REDIS_URL }).REDIS_URL);
  }
  return redisClient;
}

async function measure(s: Server, method: string, headers: Record<string, string>, duration: number): Promise<Figures> {
  const redis0 = await redisCpuSeconds();
  const cpu0 = processCpuSeconds(s.child.pid);
  const r = await autocannon({
    url: s.url,
    connections: CLIENTS,
    duration,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body: rpcBody(method),
  });
  const cpu = processCpuSeconds(s.child.pid) - cpu0;
  const redisCpu = (await redisCpuSeconds()) - redis0;
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${s.name} ${method}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    cpuUs: (cpu * 1e6) / Math.max(1, r.requests.total),
    redisUs: (redisCpu * 1e6) / Math.max(1, r.requests.total),
  };
}

/** One answer checked by content: the same completed task with one artifact, from every server. */
async function check(s: Server, headers: Record<string, string>): Promise<void> {
  const res = await fetch(s.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body: rpcBody('SendMessage'),
  });
  const body = (await res.json()) as { result?: { task?: { status?: { state?: string }; artifacts?: unknown[] } } };
  const task = body.result?.task;
  if (task?.status?.state !== 'TASK_STATE_COMPLETED' || task.artifacts?.length !== 1)
    throw new Error(`${s.name} answered ${JSON.stringify(body).slice(0, 300)}`);
}

/** Streams: events per stream, and time to first event under 16 concurrent streaming fetches. */
async function streamSample(s: Server, headers: Record<string, string>): Promise<{ events: number; ttfe: number[] }> {
  const ttfe: number[] = [];
  let events = 0;
  const end = performance.now() + 1500;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const res = await fetch(s.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
          body: rpcBody('SendStreamingMessage'),
        });
        const reader = res.body!.getReader();
        let n = 0;
        let text = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          if (n === 0) ttfe.push(performance.now() - t0);
          text += Buffer.from(value).toString('utf8');
          n = text.split('\n\n').filter((f) => f.startsWith('data:')).length;
        }
        events = Math.max(events, n);
      }
    }),
  );
  return { events, ttfe };
}

/**
 * Memory per stored task: Redis MEMORY USAGE over a sample of the run's task records, plus the
 * owner's index, sizes and creation sets divided by their entries; and the node's resident memory
 * (tasks live in Redis, not in the node's heap: its memory must not grow with them).
 */
async function taskMemory(redis: import('ioredis').Redis, prefix: string, node: Server): Promise<void> {
  const records: string[] = [];
  for (let cursor = '0'; records.length < 500;) {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*a2a:{*}:task:*`, 'COUNT', 1000);
    records.push(...keys);
    if ((cursor = next) === '0') break;
  }
  if (records.length === 0) return;
  const sample = records.slice(0, 500);
  const bytes = await Promise.all(sample.map((k) => redis.memory('USAGE', k)));
  const used = bytes.filter((b): b is number => typeof b === 'number');
  const values = await Promise.all(sample.slice(0, 50).map((k) => redis.strlen(k)));
  // The owners' per-task structures (index, sizes, created), per entry.
  let structBytes = 0;
  let entries = 0;
  for (const owner of new Set(sample.map((k) => k.slice(0, k.indexOf('}:') + 2)))) {
    // Every stored task has a size; the anonymous pool keeps no index (ADR 0399), named owners no creation set.
    for (const key of ['index', 'sizes', 'created'])
      structBytes += Number((await redis.memory('USAGE', `${owner}${key}`, 'SAMPLES', 0)) ?? 0);
    entries += await redis.hlen(`${owner}sizes`);
  }
  const rss = processRssMb(node.child.pid);
  console.log(
    `\nmemory per stored task: Redis record ${Math.round(med(used))} B (MEMORY USAGE, median of ${used.length}; value ${Math.round(med(values))} B), ` +
      `owner index/sizes/created ${entries ? Math.round(structBytes / entries) : 0} B per task (${entries} tasks); node resident ${rss} MB after the run`,
  );
}

function processRssMb(pid: number | undefined): number {
  try {
    const status = require('node:fs').readFileSync(`/proc/${pid}/status`, 'utf8') as string;
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
  } catch {
    return NaN;
  }
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
const med = (xs: number[]) => pct(xs, 50);

async function main(): Promise<void> {
  const { mintA2AToken } = await import('@cp/auth');
  const { loadConfig } = await import('@cp/common');
  const { financeAgentExample } = await import('@cp/capabilities');
  const partner = financeAgentExample().callers.partner!;
  const token = mintA2AToken(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' }), partner.principal, partner.tenant, [...partner.scopes]);
  const prefix = `bench-sdkref-${process.pid}:`;
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const node = await start('node', ['--node', prefix], nodeArgs);
  // The same node from another checkout (BENCH_BASE_TREE, e.g. the commit before a change) in the same rounds.
  const baseTree = process.env.BENCH_BASE_TREE;
  const base = baseTree ? await start('base', ['--node', `${prefix}base:`], nodeArgs, baseTree) : undefined;
  const floor = await start('floor', ['--floor', prefix]);
  const bearer = { authorization: `Bearer ${token}` };
  const subjects = (sdk: Server, round: number) => {
    const mine = [
      ['node anonymous', node, {}],
      ['node token', node, bearer],
    ] as const;
    const theirs = base
      ? ([
          ['base anonymous', base, {}],
          ['base token', base, bearer],
        ] as const)
      : [];
    // With a base tree, which of the two goes first alternates by round.
    return [['sdk', sdk, {}], ...(round % 2 === 0 ? [...mine, ...theirs] : [...theirs, ...mine]), ['floor', floor, {}]].filter(
      ([name]) => !SUBJECTS || SUBJECTS.includes(name as string),
    ) as [string, Server, Record<string, string>][];
  };

  const results = new Map<string, Figures[]>();
  const add = (k: string, f: Figures) => results.set(k, [...(results.get(k) ?? []), f]);
  for (let round = 0; round < ROUNDS; round++) {
    const sdk = await start('sdk', ['--sdk']);
    try {
      for (const [name, s, headers] of subjects(sdk, round)) {
        if (name !== 'floor') await check(s, headers);
        if (CASES.includes('send')) {
          await measure(s, 'SendMessage', headers, 1);
          add(`SendMessage ${name}`, await measure(s, 'SendMessage', headers, SECONDS));
        }
        if (CASES.includes('stream') && name !== 'floor') {
          await measure(s, 'SendStreamingMessage', headers, 1);
          const f = await measure(s, 'SendStreamingMessage', headers, SECONDS);
          const sample = await streamSample(s, headers);
          add(`SendStreamingMessage ${name}`, {
            ...f,
            events: sample.events,
            ttfeP50: pct(sample.ttfe, 50),
            ttfeP99: pct(sample.ttfe, 99),
          });
        }
      }
    } finally {
      await stopServer(sdk);
    }
    process.stdout.write(`round ${round + 1}/${ROUNDS} done\n`);
  }

  console.log(`\n## This node against the @a2a-js/sdk reference server: ${CLIENTS} clients, ${ROUNDS} rounds of ${SECONDS} s (medians)`);
  for (const [k, fs] of results) {
    const events = fs[0].events;
    const extra =
      events === undefined
        ? ''
        : `  events/s ${Math.round(med(fs.map((f) => f.rps)) * events)} (${events}/stream)  first event p50 ${med(fs.map((f) => f.ttfeP50!)).toFixed(2)} ms p99 ${med(fs.map((f) => f.ttfeP99!)).toFixed(2)} ms`;
    console.log(
      `${k.padEnd(36)} ${Math.round(med(fs.map((f) => f.rps)))
        .toString()
        .padStart(
          6,
        )}/s  p50 ${med(fs.map((f) => f.p50))} ms  p99 ${med(fs.map((f) => f.p99))} ms  CPU ${Math.round(med(fs.map((f) => f.cpuUs)))} µs/req (Redis ${Math.round(med(fs.map((f) => f.redisUs)))})${extra}`,
    );
  }
  console.log('\nratios against the SDK server, per round (min–max, median):');
  for (const op of ['SendMessage', 'SendStreamingMessage']) {
    const sdk = results.get(`${op} sdk`);
    if (!sdk) continue;
    for (const name of ['node anonymous', 'node token', 'base anonymous', 'base token', 'floor']) {
      const fs = results.get(`${op} ${name}`);
      if (!fs) continue;
      const ratios = fs.map((f, i) => f.rps / sdk[i].rps);
      let line = `${op} ${name}: ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}× (median ${med(ratios).toFixed(2)}×)`;
      if (fs[0].ttfeP50 !== undefined) {
        const t = fs.map((f, i) => f.ttfeP50! / sdk[i].ttfeP50!);
        line += `; first event p50 ${med(t).toFixed(2)}× the SDK's`;
      }
      console.log(line);
    }
  }
  if (base) {
    console.log('\nthis tree against the base tree, per round (min–max, median):');
    for (const op of ['SendMessage', 'SendStreamingMessage'])
      for (const who of ['anonymous', 'token']) {
        const mine = results.get(`${op} node ${who}`);
        const theirs = results.get(`${op} base ${who}`);
        if (!mine || !theirs) continue;
        const ratios = mine.map((f, i) => f.rps / theirs[i].rps);
        let line = `${op} ${who}: ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}× (median ${med(ratios).toFixed(2)}×); CPU per request ${med(mine.map((f, i) => f.cpuUs / theirs[i].cpuUs)).toFixed(2)}×`;
        if (mine[0].ttfeP50 !== undefined)
          line += `; first event p50 ${med(mine.map((f, i) => f.ttfeP50! / theirs[i].ttfeP50!)).toFixed(2)}×`;
        console.log(line);
      }
  }
  const floorRps = results.get('SendMessage floor');
  const nodeAnon = results.get('SendMessage node anonymous');
  if (floorRps && nodeAnon)
    console.log(`SendMessage node anonymous / floor: ${(med(nodeAnon.map((f) => f.rps)) / med(floorRps.map((f) => f.rps))).toFixed(2)}×`);

  const { Redis } = await import('ioredis');
  const redis = new Redis(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', REDIS_URL: process.env.BENCH_REDIS_URL }).REDIS_URL);
  await taskMemory(redis, prefix, node);
  await stopServer(node);
  if (base) await stopServer(base);
  await stopServer(floor);
  for (let cursor = '0'; ;) {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length) await redis.unlink(...keys);
    if ((cursor = next) === '0') break;
  }
  redis.disconnect();
  redisClient?.disconnect();
}
