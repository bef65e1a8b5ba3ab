/**
 * Learning from clarifications, replayed (issue 31 §3): which clarifications the tuning half
 * produces, and the manifests after promoting the first n of them as examples, edited the way
 * RoutingClarificationsService.promote edits a manifest. Shared by the bench
 * (test/bench/routing-learning.bench.ts), which replays the same clarifications through the admin API
 * beside this in-process edit.
 */
import {
  CLARIFY,
  LexicalClassifier,
  runRoutingTests,
  toManifestDocument,
  validateManifests,
  type CapabilityManifest,
  type Classifier,
} from '@cp/capabilities';
import { half, type EvalSet } from './routing-eval';

export interface ReplayedClarification {
  text: string;
  capabilityId: string;
}

/**
 * The clarifications a node would report from the tuning half: clear messages the router asked
 * about whose label was among the ≤ 3 offered (the caller picks it), in the file's order.
 */
export function tuningClarifications(set: EvalSet, classifier: Classifier = new LexicalClassifier()): ReplayedClarification[] {
  const tuning = half(set, 'tuning');
  return runRoutingTests(tuning.snapshot, tuning.suite, { classifier })
    .results.filter((r) => r.expect !== CLARIFY && r.outcome.kind === 'clarify' && r.outcome.offered.includes(r.expect))
    .map((r) => ({ text: r.text, capabilityId: r.expect }));
}

/** `base` with the first `count` clarifications promoted as examples (document form, appended, deduplicated, re-validated). */
export function withPromoted(base: EvalSet, clarifications: readonly ReplayedClarification[], count: number): EvalSet {
  const docs = base.snapshot.manifests.map((m: CapabilityManifest) => toManifestDocument(m));
  for (const c of clarifications.slice(0, count)) {
    const doc = docs.find((d) => d.id === c.capabilityId);
    if (doc) doc.skill.examples = [...new Set([...(doc.skill.examples ?? []), c.text])];
  }
  const valid = validateManifests(docs);
  if (!valid.ok) throw new Error(`a promoted example made a manifest invalid: ${JSON.stringify(valid.errors).slice(0, 500)}`);
  return { ...base, snapshot: { ...base.snapshot, revision: base.snapshot.revision + 1, manifests: valid.manifests } };
}
