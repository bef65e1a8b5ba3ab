/**
 * Learning from clarifications, measured (issue 31 §3). Run: npx tsx test/bench/routing-learning.bench.ts
 * Replays the tuning half's clarifications: every clear tuning message the router asked about whose
 * label was among the ≤ 3 offered (the caller picks it; the node reports it, ADR 0094) becomes a
 * promoted example of that capability, in the tuning file's order, applied the way
 * RoutingClarificationsService.promote edits a manifest (appended to skill.examples, deduplicated)
 * and re-validated. Then the held-out half and the second and third held-out sets are measured
 * before, after 10, after 50 and after all promotions.
 *
 * NOT the real path: the manifests are edited in-process, not through the control plane's GraphQL
 * promote mutation, the bundle and a node (that protocol is still to be built; see
 * docs/performance.md). The router, its index and the manifest validation are the product's.
 */
import {
  CLARIFY,
  LexicalClassifier,
  runRoutingTests,
  toManifestDocument,
  validateManifests,
  type CapabilityManifest,
} from '@cp/capabilities';
import { evaluate, half, loadEvalSet, loadSecondHeldOut, loadThirdHeldOut, type EvalSet } from '../support/routing-eval/routing-eval';

const set = loadEvalSet();
const tuning = half(set, 'tuning');
const classifier = new LexicalClassifier();

// The clarifications a node would report from the tuning half: (message, the capability chosen).
const report = runRoutingTests(tuning.snapshot, tuning.suite, { classifier });
const clarifications = report.results
  .filter((r) => r.expect !== CLARIFY && r.outcome.kind === 'clarify' && r.outcome.offered.includes(r.expect))
  .map((r) => ({ text: r.text, capabilityId: r.expect }));

function promoted(base: EvalSet, count: number): EvalSet {
  // As the promote mutation does: the manifest as a document, the example appended, then validated.
  const docs = base.snapshot.manifests.map((m: CapabilityManifest) => toManifestDocument(m));
  for (const c of clarifications.slice(0, count)) {
    const doc = docs.find((d) => d.id === c.capabilityId);
    if (doc) doc.skill.examples = [...new Set([...(doc.skill.examples ?? []), c.text])];
  }
  const valid = validateManifests(docs);
  if (!valid.ok) throw new Error(`a promoted example made a manifest invalid: ${JSON.stringify(valid.errors).slice(0, 500)}`);
  return { ...base, snapshot: { ...base.snapshot, revision: base.snapshot.revision + 1, manifests: valid.manifests } };
}

const steps = [0, 10, 50, clarifications.length].filter((n, i, a) => n <= clarifications.length && a.indexOf(n) === i);
const targets: [string, EvalSet][] = [
  ['held-out half', half(set, 'held-out')],
  ['second held-out set', loadSecondHeldOut()],
  ['third held-out set (blind)', loadThirdHeldOut()],
];
const pct = (n: number, d: number) => `${((100 * n) / Math.max(d, 1)).toFixed(1)}%`;
console.log(
  `${clarifications.length} clarifications answered on the tuning half (of ${report.results.filter((r) => r.expect !== CLARIFY).length} clear messages)\n`,
);
console.log('| set | promotions | routed right | resolved in one turn | wrong routes (all) | best guess right |');
console.log('|---|--:|--:|--:|--:|--:|');
for (const [name, target] of targets)
  for (const n of steps) {
    const learned = promoted(target, n);
    const f = evaluate(learned, classifier);
    const total = f.clear + f.ambiguous + f.outOfScope;
    console.log(
      `| ${name} | ${n} | ${pct(f.clearCorrect, f.clear)} | ${pct(f.oneTurn, f.clear)} | ${pct(f.wrongRoutes, total)} | ${pct(f.bestGuessRight, f.clear)} |`,
    );
  }
