/**
 * Agent node benchmark (issue 6). Run: `npm run bench agent-node` (builds dist/ first), or
 * `npx nest build control-plane && npx tsx test/bench/agent-node-a2a.bench.ts`.
 *
 * 1. Public card 200 and 304: the REAL agent node (dist/apps/agent-node, Nest app with the A2A
 *    layer as raw Fastify routes, serving a bundle NodeSync loaded from its disk cache) against a
 *    bare Fastify server sending the same bytes with the same headers. Each server is its own
 *    process; autocannon (50 connections) runs here; rounds interleave baseline and product.
 * 2. Extended card over JSON-RPC with JWT verification (HS256) per request, against a bare
 *    Fastify that verifies the same token with jsonwebtoken and sends the same bytes.
 * 3. Routing decisions per second over a 2,000-capability router index (in process), against a
 *    bare baseline that only filters the entries by media type.
 *
 * BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the agent node under the load;
 * BENCH_CASES=304 (a substring of the case names) runs only the matching cases.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { createSecretKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { a2aAudience, mintA2AToken } from '@cp/auth';
import { loadConfig, requestIdFor, SECURITY_HEADERS } from '@cp/common';
import {
  buildNodeBundle,
  buildRouterIndex,
  financeAgentExample,
  mediaTypeMatches,
  partMediaType,
  route,
  type CapabilityManifest,
  type WireMessage,
} from '@cp/capabilities';
import { freePort } from '../support/free-port';
import { processCpuSeconds } from '../support/process-cpu';
import { writeSignedBundle } from '../support/signed-bundle';

// autocannon ships no types; this is the part used here.
interface AutocannonResult {
  non2xx: number;
  requests: { average: number; total: number };
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

const ROOT = join(__dirname, '..', '..');
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

// ---- child mode: the bare Fastify baseline -------------------------------------------------
if (process.argv[2] === '--bare') {
  const card = readFileSync(process.argv[3], 'utf8');
  const ext = readFileSync(process.argv[4], 'utf8');
  const { etag, secret, audience, issuer } = JSON.parse(process.argv[5]) as Record<string, string>;
  const body = Buffer.from(card);
  const app = Fastify({ genReqId: requestIdFor });
  // The same response headers as the node's: its security headers and request id on every answer
  // (set on arrival, issue 11), and Vary on the card. Without them the floor did less work than
  // the node on a body-less 304, where eight headers are most of the answer.
  const sameHeaders = process.argv[7] !== 'lean';
  if (sameHeaders)
    app.addHook('onRequest', (request, reply, done) => {
      void reply.headers(SECURITY_HEADERS).header('x-request-id', request.id);
      done();
    });
  app.get('/.well-known/agent-card.json', (req, reply) => {
    void reply.header('etag', etag).header('cache-control', 'public, max-age=60');
    if (sameHeaders) void reply.header('vary', 'A2A-Version');
    if (req.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.header('content-type', 'application/json').send(body);
  });
  // A KeyObject, as the product uses: a string secret costs jsonwebtoken a failed public-key parse per call.
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  app.post('/a2a/jsonrpc', (req, reply) => {
    const token = (req.headers.authorization ?? '').slice(7);
    jwt.verify(token, key, { algorithms: ['HS256'], audience, issuer });
    return reply.header('content-type', 'application/json').send(`{"jsonrpc":"2.0","id":1,"result":${ext}}`);
  });
  void app.listen({ port: Number(process.argv[6]), host: '127.0.0.1' });
} else {
  void main();
}

async function waitFor(url: string, ms = 90_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer 200 within ${ms} ms`);
}

interface Run {
  rps: number;
  p50: number;
  p99: number;
  /** Server CPU (user + system, the process and its children) per answered request, in µs. */
  cpuUs?: number;
}

const cpuSeconds = (pid: number | undefined) => processCpuSeconds(pid, { descendants: true });

