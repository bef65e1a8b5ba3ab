/**
 * Issue 17: what metrics and tracing cost on the card path. Four servers, each its own process,
 * serving the finance agent's public card (and its extended card over JSON-RPC with an HS256
 * token verified per request), measured in interleaved rounds in one run:
 *   bare      Fastify sending the same bytes and headers (the baseline);
 *   off       the node-sdk A2A layer, no metrics, tracing off (the product as before);
 *   metrics   the same with NodeMetrics on a prom-client registry (counters, card latency hook);
 *   traced    metrics + tracing on (OTel SDK, W3C propagation, a batch processor to an exporter
 *             that drops spans: the SDK's cost without the network).
 * The card path must stay ≥ 0.8× bare with metrics on. Run: `npx tsx test/bench/observability.bench.ts`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import Fastify from 'fastify';
import { Registry } from 'prom-client';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
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

const config = loadConfig({ NODE_ENV: 'test' });
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
type Mode = 'bare' | 'off' | 'metrics' | 'traced';

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
  if (mode === 'bare') {
    const bytes = Buffer.from(b.publicCard.body);
    const ext = b.extendedCardFor({ principal: 'p', tenant: 'acme-partner', scopes: ['recon.run'] });
    const verifier = a2aVerifier(config);
    app.get('/.well-known/agent-card.json', (request, reply) => {
      void reply.header('etag', b.publicCard.etag).header('cache-control', 'public, max-age=60');
      if (request.headers['if-none-match'] === b.publicCard.etag) return reply.code(304).send();
      return reply.header('content-type', 'application/json').send(bytes);
    });
    app.post('/a2a/jsonrpc', async (request, reply) => {
      await verifier.verify(String(request.headers.authorization).slice(7), 'a2a');
      return reply.header('content-type', 'application/json').send(`{"jsonrpc":"2.0","id":1,"result":${ext.body}}`);
    });
  } else {
    if (mode === 'traced') installTracerProvider('bench', [new BatchSpanProcessor({ exporter: new DroppingExporter() })]);
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

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const modes: Mode[] = ['bare', 'off', 'metrics', 'traced'];
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
      `\n| path | ${modes.join(' req/s | ')} req/s | off/bare | metrics/bare | traced/bare | traced/metrics | p99 ms (bare/off/metrics/traced) |`,
    );
    console.log(`| --- | ${modes.map(() => '---').join(' | ')} | --- | --- | --- | --- | --- |`);
    for (const [name, opts] of Object.entries(paths)) {
      const rps: Record<Mode, number[]> = { bare: [], off: [], metrics: [], traced: [] };
      const p99: Record<Mode, number[]> = { bare: [], off: [], metrics: [], traced: [] };
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 === 0 ? modes : [...modes].reverse();
        for (const mode of order) {
          const r = await autocannon({ ...opts(urls[mode]), connections: 50, duration: seconds });
          if (r.non2xx > 0 && !name.includes('304')) throw new Error(`${mode} answered ${r.non2xx} non-2xx on ${name}`);
          rps[mode].push(r.requests.average);
          p99[mode].push(r.latency.p99);
        }
      }
      const m = Object.fromEntries(modes.map((x) => [x, median(rps[x])])) as Record<Mode, number>;
      console.log(
        `| ${name} | ${modes.map((x) => m[x].toFixed(0)).join(' | ')} | ${(m.off / m.bare).toFixed(2)} | ${(m.metrics / m.bare).toFixed(2)} | ${(m.traced / m.bare).toFixed(2)} | ${(m.traced / m.metrics).toFixed(2)} | ${modes.map((x) => median(p99[x])).join('/')} |`,
      );
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
