/**
 * Execution limits benchmark (issue 14). Run: `npm run bench execution-limits`, or
 * `npx tsx test/bench/execution-limits.bench.ts`.
 *
 * SendMessage per second through the node-sdk's A2A server (JSON-RPC, routing, entitlement,
 * generic limits, the finance lookup handler) with the cost_class budget ON (one Redis round
 * trip per call, shared-budget Lua script) against the same server with budgets OFF (same code,
 * the agent has no budget for the class). Each server is its own process; autocannon (50
 * connections) runs here; rounds interleave off and on. Redis is a private redis-server, so
 * `total_commands_processed` counts exactly this server's round trips per call.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import Fastify from 'fastify';
import { Redis } from 'ioredis';
import { a2aVerifier } from '@cp/auth';
import { loadConfig } from '@cp/common';
import { buildNodeBundle, financeAgentExample } from '@cp/capabilities';
import {
  A2AService,
  ActiveBundle,
  ExecutionLimits,
  InMemoryTaskStore,
  HandlerRegistry,
  RedisBudgetStore,
  registerA2AServer,
  ToolGateway,
  InMemoryTaskEvents,
  type TokenExchanger,
} from '@cp/node-sdk';
import { registerFinanceHandlers } from '../../apps/agent-node/src/finance/finance-handlers';
import { startPrivateRedis } from '../support/redis-server';
import { freePort } from '../support/free-port';

interface AutocannonResult {
  non2xx: number;
  '2xx': number;
  requests: { average: number };
  latency: { p50: number; p99: number };
}
const autocannon = require('autocannon') as (opts: {
  url: string;
  connections: number;
  duration: number;
  headers?: Record<string, string>;
  method?: string;
  body?: string;
}) => Promise<AutocannonResult>;

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PREFIX = 'bench-limits:';

/** The agent under test: the finance example, every capability cost_class low; ON gives the class a budget. */
function benchBundle(mode: 'on' | 'off'): ActiveBundle {
  const finance = financeAgentExample();
  const manifests = finance.manifests.map((m) => ({ ...m, limits: { ...m.limits, cost_class: 'low' as const, timeout_s: 5 } }));
  return new ActiveBundle(
    buildNodeBundle({
      agentId: 'finance-agent',
      revision: 1,
      agent: finance.agent,
      manifests,
      previewTenants: [],
      // ON: a budget no run exhausts, so every call pays the check and none is refused.
      ...(mode === 'on' ? { costBudgets: { low: { calls: 1_000_000_000, windowS: 3600 } } } : {}),
    }),
  );
}

const noExchange: TokenExchanger = { exchange: () => Promise.reject(new Error('no tools in this benchmark')) };
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

// ---- child mode: one A2A server, budgets on or off ------------------------------------------
if (process.argv[2] === '--serve') {
  const [, , , mode, port, redisUrl] = process.argv;
  const bundle = benchBundle(mode as 'on' | 'off');
  const redis = new Redis(redisUrl);
  // Client-side count of commands sent on the budget connection (= round trips: nothing is pipelined).
  let sent = 0;
  const sendCommand = redis.sendCommand.bind(redis);
  redis.sendCommand = (...args: Parameters<typeof sendCommand>) => {
    sent++;
    return sendCommand(...args);
  };
  const log = quiet;
  const app = Fastify();
  registerA2AServer(app, {
    bundle: () => bundle,
    verifier: a2aVerifier(loadConfig({ NODE_ENV: 'development' })),
    handlers: registerFinanceHandlers(new HandlerRegistry()),
    tools: new ToolGateway(noExchange, new Map(), log),
    tasks: new InMemoryTaskStore(),
    events: new InMemoryTaskEvents(),
    log,
    executionLimits: new ExecutionLimits({ budgets: new RedisBudgetStore(redis, PREFIX) }),
  });
  app.get('/sent', (_req, reply) => reply.send({ sent }));
  void app.listen({ port: Number(port), host: '127.0.0.1' });
} else {
  void main();
}

const BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'SendMessage',
  params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'Look up invoice INV-20931' }] } },
});
const HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };

