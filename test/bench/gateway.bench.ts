/**
 * The node as a gateway (issue 28): what going through the node adds to going straight to the
 * upstream. Run: `npm run bench gateway`, or `npx tsx test/bench/gateway.bench.ts`. Needs the
 * machine's Redis.
 *
 * Processes: the official @a2a-js/sdk server (express, jsonRpcHandler, A2A 1.0) answering one
 * artifact then completed; the agent node's A2A layer as the agent node wires it
 * (apps/agent-node/src/finance-a2a.ts: Redis task store and events, routing, limits, usage) with
 * invoice-lookup's manifest naming that SDK server as its upstream; and, in this process, a stub of
 * the control plane's token exchange (the node exchanges a caller's token once per lifetime,
 * ADR 0271; the stub counts how often it was asked).
 *
 * The floor is the same request sent straight to the SDK server, in the same run: rounds alternate
 * sdk / node anonymous / node token, each after a warm-up, 16 concurrent clients on keep-alive
 * connections, each timing its own requests (sub-millisecond, performance.now()). SendMessage and a
 * streamed task (SendStreamingMessage read to its end). Reported: p50/p99 of each, the added
 * latency (node − sdk, per round, median over rounds) and the throughput ratio (node / sdk).
 *
 * Under 16 clients on two cores a request's latency is mostly its wait in the queues (latency ≈
 * clients / throughput), so the hop's own cost is measured apart too: each round also sends the
 * same requests one at a time (one client, nothing queued), and the added latency of the hop is
 * that phase's p50/p99, node − sdk.
 *
 * BENCH_SECONDS (4), BENCH_ROUNDS (3), BENCH_LATENCY_SECONDS (2: the one-client phase),
 * BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof", BENCH_METHODS (both: "SendMessage,SendStreamingMessage"),
 * BENCH_INPROCESS=1: a third node, the same wiring with no upstream, whose handlers answer what the
 * SDK server answers in the node's process: what forwarding adds to the node's CPU per call, in the
 * same rounds. BENCH_REDIS_URL (the machine's Redis: another one, e.g. to count its commands per call with
 * `INFO commandstats`).
 *
 * The processes run this file's child modes compiled (test/support/bench-build.ts), as the node
 * SDK packages run (ADR 0398); BENCH_RUNTIME=tsx runs them through tsx, as before. BENCH_BASE_RUNTIME: the base's (with
 * BENCH_BASE_DIR=. the same build through both runtimes).
 *
 * BENCH_BASE_DIR: a checkout of another build (e.g. `git archive <commit> | tar -x -C /tmp/base`,
 * with this tree's node_modules linked into it). Its node is started beside this one, in front of
 * the same SDK server, and measured in the same rounds ("base anonymous", "base token"): a
 * before/after comparison that a loaded machine disturbs alike, reported per round as this node's
 * throughput and hop against the base's.
 */
import http from 'node:http';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type * as BenchA2ANode from '../support/bench-a2a-node';
import type * as SdkAgent from '../support/sdk-agent';
import { freePort } from '../support/free-port';
import { processCpuSeconds } from '../support/process-cpu';
import { benchChildArgs, benchRuntime } from '../support/bench-build';

const ROOT = join(__dirname, '..', '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CLIENTS = 16;
const LATENCY_SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? 2);
const METHODS = (process.env.BENCH_METHODS ?? 'SendMessage,SendStreamingMessage').split(',').filter(Boolean);
const TEXT = 'What is the status of invoice INV-20931?';
const ANSWER = { invoiceNumber: 'INV-20931', status: 'paid', amount: { value: 1234.56, currency: 'EUR' }, dueDate: '2026-03-04' };

const mode = process.argv[2];
if (mode === '--sdk') void sdkServer(Number(process.argv[3]));
else if (mode === '--node')
  void nodeServer(Number(process.argv[3]), process.argv[4], process.argv[5], process.argv[6], process.argv[7] === 'inproc');
else void main();

async function sdkServer(port: number): Promise<void> {
  // Required here, not imported: only this child mode loads the SDK server.
  const { serveSdkInvoiceLookup } = require('../support/sdk-agent') as typeof SdkAgent;
  serveSdkInvoiceLookup(port, { name: 'Invoice service (SDK upstream)', answer: ANSWER, firstState: 'TASK_STATE_WORKING' });
}

