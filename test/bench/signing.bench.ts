/**
 * Signed projections (issue 16). Run: `npx tsx test/bench/signing.bench.ts` (no build needed).
 *
 * 1. Signing cost per (revision, entitlement class) for a 10,000-manifest agent: signing one card
 *    (§8.4.1 payload, JCS, ES256, the bytes re-serialized with `signatures`) against the plain
 *    serialisation the control plane did before (canonical JSON + ETag) of the same card; and a
 *    whole bundle (every class) signed against JSON.stringify of it.
 * 2. Bundle verification at the node: verifyNodeBundle (bundle JWS + every card signature)
 *    against checkNodeBundle (the unsigned check nodes already ran), same bundle, same run; and
 *    the node's check of the signatures of one lazily computed class's card (ADR 0132).
 * 3. Public-card serving throughput with signatures: the node SDK's card route (registerCardRoute
 *    over an ActiveBundle whose card carries signatures) against a bare Fastify sending the same
 *    bytes with the same headers; each its own process, autocannon here, rounds interleaved.
 * The machine is shared (2 cores, other work running): the ratios are what count.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import {
  buildExtendedCard,
  buildNodeBundle,
  checkNodeBundle,
  financeAgentExample,
  serializeCard,
  serializeCardWithSignatures,
  type CapabilityManifest,
  type NodeBundle,
  type RegistrySnapshot,
} from '@cp/capabilities';
import {
  cardSignatures,
  signNodeBundle,
  signProjection,
  verifyCardSignature,
  verifyNodeBundle,
  type SignatureKey,
} from '@cp/node-protocol';
import { ActiveBundle } from '@cp/node-sdk';
import { registerCardRoute } from '../../libs/node-sdk/src/a2a/card-route';
import { freePort } from '../support/free-port';
import { testSigningKey } from '../support/signed-bundle';

const MANIFESTS = 10_000;
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
/** `signing` (tables 1 and 2), `throughput` (table 3) or both (default). */
const PART = process.env.BENCH_PART ?? 'all';

interface AutocannonResult {
  non2xx: number;
  requests: { average: number };
  latency: { p50: number; p99: number };
}
const autocannon = require('autocannon') as (opts: { url: string; connections: number; duration: number }) => Promise<AutocannonResult>;

function registry(n: number): CapabilityManifest[] {
  let seed = 42;
  const r = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const scopes = ['recon.run', 'invoices.read', 'reports.view', 'admin.all', 'payroll.run'];
  return Array.from({ length: n }, (_, i) => {
    const visibility = r() < 0.5 ? 'public' : r() < 0.9 ? 'extended' : 'internal';
    return {
      id: `capability-${String(i).padStart(5, '0')}`,
      state: 'ga',
      visibility,
      skill: {
        name: `Skill number ${i}`,
        description: `Does the work of capability ${i}: matches records, lists differences and returns a summary. Überprüft – 検証.`,
        tags: ['finance', 'invoices'],
        examples: [`Please run capability ${i} on INV-${i}.`],
        inputModes: ['text/plain', 'application/pdf'],
        outputModes: ['application/json'],
      },
      requiresScopes: visibility === 'public' ? [] : [scopes[Math.floor(r() * scopes.length)]],
      tenants: '*',
      handler: `team.v1.handler_${i}`,
      limits: {},
      owner: 'platform-team',
    } satisfies CapabilityManifest;
  });
}

async function time(fn: () => unknown, iterations: number, warmup = 3): Promise<{ median: number; p99: number }> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return {
    median: samples[Math.floor(samples.length / 2)],
    p99: samples[Math.min(samples.length - 1, Math.ceil(samples.length * 0.99) - 1)],
  };
}

const fmt = (n: number) => (n < 1 ? n.toFixed(3) : n.toFixed(1));
const row = (name: string, a: { median: number; p99: number }, b: { median: number; p99: number }) =>
  console.log(`| ${name} | ${fmt(a.median)} | ${fmt(a.p99)} | ${fmt(b.median)} | ${fmt(b.p99)} | ${(a.median / b.median).toFixed(2)}× |`);