async function load(url: string, opts: { headers?: Record<string, string>; method?: 'GET' | 'POST'; body?: string } = {}): Promise<Run> {
  const r = await autocannon({
    url,
    connections: 50,
    duration: DURATION,
    headers: opts.headers,
    method: opts.method ?? 'GET',
    body: opts.body,
  });
  if (r.non2xx > 0 && !(opts.headers && 'if-none-match' in opts.headers)) throw new Error(`${url}: ${r.non2xx} non-2xx answers`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, total: r.requests.total } as Run & { total: number };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const config = loadConfig({ NODE_ENV: 'development' });
  const dir = mkdtempSync(join(tmpdir(), 'bench-agent-node-'));
  const [nodePort, barePort, leanPort] = [await freePort(), await freePort(), await freePort()];
  const finance = financeAgentExample({ baseUrl: `http://127.0.0.1:${nodePort}` });
  // Signed like the control plane signs it: the cards served below carry their signatures (ADR 0130).
  const bundle = await writeSignedBundle(
    dir,
    buildNodeBundle({ agentId: 'finance-agent', revision: 1, agent: finance.agent, manifests: finance.manifests, previewTenants: [] }),
  );
  const partner = finance.callers.partner!;
  const token = mintA2AToken(config, partner.principal, partner.tenant, [...partner.scopes]);
  const partnerClass = bundle.classes.find((c) => c.extendedCard.body.includes('reconcile-invoice'))!;
  writeFileSync(join(dir, 'card.json'), bundle.publicCard.body);
  writeFileSync(join(dir, 'ext.json'), partnerClass.extendedCard.body);

  const children: ChildProcess[] = [];
  const unreachable = `http://127.0.0.1:${await freePort()}`;
  children.push(
    spawn(
      process.execPath,
      [...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean), join(ROOT, 'dist/apps/agent-node/src/main.js')],
      {
        env: {
          ...process.env,
          NODE_ENV: 'development',
          LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
          AGENT_NODE_PORT: String(nodePort),
          NODE_CACHE_DIR: dir,
          NODE_ID: 'bench-node',
          CONTROL_PLANE_URL: unreachable,
          REDIS_KEY_PREFIX: 'bench-an:',
          USAGE_FLUSH_INTERVAL_MS: '3600000',
        },
        stdio: 'ignore',
      },
    ),
    spawn(
      process.execPath,
      [
        require.resolve('tsx/cli'),
        __filename,
        '--bare',
        join(dir, 'card.json'),
        join(dir, 'ext.json'),
        JSON.stringify({
          etag: bundle.publicCard.etag,
          secret: config.JWT_SECRET,
          audience: a2aAudience(config),
          issuer: config.A2A_JWT_ISSUER,
        }),
        String(barePort),
      ],
      { stdio: 'ignore' },
    ),
  );
  // The earlier floor, for comparison with older figures: the card without the node's security
  // headers, request id and Vary ("lean").
  const bareArgs = children[1].spawnargs.slice(1);
  children.push(spawn(process.execPath, [...bareArgs.slice(0, -1), String(leanPort), 'lean'], { stdio: 'ignore' }));
  try {
    const node = `http://127.0.0.1:${nodePort}`;
    const bare = `http://127.0.0.1:${barePort}`;
    const lean = `http://127.0.0.1:${leanPort}`;
    await waitFor(`${node}/.well-known/agent-card.json`);
    await waitFor(`${bare}/.well-known/agent-card.json`);
    await waitFor(`${lean}/.well-known/agent-card.json`);
    const bareHeaders = (await fetch(`${bare}/.well-known/agent-card.json`)).headers;
    const nodeHeaders = (await fetch(`${node}/.well-known/agent-card.json`)).headers;
    const missing = [...nodeHeaders.keys()].filter((h) => !bareHeaders.has(h) && !['date', 'connection', 'keep-alive'].includes(h));
    if (missing.length > 0) throw new Error(`the floor sends fewer headers than the node: ${missing.join(', ')}`);
    const served = await (await fetch(`${node}/.well-known/agent-card.json`)).text();
    if (served !== bundle.publicCard.body) throw new Error('the node does not serve the bundle bytes');
    const rpcBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard', params: {} });
    const rpcHeaders = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'a2a-version': '1.0' };
    const allCases: [string, (base: string) => Promise<Run>][] = [
      ['public card 200', (b) => load(`${b}/.well-known/agent-card.json`)],
      ['public card 304', (b) => load(`${b}/.well-known/agent-card.json`, { headers: { 'if-none-match': bundle.publicCard.etag } })],
      ['extended card (JSON-RPC + JWT verify)', (b) => load(`${b}/a2a/jsonrpc`, { method: 'POST', headers: rpcHeaders, body: rpcBody })],
    ];
    const cases = allCases.filter(([name]) => name.includes(process.env.BENCH_CASES ?? ''));
    // Warm-up.
    for (const [, run] of cases) {
      await autocannon({ url: `${node}/.well-known/agent-card.json`, connections: 10, duration: 1 });
      void run;
    }
    const results: Record<string, { bare: Run[]; node: Run[]; lean: Run[] }> = {};
    const base = { bare, node, lean };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, run] of cases) {
        results[name] ??= { bare: [], node: [], lean: [] };
        // Rotate which goes first, so a fast/slow phase of the VM hits each.
        const order = (['bare', 'node', 'lean'] as const).map((_, i, all) => all[(i + round) % all.length]);
        for (const who of order) {
          const pid = children[{ node: 0, bare: 1, lean: 2 }[who]].pid;
          const cpu0 = cpuSeconds(pid);
          const r = (await run(base[who])) as Run & { total: number };
          const cpu = cpuSeconds(pid) - cpu0;
          results[name][who].push({ ...r, cpuUs: cpu > 0 ? (cpu * 1e6) / r.total : undefined });
        }
      }
    }
    // Every round's figures, for the spread behind the medians.
    if (process.env.BENCH_VERBOSE) console.log(JSON.stringify(results));
    console.log(
      `\n| path | bare Fastify req/s | node req/s | ratio | bare p50/p99 ms | node p50/p99 ms | lean bare req/s | node / lean | CPU µs/req bare / node (bare/node) |`,
    );
    console.log(`|---|---:|---:|---:|---:|---:|---:|---:|---:|`);
    for (const [name, r] of Object.entries(results)) {
      const b = median(r.bare.map((x) => x.rps));
      const n = median(r.node.map((x) => x.rps));
      const l = median(r.lean.map((x) => x.rps));
      const cb = median(r.bare.map((x) => x.cpuUs ?? NaN));
      const cn = median(r.node.map((x) => x.cpuUs ?? NaN));
      console.log(
        `| ${name} | ${b.toFixed(0)} | ${n.toFixed(0)} | ${(n / b).toFixed(2)} | ${median(r.bare.map((x) => x.p50))}/${median(r.bare.map((x) => x.p99))} | ${median(r.node.map((x) => x.p50))}/${median(r.node.map((x) => x.p99))} | ${l.toFixed(0)} | ${(n / l).toFixed(2)} | ${cb.toFixed(1)} / ${cn.toFixed(1)} (${(cb / cn).toFixed(2)}) |`,
      );
    }
  } finally {
    for (const c of children) c.kill('SIGTERM');
  }
  if (!process.env.BENCH_CASES) routingBench();
}