/** `inProcess`: the same node with no upstream, its handlers answering the SDK server's answer in its process (BENCH_INPROCESS). */
async function nodeServer(port: number, prefix: string, upstreamUrl: string, exchangeUrl: string, inProcess = false): Promise<void> {
  const { buildNodeBundle, financeAgentExample } = await import('@cp/capabilities');
  const { HandlerRegistry } = await import('@cp/node-sdk');
  const { serveBenchA2ANode } = require('../support/bench-a2a-node') as typeof BenchA2ANode;
  const f = financeAgentExample();
  const upstream = { url: upstreamUrl, binding: 'jsonrpc' as const, version: '1.0' as const };
  await serveBenchA2ANode(port, {
    prefix,
    env: { CONTROL_PLANE_URL: exchangeUrl, ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL } : {}) },
    bundle: buildNodeBundle({
      agentId: 'finance-agent',
      revision: 1,
      agent: { ...f.agent, protocol: { ...f.agent.protocol, streaming: true, upstreamAllow: ['127.0.0.1'] } },
      manifests: inProcess ? f.manifests : f.manifests.map((m) => ({ ...m, upstream })),
      previewTenants: [],
    }),
    nodeToken: 'bench-node-token',
    // No local handler answers: every capability is forwarded to the upstream (unless in-process).
    handlers: inProcess ? inProcessHandlers(new HandlerRegistry(), f.manifests) : new HandlerRegistry(),
  });
}

/** Every manifest's handler answers what the SDK server answers: one artifact, completed, at once. */
function inProcessHandlers<R extends { register(name: string, h: () => Promise<unknown>): R }>(
  registry: R,
  manifests: readonly { handler: string }[],
): R {
  const answer = async () => ({
    state: 'completed' as const,
    artifacts: [{ name: 'invoice', parts: [{ data: ANSWER, mediaType: 'application/json' }] }],
  });
  for (const name of new Set(manifests.map((m) => m.handler))) registry.register(name, answer);
  return registry;
}

// ---- the load ------------------------------------------------------------------------------
interface Server {
  name: string;
  url: string;
  child: ChildProcess;
}

