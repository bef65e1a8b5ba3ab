/**
 * A2A streaming and task store benchmark (issue 12). Run: `npm run bench a2a-streaming`, or
 * `npx tsx test/bench/a2a-streaming.bench.ts`. Needs the machine's Redis.
 *
 * 1. SSE: SendStreamingMessage on the node-sdk A2A layer (Fastify, Redis task store and Redis
 *    event bus, a handler reporting EVENTS progress updates) against a bare Fastify route that
 *    writes the same frames. Time to first event (request sent → first `data:` frame) and events
 *    per second (first → last frame), one stream at a time, rounds interleaved.
 * 2. Task store: SendMessage and GetTask per second through A2AService (no HTTP) on the Redis
 *    store against the in-memory one, 16 concurrent callers, interleaved.
 * Client and servers share this process (and its core): compare the ratios, not the absolutes.
 */
import { performance } from 'node:perf_hooks';
import Fastify, { type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { a2aVerifier, mintA2AToken } from '@cp/auth';
import { loadConfig } from '@cp/common';
import { buildNodeBundle, financeAgentExample } from '@cp/capabilities';
import { ActiveBundle } from '../../libs/node-sdk/src/active-bundle';
import { ToolGateway } from '../../libs/node-sdk/src/tools/tool-gateway';
import { A2AService } from '../../libs/node-sdk/src/a2a/a2a-service';
import { HandlerRegistry } from '../../libs/node-sdk/src/a2a/handler-registry';
import { registerA2AServer } from '../../libs/node-sdk/src/a2a/a2a-server';
import { RedisTaskStore } from '../../libs/node-sdk/src/a2a/redis-task-store';
import { InMemoryTaskEvents, RedisTaskEvents } from '../../libs/node-sdk/src/a2a/task-events';
import { DEFAULT_TASK_LIMITS, InMemoryTaskStore, type TaskStore } from '../../libs/node-sdk/src/a2a/task-store';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 100);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 60);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const PREFIX = `bench-a2a-${process.pid}:`;
const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const TEXT = 'reconcile invoice INV-20931 against its PO';
// One bench owner creates tens of thousands of tasks: room for them in both stores alike.
const LIMITS = { ...DEFAULT_TASK_LIMITS, maxOwnerBytes: 1 << 30 };
const token = mintA2AToken(config, 'bench@acme', 'acme-partner', ['recon.run']);

function handlers(): HandlerRegistry {
  return new HandlerRegistry()
    .register('invoices.v1.lookup', async () => ({ state: 'completed', artifacts: [{ parts: [{ data: { ok: true } }] }] }))
    .register('recon.v3.reconcile', async (ctx) => {
      for (let i = 0; i < EVENTS; i++) await ctx.updates.progress(`matching line ${i}`);
      return { state: 'completed', artifacts: [{ name: 'reconciliation', parts: [{ data: { matched: true } }] }] };
    });
}

function service(tasks: TaskStore, events: InMemoryTaskEvents | RedisTaskEvents): A2AService {
  const bundle = new ActiveBundle(buildNodeBundle({ agentId: 'finance-agent', revision: 1, ...financeAgentExample(), previewTenants: [] }));
  return new A2AService({
    bundle: () => bundle,
    handlers: handlers(),
    tasks,
    events,
    tools: new ToolGateway({ exchange: async () => ({ accessToken: 't', expiresAt: Date.now() + 60_000, scopes: [] }) }, new Map(), silent),
    log: silent,
  });
}

/** The frames the product sends, captured once, replayed by the bare server. */
async function captureFrames(url: string): Promise<string[]> {
  const res = await fetch(`${url}/a2a/jsonrpc`, streamInit());
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((f) => f.startsWith('data: '))
    .map((f) => `${f}\n\n`);
}

