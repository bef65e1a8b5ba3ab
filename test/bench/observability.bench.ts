/**
 * Issue 17: what metrics and tracing cost on the card path. Four servers, each its own process,
 * serving the finance agent's public card (and its extended card over JSON-RPC with an HS256
 * token verified per request), measured in interleaved rounds in one run:
 *   bare      Fastify sending the same bytes and headers (the baseline);
 *   hooked    bare plus an onResponse hook that does nothing: what timing the card with a hook
 *             would cost (ADR 0143: Fastify then attaches response listeners to every request);
 *   off       the node-sdk A2A layer, no metrics, tracing off (the product as before);
 *   metrics   the same with NodeMetrics on a prom-client registry (counters, card latency timed in the handler);
 *   traced    metrics + tracing on (OTel SDK, W3C propagation, a batch processor to an exporter
 *             that drops spans: the SDK's cost without the network), every request sampled;
 *   sampled   the same with OTEL_TRACES_SAMPLER=parentbased_traceidratio, OTEL_TRACES_SAMPLER_ARG=0.1
 *             (callers send no traceparent here, so one request in ten is recorded).
 * The card path must stay ≥ 0.8× bare with metrics on. Run: `npx tsx test/bench/observability.bench.ts`
 * (BENCH_ROUNDS, BENCH_SECONDS, BENCH_PATHS=304,200,extended to pick paths, BENCH_VERBOSE=1 for every round's req/s).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import Fastify from 'fastify';
import { Registry } from 'prom-client';
import {
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import { a2aVerifier, mintA2AToken } from '@cp/auth';
import { buildNodeBundle, financeAgentExample } from '@cp/capabilities';
import { loadConfig } from '@cp/common';
import { installTracerProvider } from '@cp/common/testing';
import {
  ActiveBundle,
  HandlerRegistry,
  InMemoryTaskEvents,
  InMemoryTaskStore,
  NodeMetrics,
  registerA2AServer,
  ToolGateway,
} from '@cp/node-sdk';
import { freePort } from '../support/free-port';

const autocannon = require('autocannon') as (opts: {
  url: string;
  connections: number;
  duration: number;
  headers?: Record<string, string>;
  method?: string;
  body?: string;
}) => Promise<{ requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number }>;

const ms = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));

const config = loadConfig({ NODE_ENV: 'test' });
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
type Mode = 'bare' | 'hooked' | 'off' | 'metrics' | 'traced' | 'sampled';

function bundle(): ActiveBundle {
  const f = financeAgentExample();
  return new ActiveBundle(
    buildNodeBundle({ agentId: 'finance-agent', revision: 1, agent: f.agent, manifests: f.manifests, previewTenants: [] }),
  );
}

class DroppingExporter implements SpanExporter {
  export(_spans: ReadableSpan[], done: (result: { code: 0 }) => void): void {
    done({ code: 0 });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

async function serve(mode: Mode, port: number): Promise<void> {
  const b = bundle();
  const app = Fastify();
  if (mode === 'bare' || mode === 'hooked') {
    const bytes = Buffer.from(b.publicCard.body);
    const ext = b.extendedCardFor({ principal: 'p', tenant: 'acme-partner', scopes: ['recon.run'] });
    const verifier = a2aVerifier(config);
    const hooks = mode === 'hooked' ? { onResponse: (_q: unknown, _r: unknown, done: () => void) => done() } : {};
    app.get('/.well-known/agent-card.json', hooks, (request, reply) => {
      void reply.header('etag', b.publicCard.etag).header('cache-control', 'public, max-age=60');
      if (request.headers['if-none-match'] === b.publicCard.etag) return reply.code(304).send();
      return reply.header('content-type', 'application/json').send(bytes);
    });
    app.post('/a2a/jsonrpc', async (request, reply) => {
      await verifier.verify(String(request.headers.authorization).slice(7), 'a2a');
      return reply.header('content-type', 'application/json').send(`{"jsonrpc":"2.0","id":1,"result":${ext.body}}`);
    });
  } else {
    const processors = [new BatchSpanProcessor({ exporter: new DroppingExporter() })];
    if (mode === 'traced') installTracerProvider('bench', processors);
    if (mode === 'sampled') installTracerProvider('bench', processors, new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0.1) }));
    const observer = mode === 'off' ? undefined : new NodeMetrics(new Registry(), { bundle: () => b });
    registerA2AServer(app, {
      bundle: () => b,
      verifier: a2aVerifier(config),
      handlers: new HandlerRegistry(),
      tools: new ToolGateway({ exchange: () => Promise.reject(new Error('unused')) }, new Map(), silent),
      log: silent,
      tasks: new InMemoryTaskStore(),
      events: new InMemoryTaskEvents(),
      observer,
    });
  }
  await app.listen({ port, host: '127.0.0.1' });
  process.send?.('ready');
}

/** The median (the mean of the two middle values of an even count). */
const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