// ---- child modes: the two card servers -------------------------------------------------------
if (process.argv[2] === '--bare' || process.argv[2] === '--node') {
  const [, , mode, file, port] = process.argv;
  const bundle = new ActiveBundle(JSON.parse(readFileSync(file, 'utf8')) as NodeBundle);
  const app = Fastify();
  if (mode === '--node') registerCardRoute(app, () => bundle, 60);
  else {
    const body = Buffer.from(bundle.publicCard.body);
    const etag = bundle.publicCard.etag;
    app.get('/.well-known/agent-card.json', (req, reply) => {
      void reply.header('etag', etag).header('cache-control', 'public, max-age=60');
      if (req.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.header('content-type', 'application/json').send(body);
    });
  }
  void app.listen({ port: Number(port), host: '127.0.0.1' });
} else {
  void main();
}

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} never answered`);
}

async function main(): Promise<void> {
  const { key, jwks } = testSigningKey('bench-key');
  const finance = financeAgentExample();
  const small = await signNodeBundle(
    buildNodeBundle({ agentId: 'finance-agent', revision: 1, agent: finance.agent, manifests: finance.manifests, previewTenants: [] }),
    key,
  );
  const smallText = JSON.stringify(small);
  if (PART !== 'throughput') await signingTables(key, jwks, small, smallText);
  if (PART !== 'signing') await throughputTable(smallText);
}

async function signingTables(key: SignatureKey, jwks: { keys: object[] }, small: NodeBundle, smallText: string): Promise<void> {
  const { agent } = financeAgentExample();
  const snapshot: RegistrySnapshot = { agentId: 'bench', revision: 1, agent, manifests: registry(MANIFESTS), previewTenants: [] };
  const caller = { principal: 'bench@acme', tenant: 'acme', scopes: ['recon.run', 'invoices.read', 'reports.view'] };
  const extended = serializeCard(buildExtendedCard(snapshot, caller));
  console.log(`Node ${process.version}; ${MANIFESTS} manifests; one extended card: ${extended.body.length} bytes.\n`);

  console.log('### Signing, per (revision, entitlement class)\n');
  console.log('| operation | median ms | p99 ms | baseline median ms | baseline p99 ms | ratio |');
  console.log('|---|---:|---:|---:|---:|---:|');
  const card = buildExtendedCard(snapshot, caller);
  row(
    'sign one extended card (10,000-manifest agent) vs serializeCard of it',
    await time(() => signProjection(extended, key), 30),
    await time(() => serializeCard(card), 30),
  );
  const bundle = buildNodeBundle(snapshot, { classLimit: 16 });
  const classes = bundle.classes.length + 1;
  const signed = await signNodeBundle(bundle, key);
  row(
    `sign a whole bundle (${classes} cards + bundle JWS) vs JSON.stringify of it`,
    await time(() => signNodeBundle(bundle, key), 5, 1),
    await time(() => JSON.stringify(bundle), 5, 1),
  );

  console.log('\n### Bundle verification at the node\n');
  console.log('| operation | median ms | p99 ms | baseline median ms | baseline p99 ms | ratio |');
  console.log('|---|---:|---:|---:|---:|---:|');
  const text = JSON.stringify(signed);
  row(
    `verifyNodeBundle (${classes} card signatures + bundle JWS) vs checkNodeBundle, 10,000 manifests`,
    await time(() => verifyNodeBundle(signed, jwks), 5, 1),
    await time(() => checkNodeBundle(text), 5, 1),
  );
  // A class past the bundle's limit (ADR 0132): the node verifies the control plane's signatures
  // over the card it computed, once per (revision, class).
  const lazySignatures = await cardSignatures(card, key);
  const lazySigned = serializeCardWithSignatures(card, lazySignatures);
  row(
    'verify the signatures of one lazily computed extended card (10,000 manifests) vs serializeCard of it',
    await time(() => verifyCardSignature(lazySigned.body, jwks), 30),
    await time(() => serializeCard(card), 30),
  );
  row(
    'verifyNodeBundle vs checkNodeBundle, the finance agent (3 cards)',
    await time(() => verifyNodeBundle(small, jwks), 50),
    await time(() => checkNodeBundle(smallText), 50),
  );
}

async function throughputTable(smallText: string): Promise<void> {
  console.log(
    `\n### Public card throughput, signed card (autocannon, 50 connections, ${ROUNDS} rounds of ${DURATION} s, order alternating)\n`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'bench-signing-'));
  const file = join(dir, 'bundle.json');
  writeFileSync(file, smallText);
  const [nodePort, barePort] = [await freePort(), await freePort()];
  const children: ChildProcess[] = [
    spawn(process.execPath, [require.resolve('tsx/cli'), __filename, '--node', file, String(nodePort)], { stdio: 'ignore' }),
    spawn(process.execPath, [require.resolve('tsx/cli'), __filename, '--bare', file, String(barePort)], { stdio: 'ignore' }),
  ];
  try {
    const nodeUrl = `http://127.0.0.1:${nodePort}/.well-known/agent-card.json`;
    const bareUrl = `http://127.0.0.1:${barePort}/.well-known/agent-card.json`;
    await Promise.all([waitFor(nodeUrl), waitFor(bareUrl)]);
    const served = (await (await fetch(nodeUrl)).json()) as { signatures?: unknown[] };
    if (!served.signatures?.length) throw new Error('the card served carries no signatures');
    const bare: AutocannonResult[] = [];
    const ours: AutocannonResult[] = [];
    // Warm both (JIT, connection pools), then rounds in alternating order so load drift on a shared
    // machine does not always favour the same side.
    await autocannon({ url: bareUrl, connections: 50, duration: 1 });
    await autocannon({ url: nodeUrl, connections: 50, duration: 1 });
    for (let i = 0; i < ROUNDS; i++) {
      const run = (url: string) => autocannon({ url, connections: 50, duration: DURATION });
      if (i % 2 === 0) {
        bare.push(await run(bareUrl));
        ours.push(await run(nodeUrl));
      } else {
        ours.push(await run(nodeUrl));
        bare.push(await run(bareUrl));
      }
    }
    const perRound = bare.map((r, i) => ours[i].requests.average / r.requests.average);
    const med = (xs: AutocannonResult[], f: (r: AutocannonResult) => number) =>
      [...xs.map(f)].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const b = med(bare, (r) => r.requests.average);
    const o = med(ours, (r) => r.requests.average);
    console.log('| server | req/s | p50 ms | p99 ms |');
    console.log('|---|---:|---:|---:|');
    console.log(`| bare Fastify, same bytes | ${b.toFixed(0)} | ${med(bare, (r) => r.latency.p50)} | ${med(bare, (r) => r.latency.p99)} |`);
    console.log(
      `| node SDK card route (signed card) | ${o.toFixed(0)} | ${med(ours, (r) => r.latency.p50)} | ${med(ours, (r) => r.latency.p99)} |`,
    );
    console.log(
      `\nratio node / bare: ${(o / b).toFixed(2)}× of the medians; per round: ${perRound.map((r) => r.toFixed(2)).join(', ')} (non-2xx: ${[...bare, ...ours].reduce((n, r) => n + r.non2xx, 0)})`,
    );
  } finally {
    for (const c of children) c.kill();
  }
}