async function start(name: string, args: string[], nodeArgs: string[] = [], dir?: string): Promise<Server> {
  const port = await freePort();
  const script = dir ? `${dir}/test/bench/gateway.bench.ts` : __filename;
  // Compiled, as the node SDK packages run (bench-build.ts, ADR 0398), or through tsx (BENCH_RUNTIME=tsx, as before).
  const runtime = benchRuntime(dir ? 'BENCH_BASE_RUNTIME' : 'BENCH_RUNTIME');
  const childArgs = await benchChildArgs(script, dir ?? ROOT, nodeArgs, [args[0], String(port), ...args.slice(1)], runtime);
  const child = spawn(process.execPath, childArgs, {
    stdio: ['ignore', 'inherit', 'inherit'],
    cwd: dir,
  });
  const url = `http://127.0.0.1:${port}/a2a/jsonrpc`;
  const end = Date.now() + 90_000;
  while (Date.now() < end) {
    try {
      await fetch(url, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' } });
      return { name, url, child };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${name} did not listen within 90 s`);
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
    params: {
      message: { messageId: `m-${randomBytes(6).toString('hex')}`, role: 'ROLE_USER', parts: [{ text: TEXT }] },
      metadata: { skillId: 'invoice-lookup' },
    },
  });

const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS * 2 });

/** One request, read to its end; resolves with its latency in ms and its body. */
function once(url: string, method: string, headers: Record<string, string>): Promise<{ ms: number; status: number; body: string }> {
  const body = rpcBody(method);
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'a2a-version': '1.0',
          'content-length': String(Buffer.byteLength(body)),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  /** CPU per request of the SDK server and of the node (µs): survives a loaded machine better than req/s. */
  sdkCpuUs: number;
  nodeCpuUs: number;
}

/** The server processes, for their CPU figures ("node": the node measured; base: its twin, BENCH_BASE_DIR). */
const pids: { sdk?: number; node?: number; base?: number } = {};

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
const med = (xs: number[]) => pct(xs, 50);

/** Every answer is checked: a completed task (or a stream ending completed) with the upstream's artifact. */
function checkAnswer(name: string, method: string, r: { status: number; body: string }): void {
  const ok =
    r.status === 200 &&
    r.body.includes('INV-20931') &&
    (method === 'SendMessage' ? r.body.includes('"TASK_STATE_COMPLETED"') : r.body.includes('TASK_STATE_COMPLETED'));
  if (!ok) throw new Error(`${name} ${method} answered ${r.status}: ${r.body.slice(0, 300)}`);
}

async function measure(s: Server, method: string, headers: Record<string, string>, seconds: number, clients = CLIENTS): Promise<Figures> {
  const latencies: number[] = [];
  // The process measured besides the SDK server: the subject's own (the node's while the SDK is measured alone).
  const nodePid = s.name === 'sdk' ? pids.node : s.child.pid;
  const cpu0 = [processCpuSeconds(pids.sdk), processCpuSeconds(nodePid)];
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const r = await once(s.url, method, headers);
        checkAnswer(s.name, method, r);
        latencies.push(r.ms);
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  const perRequest = (now: number, before: number) => ((now - before) * 1e6) / Math.max(1, latencies.length);
  return {
    rps: latencies.length / elapsed,
    p50: pct(latencies, 50),
    p99: pct(latencies, 99),
    sdkCpuUs: perRequest(processCpuSeconds(pids.sdk), cpu0[0]),
    nodeCpuUs: perRequest(processCpuSeconds(nodePid), cpu0[1]),
  };
}

/** The control plane's token exchange, stubbed: a JWT-shaped token with an exp, counted. */
async function exchangeStub(): Promise<{ url: string; asked: () => number; close: () => void }> {
  let asked = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      asked++;
      const exp = Math.floor(Date.now() / 1000) + 300;
      const token = `e30.${Buffer.from(JSON.stringify({ exp, token_use: 'upstream' })).toString('base64url')}.bench`;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ accessToken: token, expiresIn: 300, scopes: [] }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, asked: () => asked, close: () => server.close() };
}

async function main(): Promise<void> {
  const { mintA2AToken } = await import('@cp/auth');
  const { loadConfig } = await import('@cp/common');
  const { financeAgentExample } = await import('@cp/capabilities');
  const partner = financeAgentExample().callers.partner!;
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', REDIS_URL: process.env.BENCH_REDIS_URL });
  const token = mintA2AToken(config, partner.principal, partner.tenant, [...partner.scopes]);
  const prefix = `bench-gateway-${process.pid}:`;
  const exchange = await exchangeStub();
  const sdk = await start('sdk', ['--sdk']);
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const node = await start('node', ['--node', prefix, sdk.url, exchange.url], nodeArgs);
  const baseDir = process.env.BENCH_BASE_DIR;
  const base = baseDir ? await start('base', ['--node', `${prefix}base:`, sdk.url, exchange.url], nodeArgs, baseDir) : undefined;
  pids.sdk = sdk.child.pid;
  pids.node = node.child.pid;
  pids.base = base?.child.pid;
  const inProcess =
    process.env.BENCH_INPROCESS === '1'
      ? await start('in-process', ['--node', `${prefix}inproc:`, sdk.url, exchange.url, 'inproc'], nodeArgs)
      : undefined;
  const bearer = { authorization: `Bearer ${token}` };
  const subjects: (readonly [string, Server, Record<string, string>])[] = [
    ['sdk', sdk, {}],
    ['node anonymous', node, {}],
    ...(base ? [['base anonymous', base, {}] as const] : []),
    ['node token', node, bearer],
    ...(base ? [['base token', base, bearer] as const] : []),
    ...(inProcess ? [['in-process anonymous', inProcess, {}] as const, ['in-process token', inProcess, bearer] as const] : []),
  ];

  const results = new Map<string, Figures[]>();
  const add = (k: string, f: Figures) => results.set(k, [...(results.get(k) ?? []), f]);
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const method of METHODS) {
        for (const [name, s, headers] of subjects) {
          await measure(s, method, headers, 1);
          add(`${method} ${name}`, await measure(s, method, headers, SECONDS));
          add(`${method} ${name} one client`, await measure(s, method, headers, LATENCY_SECONDS, 1));
        }
      }
      process.stdout.write(`round ${round + 1}/${ROUNDS} done\n`);
    }
  } finally {
    if (inProcess) await stopServer(inProcess);
    if (base) await stopServer(base);
    await stopServer(node);
    await stopServer(sdk);
    exchange.close();
    agent.destroy();
  }

  console.log(
    `\n## The node as a gateway in front of the @a2a-js/sdk server: ${CLIENTS} clients, ${ROUNDS} rounds of ${SECONDS} s (medians)`,
  );
  for (const [k, fs] of results) {
    console.log(
      `${k.padEnd(48)} ${Math.round(med(fs.map((f) => f.rps)))
        .toString()
        .padStart(6)}/s  p50 ${med(fs.map((f) => f.p50)).toFixed(2)} ms  p99 ${med(fs.map((f) => f.p99)).toFixed(2)} ms  ` +
        `CPU/req: SDK ${Math.round(med(fs.map((f) => f.sdkCpuUs)))} µs, node ${Math.round(med(fs.map((f) => f.nodeCpuUs)))} µs`,
    );
  }
  console.log('\nthrough the node against straight to the SDK server, per round (median over rounds):');
  for (const op of METHODS) {
    const straight = results.get(`${op} sdk`)!;
    for (const name of base ? ['node anonymous', 'base anonymous', 'node token', 'base token'] : ['node anonymous', 'node token']) {
      const fs = results.get(`${op} ${name}`)!;
      const ratio = med(fs.map((f, i) => f.rps / straight[i].rps));
      const addedP50 = med(fs.map((f, i) => f.p50 - straight[i].p50));
      const addedP99 = med(fs.map((f, i) => f.p99 - straight[i].p99));
      const alone = results.get(`${op} sdk one client`)!;
      const hop = results.get(`${op} ${name} one client`)!;
      const hopP50 = med(hop.map((f, i) => f.p50 - alone[i].p50));
      const hopP99 = med(hop.map((f, i) => f.p99 - alone[i].p99));
      console.log(
        `${op} ${name}: added by the hop (one client) p50 ${hopP50.toFixed(2)} ms, p99 ${hopP99.toFixed(2)} ms; ` +
          `under ${CLIENTS} clients p50 ${addedP50.toFixed(2)} ms, p99 ${addedP99.toFixed(2)} ms; ` +
          `throughput ${ratio.toFixed(2)}× (goal: p50 added ≤ 2 ms, ≥ 0.5×)`,
      );
    }
  }
  if (base) {
    console.log('\nthis build against the base build (BENCH_BASE_DIR), same rounds (median over rounds):');
    for (const op of METHODS) {
      for (const who of ['anonymous', 'token']) {
        const mine = results.get(`${op} node ${who}`)!;
        const theirs = results.get(`${op} base ${who}`)!;
        const one = results.get(`${op} node ${who} one client`)!;
        const baseOne = results.get(`${op} base ${who} one client`)!;
        const ratios = mine.map((f, i) => f.rps / theirs[i].rps);
        console.log(
          `${op} ${who}: throughput ${med(ratios).toFixed(2)}× the base's (rounds ${ratios.map((r) => r.toFixed(2)).join(', ')}); ` +
            `one-client p50 ${med(one.map((f) => f.p50)).toFixed(2)} against ${med(baseOne.map((f) => f.p50)).toFixed(2)} ms; ` +
            `node CPU/req ${Math.round(med(mine.map((f) => f.nodeCpuUs)))} against ${Math.round(med(theirs.map((f) => f.nodeCpuUs)))} µs`,
        );
      }
    }
  }
  if (inProcess) {
    console.log('\nwhat forwarding adds to a handler in the node process (BENCH_INPROCESS), same rounds (median over rounds):');
    for (const op of METHODS) {
      for (const who of ['anonymous', 'token']) {
        const mine = results.get(`${op} node ${who}`)!;
        const local = results.get(`${op} in-process ${who}`)!;
        const extra = mine.map((f, i) => f.nodeCpuUs - local[i].nodeCpuUs);
        console.log(
          `${op} ${who}: node CPU/req forwarded ${Math.round(med(mine.map((f) => f.nodeCpuUs)))} µs, in-process ` +
            `${Math.round(med(local.map((f) => f.nodeCpuUs)))} µs: forwarding adds ${Math.round(med(extra))} µs ` +
            `(rounds ${extra.map((x) => Math.round(x)).join(', ')}); throughput forwarded / in-process ` +
            `${med(mine.map((f, i) => f.rps / local[i].rps)).toFixed(2)}×`,
        );
      }
    }
  }
  console.log(`token exchanges asked of the control plane: ${exchange.asked()} (one caller token)`);

  const { Redis } = await import('ioredis');
  const redis = new Redis(config.REDIS_URL);
  for (let cursor = '0'; ;) {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length) await redis.unlink(...keys);
    if ((cursor = next) === '0') break;
  }
  redis.disconnect();
}