async function waitFor(url: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      const r = await fetch(url, { method: 'POST', headers: HEADERS, body: BODY });
      const text = await r.text();
      if (r.status === 200 && text.includes('TASK_STATE_COMPLETED')) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not complete a SendMessage within ${ms} ms`);
}

interface Run {
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  commands: number;
  roundTrips: number;
}

const commandsProcessed = async (redis: Redis) => Number(/total_commands_processed:(\d+)/.exec(await redis.info('stats'))![1]);

const sentBy = async (url: string) => ((await (await fetch(url.replace('/a2a/jsonrpc', '/sent'))).json()) as { sent: number }).sent;

async function load(url: string, redis: Redis): Promise<Run> {
  const sentBefore = await sentBy(url);
  const before = await commandsProcessed(redis);
  const r = await autocannon({ url, connections: 50, duration: DURATION, method: 'POST', headers: HEADERS, body: BODY });
  // -1: the INFO call that reads `before` is itself counted in the next reading.
  const commands = (await commandsProcessed(redis)) - before - 1;
  const roundTrips = (await sentBy(url)) - sentBefore;
  if (r.non2xx > 0) throw new Error(`${url}: ${r.non2xx} non-2xx answers`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, ok: r['2xx'], commands, roundTrips };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const privateRedis = await startPrivateRedis();
  const redis = new Redis(privateRedis.url);
  const ports = { off: await freePort(), on: await freePort() };
  const children: ChildProcess[] = (['off', 'on'] as const).map((mode) =>
    spawn(process.execPath, [require.resolve('tsx/cli'), __filename, '--serve', mode, String(ports[mode]), privateRedis.url], {
      stdio: 'ignore',
    }),
  );
  try {
    const url = (mode: 'off' | 'on') => `http://127.0.0.1:${ports[mode]}/a2a/jsonrpc`;
    await waitFor(url('off'));
    await waitFor(url('on'));
    for (const mode of ['off', 'on'] as const)
      await autocannon({ url: url(mode), connections: 10, duration: 1, method: 'POST', headers: HEADERS, body: BODY });
    const runs: Record<'off' | 'on', Run[]> = { off: [], on: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
      for (const mode of order) runs[mode].push(await load(url(mode), redis));
    }
    const row = (name: string, r: Run[]) => {
      const calls = r.reduce((s, x) => s + x.ok, 0);
      const cmds = r.reduce((s, x) => s + x.commands, 0);
      const trips = r.reduce((s, x) => s + x.roundTrips, 0);
      return `| ${name} | ${median(r.map((x) => x.rps)).toFixed(0)} | ${median(r.map((x) => x.p50))}/${median(r.map((x) => x.p99))} | ${(trips / calls).toFixed(3)} | ${(cmds / calls).toFixed(3)} |`;
    };
    console.log(
      `\nSendMessage (JSON-RPC, anonymous, invoice lookup), 50 connections, ${ROUNDS} interleaved rounds of ${DURATION} s, medians:`,
    );
    console.log(`| server | SendMessage/s | p50/p99 ms | Redis round trips per call | commands Redis ran per call |`);
    console.log(`|---|---:|---:|---:|---:|`);
    console.log(row('budgets off (no budget for the class)', runs.off));
    console.log(row('budgets on (cost_class low, Redis Lua per call)', runs.on));
    console.log(`ratio on/off: ${(median(runs.on.map((x) => x.rps)) / median(runs.off.map((x) => x.rps))).toFixed(2)}`);
    await inProcess(redis);
    const keys = await redis.keys(`${PREFIX}*`);
    const counted = keys.length ? (await redis.mget(...keys)).reduce((sum, v) => sum + Number(v), 0) : 0;
    console.log(`budget counters after the runs: ${counted} calls counted under ${keys.length} key(s), none refused`);
  } finally {
    for (const c of children) c.kill('SIGTERM');
    redis.disconnect();
    await privateRedis.stop();
  }
}

/**
 * The same comparison without HTTP, in one process: A2AService.sendMessage with 50 calls in
 * flight, batches of 2,000 alternating between budgets off and on (same CPU phase for both).
 */
async function inProcess(redis: Redis): Promise<void> {
  const services = Object.fromEntries(
    (['off', 'on'] as const).map((mode) => {
      const bundle = benchBundle(mode);
      return [
        mode,
        new A2AService({
          bundle: () => bundle,
          handlers: registerFinanceHandlers(new HandlerRegistry()),
          tasks: new InMemoryTaskStore(),
          events: new InMemoryTaskEvents(),
          tools: new ToolGateway(noExchange, new Map(), quiet),
          log: quiet,
          executionLimits: new ExecutionLimits({ budgets: new RedisBudgetStore(redis, `${PREFIX}in-process:`) }),
        }),
      ];
    }),
  ) as Record<'off' | 'on', A2AService>;
  const params = JSON.parse(BODY).params as unknown;
  const batch = async (svc: A2AService) => {
    const start = process.hrtime.bigint();
    let next = 0;
    const worker = async () => {
      while (next++ < 2000) await svc.sendMessage(params, { caller: null }, []);
    };
    await Promise.all(Array.from({ length: 50 }, worker));
    return 2000 / (Number(process.hrtime.bigint() - start) / 1e9);
  };
  for (const mode of ['off', 'on'] as const) await batch(services[mode]); // warm-up
  const rates: Record<'off' | 'on', number[]> = { off: [], on: [] };
  for (let i = 0; i < 20; i++) {
    const order = i % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
    for (const mode of order) rates[mode].push(await batch(services[mode]));
  }
  const off = median(rates.off);
  const on = median(rates.on);
  console.log(`\nIn process (A2AService.sendMessage, 50 in flight, 20 interleaved batches of 2,000, medians):`);
  console.log(`| budgets | sendMessage/s | µs per call |`);
  console.log(`|---|---:|---:|`);
  console.log(`| off | ${off.toFixed(0)} | ${(1e6 / off).toFixed(1)} |`);
  console.log(`| on | ${on.toFixed(0)} | ${(1e6 / on).toFixed(1)} |`);
  console.log(`ratio on/off: ${(on / off).toFixed(2)}`);
}