function streamInit(): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${token}` },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendStreamingMessage',
      params: { message: { messageId: 'b', role: 'ROLE_USER', parts: [{ text: TEXT }] } },
    }),
  };
}

async function bareSse(frames: string[]): Promise<FastifyInstance> {
  const app = Fastify();
  app.post('/a2a/jsonrpc', async (_req, reply) => {
    void reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    // One write per event, yielding between them, as events produced over time are.
    for (const f of frames) {
      reply.raw.write(f);
      await new Promise((r) => setImmediate(r));
    }
    reply.raw.end();
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app;
}

async function oneStream(url: string): Promise<{ ttfe: number; eps: number; events: number }> {
  const t0 = performance.now();
  const res = await fetch(`${url}/a2a/jsonrpc`, streamInit());
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let first = 0;
  let last = 0;
  let events = 0;
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let i: number;
    while ((i = buffer.indexOf('\n\n')) >= 0) {
      buffer = buffer.slice(i + 2);
      events++;
      last = performance.now();
      if (events === 1) first = last;
    }
  }
  return { ttfe: first - t0, eps: ((events - 1) * 1000) / Math.max(last - first, 0.001), events };
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

async function opsPerSecond(fn: () => Promise<unknown>): Promise<{ ops: number; p50: number; p99: number }> {
  const lat: number[] = [];
  const end = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await fn();
        lat.push(performance.now() - t);
      }
    }),
  );
  return { ops: lat.length / SECONDS, p50: pct(lat, 50), p99: pct(lat, 99) };
}

async function main(): Promise<void> {
  const redis = new Redis(config.REDIS_URL);
  const sub = new Redis(config.REDIS_URL);
  const product = Fastify();
  registerA2AServer(product, {
    bundle: (() => {
      const b = new ActiveBundle(buildNodeBundle({ agentId: 'finance-agent', revision: 1, ...financeAgentExample(), previewTenants: [] }));
      return () => b;
    })(),
    verifier: a2aVerifier(config),
    handlers: handlers(),
    tools: new ToolGateway({ exchange: async () => ({ accessToken: 't', expiresAt: Date.now() + 60_000, scopes: [] }) }, new Map(), silent),
    log: silent,
    tasks: new RedisTaskStore(redis, PREFIX),
    events: new RedisTaskEvents(redis, sub, PREFIX),
  });
  await product.listen({ port: 0, host: '127.0.0.1' });
  const productUrl = `http://127.0.0.1:${(product.server.address() as { port: number }).port}`;
  const frames = await captureFrames(productUrl);
  const bare = await bareSse(frames);
  const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}`;

  console.log(`\n## SSE: ${frames.length} events per stream (${EVENTS} progress updates), ${STREAMS} streams per round, ${ROUNDS} rounds`);
  const r: Record<'bare' | 'node', { ttfe: number[]; eps: number[] }> = { bare: { ttfe: [], eps: [] }, node: { ttfe: [], eps: [] } };
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < STREAMS; i++) {
      for (const [name, url] of [
        ['bare', bareUrl],
        ['node', productUrl],
      ] as const) {
        const s = await oneStream(url);
        if (s.events !== frames.length) throw new Error(`${name}: ${s.events} events, expected ${frames.length}`);
        r[name].ttfe.push(s.ttfe);
        r[name].eps.push(s.eps);
      }
    }
  }
  for (const name of ['bare', 'node'] as const) {
    console.log(
      `${name.padEnd(5)} first event p50 ${pct(r[name].ttfe, 50).toFixed(2)} ms p99 ${pct(r[name].ttfe, 99).toFixed(2)} ms; events/s p50 ${Math.round(pct(r[name].eps, 50))}`,
    );
  }
  console.log(
    `ratio node/bare: first event p50 ${(pct(r.node.ttfe, 50) / pct(r.bare.ttfe, 50)).toFixed(2)}×, events/s p50 ${(pct(r.node.eps, 50) / pct(r.bare.eps, 50)).toFixed(2)}×`,
  );

  console.log(`\n## Task store through A2AService: 16 concurrent callers, ${SECONDS} s per run, ${ROUNDS} rounds`);
  const memory = service(new InMemoryTaskStore(LIMITS), new InMemoryTaskEvents());
  const shared = service(new RedisTaskStore(redis, `${PREFIX}svc:`, LIMITS), new RedisTaskEvents(redis, sub, `${PREFIX}svc:`));
  const rc = { caller: { principal: 'bench@acme', tenant: 'acme-partner', scopes: ['recon.run'] } };
  const lookup = () => ({ message: { messageId: 'l', role: 'ROLE_USER', parts: [{ text: 'What is the status of invoice INV-20931?' }] } });
  const results: Record<string, { ops: number[]; p50: number[]; p99: number[] }> = {};
  const add = (k: string, v: { ops: number; p50: number; p99: number }) => {
    results[k] ??= { ops: [], p50: [], p99: [] };
    results[k].ops.push(v.ops);
    results[k].p50.push(v.p50);
    results[k].p99.push(v.p99);
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, svc] of [
      ['memory', memory],
      ['redis', shared],
    ] as const) {
      add(`${name} SendMessage`, await opsPerSecond(() => svc.sendMessage(lookup(), rc, [])));
      const id = (await svc.sendMessage(lookup(), rc, [])).task.id;
      add(`${name} GetTask`, await opsPerSecond(() => svc.getTask({ id }, rc)));
    }
  }
  const med = (xs: number[]) => pct(xs, 50);
  for (const [k, v] of Object.entries(results)) {
    console.log(`${k.padEnd(20)} ${Math.round(med(v.ops))}/s  p50 ${med(v.p50).toFixed(2)} ms  p99 ${med(v.p99).toFixed(2)} ms`);
  }
  for (const op of ['SendMessage', 'GetTask']) {
    console.log(`ratio redis/memory ${op}: ${(med(results[`redis ${op}`].ops) / med(results[`memory ${op}`].ops)).toFixed(2)}×`);
  }

  await product.close();
  await bare.close();
  const keys = await redis.keys(`${PREFIX}*`);
  for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
  redis.disconnect();
  sub.disconnect();
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
