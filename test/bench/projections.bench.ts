/**
 * Benchmark of the capability core (issue 3): public card, one extended card and serialization
 * from a 10,000-manifest registry. Run: npx tsx test/bench/projections.bench.ts
 * Each operation is paired with a bare baseline doing the same raw work without our rules
 * (filter + map + JSON.stringify (+ sha256)), so the figure that matters is the ratio: these
 * machines have 2 noisy cores.
 */
import { createHash } from 'node:crypto';
import {
  buildExtendedCard,
  buildPublicCard,
  financeAgentExample,
  ProjectionCache,
  serializeCard,
  type Caller,
  type CapabilityManifest,
  type RegistrySnapshot,
} from '@cp/capabilities';

const MANIFESTS = 10_000;
const WARMUP = 30;
const ITERATIONS = 200;

// Deterministic PRNG (mulberry32) so every run measures the same registry.
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function registry(n: number): CapabilityManifest[] {
  const r = rng(42);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const scopes = ['recon.run', 'invoices.read', 'reports.view', 'admin.all', 'payroll.run'];
  const tenants = ['acme', 'globex', 'initech', 'umbrella', 'hooli'];
  return Array.from({ length: n }, (_, i) => {
    const id = `capability-${String(i).padStart(5, '0')}`;
    const visibility = r() < 0.5 ? 'public' : r() < 0.9 ? 'extended' : 'internal';
    const open = visibility === 'public';
    const roll = r();
    const state = roll < 0.1 ? 'preview' : roll < 0.8 ? 'ga' : roll < 0.9 ? 'deprecated' : 'removed';
    return {
      id,
      state,
      visibility,
      skill: {
        name: `Skill number ${i}`,
        description: `Does the work of capability ${i}: matches records, lists differences and returns a summary.`,
        tags: ['finance', pick(['invoices', 'payroll', 'reports'])],
        examples: [`Please run capability ${i} on INV-${i}.`],
        inputModes: ['text/plain', 'application/pdf'],
        outputModes: ['application/json'],
      },
      requiresScopes: open ? [] : [pick(scopes)],
      tenants: open || r() < 0.7 ? '*' : [pick(tenants), pick(tenants)].filter((t, k, a) => a.indexOf(t) === k),
      handler: `team.v1.handler_${i}`,
      limits: { cost_class: 'low', max_items: 100 },
      owner: 'platform-team',
      ...(state === 'deprecated' ? { deprecationReason: 'Superseded.' } : {}),
    };
  });
}

function measure(fn: () => unknown): { median: number; p99: number } {
  for (let i = 0; i < WARMUP; i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return {
    median: samples[Math.floor(samples.length / 2)],
    p99: samples[Math.min(samples.length - 1, Math.ceil(samples.length * 0.99) - 1)],
  };
}

const { agent } = financeAgentExample();
const manifests = registry(MANIFESTS);
const snapshot: RegistrySnapshot = { agentId: 'bench', revision: 1, agent, manifests, previewTenants: ['acme'] };
const caller: Caller = { principal: 'bench@acme', tenant: 'acme', scopes: ['recon.run', 'invoices.read', 'reports.view'] };
const publicCard = buildPublicCard(snapshot);
const extendedCard = buildExtendedCard(snapshot, caller);

// Baselines: the same raw work with none of our rules (no entitlement, ordering, versioning).
const bareSkills = (keep: (m: CapabilityManifest) => boolean) => manifests.filter(keep).map((m) => ({ id: m.id, ...m.skill }));
const barePublic = () => JSON.stringify({ ...agent, skills: bareSkills((m) => m.visibility === 'public' && m.state !== 'removed') });
const bareExtended = () =>
  JSON.stringify({
    ...agent,
    skills: bareSkills(
      (m) => m.state !== 'removed' && m.visibility !== 'internal' && m.requiresScopes.every((s) => caller.scopes.includes(s)),
    ),
  });
const bareSerialize = (card: object) => () => {
  const body = JSON.stringify(card);
  return createHash('sha256').update(body).digest('base64url');
};

const rows: [string, () => unknown, () => unknown][] = [
  ['buildPublicCard', () => buildPublicCard(snapshot), barePublic],
  ['buildExtendedCard (one caller)', () => buildExtendedCard(snapshot, caller), bareExtended],
  ['serializeCard (public: canonical JSON + ETag)', () => serializeCard(publicCard), bareSerialize(publicCard)],
  ['serializeCard (extended)', () => serializeCard(extendedCard), bareSerialize(extendedCard)],
  [
    'public card end to end (build + serialize)',
    () => serializeCard(buildPublicCard(snapshot)),
    () => createHash('sha256').update(barePublic()).digest('base64url'),
  ],
  [
    'ProjectionCache hit (extended, same class)',
    (() => {
      const cache = new ProjectionCache(snapshot);
      cache.extendedCardSerialized(caller);
      return () => cache.extendedCardSerialized({ ...caller, principal: 'other@acme' });
    })(),
    () => undefined,
  ],
];

const fmt = (n: number) => n.toFixed(2);
console.log(
  `Registry: ${MANIFESTS} manifests; public card ${publicCard.skills.length} skills (${serializeCard(publicCard).body.length} bytes), extended card ${extendedCard.skills.length} skills (${serializeCard(extendedCard).body.length} bytes).`,
);
console.log(`Node ${process.version}, warm-up ${WARMUP}, ${ITERATIONS} iterations.\n`);
console.log('| operation | median ms | p99 ms | baseline median ms | baseline p99 ms | ratio (median) |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const [name, ours, bare] of rows) {
  const a = measure(ours);
  const b = measure(bare);
  const ratio = b.median > 0.005 ? `${(a.median / b.median).toFixed(2)}×` : 'n/a';
  console.log(`| ${name} | ${fmt(a.median)} | ${fmt(a.p99)} | ${fmt(b.median)} | ${fmt(b.p99)} | ${ratio} |`);
}
