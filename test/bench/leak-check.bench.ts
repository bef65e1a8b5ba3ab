/**
 * The leak check at scale (issue 18, ADR 0200). Run: `npx tsx test/bench/leak-check.bench.ts`
 * (no build needed). Env: BENCH_MANIFESTS (1000,10000), BENCH_ITERATIONS (9).
 *
 * One agent of M manifests, half public and half extended (the cost-growth bench's shape: names
 * and descriptions that differ by their number). Three things measured on the same registry in
 * the same run, interleaved, median of the iterations:
 * - the product: findLeaks(publicCard, manifests), as every change to the agent runs it;
 * - the floor: the work any exact check must do: fold every string of the public card and every
 *   text to check (foldLeakText; tags a public skill carries are not secret), without searching;
 * - before: the search ADR 0200 replaced, on the same folded inputs: `haystack.includes(text)` per
 *   text, the whole-token regular expression per id.
 * The ratios product / floor and before / product are what count on a shared machine.
 */
import { buildPublicCard, financeAgentExample, findLeaks, type CapabilityManifest, type RegistrySnapshot } from '@cp/capabilities';
import { foldLeakText } from '../../libs/capabilities/src/leak-text';

const list = (v: string | undefined, d: number[]) => (v ? v.split(',').map(Number) : d);
const SIZES = list(process.env.BENCH_MANIFESTS, [1000, 10000]);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 9);

function registry(m: number): RegistrySnapshot {
  const example = financeAgentExample();
  const bulk = Array.from({ length: m }, (_, k): CapabilityManifest => ({
    ...example.manifests[0],
    id: `bulk-${String(k).padStart(5, '0')}`,
    state: 'ga',
    visibility: k % 2 === 0 ? 'public' : 'extended',
    skill: {
      name: `Bulk ${k % 2 === 0 ? 'public' : 'extended'} skill #${k}#`,
      description: `Handles bulk request number ${k}.`,
      tags: ['bulk'],
    },
    requiresScopes: [],
    tenants: '*',
  }));
  return { agentId: 'finance-agent', revision: 1, agent: example.agent, manifests: [...example.manifests, ...bulk], previewTenants: [] };
}

/** Every string value of the card, folded and joined (what findLeaks searches). */
function haystackOf(card: unknown): string {
  const parts: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') parts.push(foldLeakText(value));
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(card);
  return parts.join('\n');
}

/** The texts findLeaks checks per non-public manifest: [id (whole token), name, description, tags]. */
function textsOf(manifests: readonly CapabilityManifest[]): { ids: string[]; texts: string[] } {
  const hidden = manifests.filter((m) => m.visibility !== 'public' && m.state !== 'removed');
  // A tag a public skill also carries is not secret (findLeaks skips it too).
  const publicTags = new Set(manifests.filter((m) => m.visibility === 'public').flatMap((m) => m.skill.tags.map(foldLeakText)));
  return {
    ids: hidden.map((m) => foldLeakText(m.id)),
    texts: hidden.flatMap((m) =>
      [m.skill.name, m.skill.description, ...(m.skill.examples ?? []), ...m.skill.tags.filter((t) => !publicTags.has(foldLeakText(t)))].map(
        (t) => foldLeakText(t).trim(),
      ),
    ),
  };
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const token = (text: string) => new RegExp(`(?<![\\p{L}\\p{N}_.-])${escape(text)}(?![\\p{L}\\p{N}_-]|\\.[\\p{L}\\p{N}])`, 'u');

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function timed(fn: () => unknown): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

console.log(
  `Node ${process.version}; ${ITERATIONS} iterations each, interleaved; load average ${require('node:os').loadavg()[0].toFixed(2)}\n`,
);
console.log(
  '| manifests | public card haystack | product (findLeaks) median ms | floor (fold only) median ms | before (includes per text) median ms | product / floor | before / product |',
);
console.log('|---:|---:|---:|---:|---:|---:|---:|');
for (const m of SIZES) {
  const snapshot = registry(m);
  const card = buildPublicCard(snapshot);
  const product: number[] = [];
  const floor: number[] = [];
  const before: number[] = [];
  let haystackLength = 0;
  for (let i = 0; i < ITERATIONS + 1; i++) {
    let leaks = -1;
    const p = timed(() => (leaks = findLeaks(card, snapshot.manifests).length));
    let folded = { haystack: '', ids: [] as string[], texts: [] as string[] };
    const f = timed(() => (folded = { haystack: haystackOf(card), ...textsOf(snapshot.manifests) }));
    let found = -1;
    const b = timed(() => {
      found = 0;
      for (const id of folded.ids) if (token(id).test(folded.haystack)) found++;
      for (const text of folded.texts) if (text.length >= 4 && folded.haystack.includes(text)) found++;
    });
    if (leaks !== 0 || found !== 0) throw new Error(`the registry has leaks (${leaks}, ${found}): the bench would measure something else`);
    haystackLength = folded.haystack.length;
    if (i === 0) continue; // warm-up
    product.push(p);
    floor.push(f);
    before.push(b + f);
  }
  const [pm, fm, bm] = [median(product), median(floor), median(before)];
  console.log(
    `| ${m} | ${(haystackLength / 1000).toFixed(0)} k chars | ${pm.toFixed(1)} | ${fm.toFixed(1)} | ${bm.toFixed(1)} | ${(pm / fm).toFixed(2)} | ${(bm / pm).toFixed(1)} |`,
  );
}