function routingBench(): void {
  const words = [
    'invoice',
    'reconcile',
    'payroll',
    'report',
    'audit',
    'export',
    'ledger',
    'tax',
    'refund',
    'order',
    'shipment',
    'contract',
  ];
  const modes = ['text/plain', 'application/pdf', 'application/json', 'image/png'];
  const manifests: CapabilityManifest[] = Array.from({ length: 2000 }, (_, i) => ({
    id: `cap-${String(i).padStart(4, '0')}`,
    state: 'ga',
    visibility: 'public',
    skill: {
      name: `${words[i % 12]} ${words[(i * 7) % 12]} code${i}`,
      description: `Handles ${words[(i * 3) % 12]} and ${words[(i * 5) % 12]} requests, variant ${i}.`,
      tags: [words[i % 12], words[(i * 11) % 12]],
      examples: [`Please ${words[i % 12]} the ${words[(i * 7) % 12]} number ${i}`],
      inputModes: [modes[i % 4], 'text/plain'],
      outputModes: ['application/json'],
    },
    requiresScopes: [],
    tenants: '*',
    handler: `h.${i}`,
    limits: {},
    owner: 'bench',
  }));
  const snapshot = { agentId: 'bench', revision: 1, agent: financeAgentExample().agent, manifests, previewTenants: [] };
  const index = buildRouterIndex(snapshot, null);
  const messages: WireMessage[] = Array.from({ length: 500 }, (_, i) => ({
    messageId: `m${i}`,
    role: 'ROLE_USER',
    parts: [
      { text: `please ${words[i % 12]} the ${words[(i * 7) % 12]} code${(i * 37) % 2000}` },
      ...(i % 3 === 0 ? [{ raw: 'AA', mediaType: modes[i % 4] }] : []),
    ],
  }));
  const time = (fn: (m: WireMessage) => unknown) => {
    for (let i = 0; i < 2000; i++) fn(messages[i % messages.length]); // warm-up
    const samples: number[] = [];
    const start = process.hrtime.bigint();
    for (let i = 0; i < 20_000; i++) {
      const t0 = process.hrtime.bigint();
      fn(messages[i % messages.length]);
      samples.push(Number(process.hrtime.bigint() - t0) / 1e3);
    }
    const total = Number(process.hrtime.bigint() - start) / 1e9;
    samples.sort((a, b) => a - b);
    return { perSec: 20_000 / total, p50: samples[10_000], p99: samples[19_800] };
  };
  const baseline = time((m) => {
    const types = m.parts.map(partMediaType);
    return index.entries.filter((e) => types.every((t) => e.inputModes.some((mode) => mediaTypeMatches(t, mode))));
  });
  const routed = time((m) => route(m, null, index));
  const kinds: Record<string, number> = {};
  for (const m of messages) kinds[route(m, null, index).kind] = (kinds[route(m, null, index).kind] ?? 0) + 1;
  console.log(`\n| routing, 2,000 capabilities | decisions/s | p50 µs | p99 µs |`);
  console.log(`|---|---:|---:|---:|`);
  console.log(`| bare media-type filter only | ${baseline.perSec.toFixed(0)} | ${baseline.p50.toFixed(1)} | ${baseline.p99.toFixed(1)} |`);
  console.log(
    `| route() (all layers, lexical classifier) | ${routed.perSec.toFixed(0)} | ${routed.p50.toFixed(1)} | ${routed.p99.toFixed(1)} |`,
  );
  console.log(
    `ratio route/baseline: ${(routed.perSec / baseline.perSec).toFixed(2)}; outcomes over the message set: ${JSON.stringify(kinds)}`,
  );
}