async function main(): Promise<void> {
  const modes: Mode[] = ['bare', 'hooked', 'off', 'metrics', 'traced', 'sampled'];
  const children: ChildProcess[] = [];
  const urls: Record<Mode, string> = {} as Record<Mode, string>;
  try {
    for (const mode of modes) {
      const port = await freePort();
      const child = spawn(process.execPath, [...process.execArgv, __filename, '--serve', mode, String(port)], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      children.push(child);
      await new Promise<void>((resolve, reject) => {
        child.once('message', () => resolve());
        child.once('exit', (code) => reject(new Error(`${mode} server exited (${code})`)));
      });
      urls[mode] = `http://127.0.0.1:${port}`;
    }
    const token = mintA2AToken(config, 'bench@acme-partner', 'acme-partner', ['recon.run']);
    const etag = bundle().publicCard.etag;
    const paths = {
      'public card 200': (u: string) => ({ url: `${u}/.well-known/agent-card.json` }),
      'public card 304': (u: string) => ({ url: `${u}/.well-known/agent-card.json`, headers: { 'if-none-match': etag } }),
      'extended card (JSON-RPC, JWT)': (u: string) => ({
        url: `${u}/a2a/jsonrpc`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${token}` },
        body: '{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard"}',
      }),
    };
    const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
    const seconds = Number(process.env.BENCH_SECONDS ?? 3);
    for (const mode of modes) await autocannon({ url: `${urls[mode]}/.well-known/agent-card.json`, connections: 10, duration: 1 });
    console.log(
      `\n| path | ${modes.join(' req/s | ')} req/s | hooked/bare | off/bare | metrics/bare | traced/bare | traced/metrics | sampled/metrics | p50 ms (${modes.join('/')}) | p99 ms (${modes.join('/')}) |`,
    );
    console.log(`| --- | ${modes.map(() => '---').join(' | ')} | --- | --- | --- | --- | --- | --- | --- | --- |`);
    const only = process.env.BENCH_PATHS?.split(',');
    for (const [name, opts] of Object.entries(paths)) {
      if (only && !only.some((p) => name.includes(p))) continue;
      const empty = () => Object.fromEntries(modes.map((x) => [x, [] as number[]])) as Record<Mode, number[]>;
      const [rps, p50, p99] = [empty(), empty(), empty()];
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 === 0 ? modes : [...modes].reverse();
        for (const mode of order) {
          const r = await autocannon({ ...opts(urls[mode]), connections: 50, duration: seconds });
          if (r.non2xx > 0 && !name.includes('304')) throw new Error(`${mode} answered ${r.non2xx} non-2xx on ${name}`);
          rps[mode].push(r.requests.average);
          p50[mode].push(r.latency.p50);
          p99[mode].push(r.latency.p99);
        }
      }
      const m = Object.fromEntries(modes.map((x) => [x, median(rps[x])])) as Record<Mode, number>;
      // Each ratio is the median of per-round ratios (a mode against the bare run of the same round),
      // so load from other processes that drifts between rounds cancels out.
      const ratio = (a: Mode, b: Mode) => median(rps[a].map((x, i) => x / rps[b][i])).toFixed(2);
      console.log(
        `| ${name} | ${modes.map((x) => m[x].toFixed(0)).join(' | ')} | ${ratio('hooked', 'bare')} | ${ratio('off', 'bare')} | ${ratio('metrics', 'bare')} | ${ratio('traced', 'bare')} | ${ratio('traced', 'metrics')} | ${ratio('sampled', 'metrics')} | ${modes.map((x) => ms(median(p50[x]))).join('/')} | ${modes.map((x) => ms(median(p99[x]))).join('/')} |`,
      );
      if (process.env.BENCH_VERBOSE) console.log(JSON.stringify(rps));
    }
  } finally {
    for (const child of children) child.kill();
  }
}

if (process.argv[2] === '--serve') void serve(process.argv[3] as Mode, Number(process.argv[4]));
else
  void main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
