/**
 * Quality floor of the default router on the labelled back-office set (issue 13): a change that
 * makes routing worse fails here. Figures and the BM25 baseline: test/bench/routing.bench.ts.
 */
import { LexicalClassifier } from '@cp/capabilities';
import { LegacyLexicalClassifier } from '../support/routing-eval/legacy-classifier';
import { PlainBm25Classifier } from '../support/routing-eval/plain-bm25';
import { evaluate, loadEvalSet } from '../support/routing-eval/routing-eval';

describe('routing evaluation (labelled back-office set)', () => {
  const set = loadEvalSet();

  it('has the promised shape: ≥150 messages over ≥20 capabilities, with ambiguous and out-of-scope ones', () => {
    expect(set.suite.tests.length).toBeGreaterThanOrEqual(150);
    expect(new Set(set.suite.tests.map((t) => t.expect)).size).toBeGreaterThanOrEqual(21);
    expect(set.suite.tests.filter((t) => t.category === 'ambiguous').length).toBeGreaterThanOrEqual(20);
    expect(set.suite.tests.filter((t) => t.category === 'out-of-scope').length).toBeGreaterThanOrEqual(10);
  });

  it('holds the measured floor: clear routed, wrong routes, ambiguous clarified', () => {
    const f = evaluate(set, new LexicalClassifier());
    const total = f.clear + f.ambiguous + f.outOfScope;
    expect(f.clearCorrect / f.clear).toBeGreaterThanOrEqual(0.54);
    expect(f.wrongRoutes / total).toBeLessThanOrEqual(0.04);
    expect(f.ambiguousClarified / f.ambiguous).toBeGreaterThanOrEqual(0.85);
    expect(f.outOfScopeClarified / f.outOfScope).toBeGreaterThanOrEqual(0.9);
  });

  it('beats both the router before issue 13 and plain BM25 on wrong routes and on ambiguous messages', () => {
    const now = evaluate(set, new LexicalClassifier());
    for (const other of [evaluate(set, new LegacyLexicalClassifier()), evaluate(set, new PlainBm25Classifier())]) {
      expect(now.wrongRoutes).toBeLessThan(other.wrongRoutes);
      expect(now.ambiguousClarified).toBeGreaterThan(other.ambiguousClarified);
    }
  });
});
