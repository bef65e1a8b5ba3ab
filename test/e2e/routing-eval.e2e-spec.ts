/**
 * Quality floor of the default router on the labelled back-office set (issue 13): a change that
 * makes routing worse fails here. Figures and the BM25 baseline: test/bench/routing.bench.ts.
 */
import { LexicalClassifier } from '@cp/capabilities';
import { LegacyLexicalClassifier } from '../support/routing-eval/legacy-classifier';
import { PlainBm25Classifier } from '../support/routing-eval/plain-bm25';
import { evaluate, half, loadEvalSet, loadSecondHeldOut, loadThirdHeldOut, wordOverlap } from '../support/routing-eval/routing-eval';

describe('routing evaluation (labelled back-office set)', () => {
  const set = loadEvalSet();

  it('has the promised shape: ≥150 messages over ≥20 capabilities, with ambiguous and out-of-scope ones', () => {
    expect(set.suite.tests.length).toBeGreaterThanOrEqual(150);
    expect(new Set(set.suite.tests.map((t) => t.expect)).size).toBeGreaterThanOrEqual(21);
    expect(set.suite.tests.filter((t) => t.category === 'ambiguous').length).toBeGreaterThanOrEqual(20);
    expect(set.suite.tests.filter((t) => t.category === 'out-of-scope').length).toBeGreaterThanOrEqual(10);
  });

  it('splits into a tuning and a held-out half, stratified by capability and by category (split.yaml)', () => {
    const held = half(set, 'held-out').suite.tests;
    const tuning = half(set, 'tuning').suite.tests;
    expect(held.length + tuning.length).toBe(set.suite.tests.length);
    const stratum = (t: { expect: string; category?: string }) => t.category ?? t.expect;
    for (const s of new Set(set.suite.tests.map(stratum))) {
      const h = held.filter((t) => stratum(t) === s).length;
      expect(Math.abs(h - tuning.filter((t) => stratum(t) === s).length)).toBeLessThanOrEqual(1);
    }
  });

  const second = loadSecondHeldOut();

  it('has a second held-out set of new messages in the same strata, none a near-copy of the first set (ADR 0096)', () => {
    const stratum = (t: { expect: string; category?: string }) => t.category ?? t.expect;
    const count = (tests: { expect: string; category?: string }[], s: string) => tests.filter((t) => stratum(t) === s).length;
    expect(second.suite.tests.length).toBeGreaterThanOrEqual(100);
    for (const m of set.snapshot.manifests) expect(count(second.suite.tests, m.id)).toBe(3);
    expect(count(second.suite.tests, 'ambiguous')).toBe(15);
    expect(count(second.suite.tests, 'out-of-scope')).toBe(10);
    // Independence: no message shares half or more of its words with any message of the first set.
    const firstTexts = set.suite.tests.map((t) => t.text ?? '');
    const nearCopies = second.suite.tests.filter((t) => firstTexts.some((f) => wordOverlap(f, t.text ?? '') >= 0.5));
    expect(nearCopies.map((t) => t.text)).toEqual([]);
    expect(wordOverlap('pay the Acme invoice', 'pay the Acme invoice')).toBe(1);
    expect(wordOverlap('pay the Acme invoice', 'book a hotel')).toBe(0);
  });

  const third = loadThirdHeldOut();

  it('has a third held-out set in the same strata, written blind, none a near-copy of the first two (ADR 0197)', () => {
    const stratum = (t: { expect: string; category?: string }) => t.category ?? t.expect;
    const count = (s: string) => third.suite.tests.filter((t) => stratum(t) === s).length;
    expect(third.suite.tests.length).toBe(100);
    for (const m of set.snapshot.manifests) expect(count(m.id)).toBe(3);
    expect(count('ambiguous')).toBe(15);
    expect(count('out-of-scope')).toBe(10);
    const earlier = [...set.suite.tests, ...second.suite.tests].map((t) => t.text ?? '');
    const nearCopies = third.suite.tests.filter((t) => earlier.some((f) => wordOverlap(f, t.text ?? '') >= 0.5));
    expect(nearCopies.map((t) => t.text)).toEqual([]);
  });

  // The floors are what the shipped router reaches on each HELD-OUT set, one message under it (its
  // constants were chosen on the tuning half only, ADR 0095, 0096; the ADR 0198 weight on the tuning
  // half, the held-out half and the second set, after each had been looked at; the third set was
  // written blind and its failures were never printed, ADR 0197). The goals of issue 13 (80% clear,
  // ≤ 3% wrong) are not reached: docs/performance.md. One-turn resolution (issue 31, ADR 0260) was
  // measured once the ≤ 3-choice question existed, on every set at once, nothing tuned on it.
  // Raised with ADR 0360 (names in examples are not evidence; chosen on the looked-at sets, the
  // blind set measured after): measured routed 52, 45, 41 of 75; one turn 73, 70, 66 of 75; wrong
  // routes 3, 2, 4 of 100; ambiguous clarified 13, 13, 13 of 15.
  it.each([
    { name: 'held-out half', view: () => half(set, 'held-out'), clear: 51 / 75, oneTurn: 72 / 75, wrong: 0.04, ambiguous: 0.8 },
    { name: 'second held-out set', view: () => second, clear: 44 / 75, oneTurn: 69 / 75, wrong: 0.03, ambiguous: 0.8 },
    { name: 'third held-out set (blind)', view: () => third, clear: 40 / 75, oneTurn: 65 / 75, wrong: 0.05, ambiguous: 0.8 },
  ])(
    'holds the measured floor on the $name: clear routed, resolved in one turn, wrong routes, ambiguous and out of scope clarified',
    (floor) => {
      const f = evaluate(floor.view(), new LexicalClassifier());
      const total = f.clear + f.ambiguous + f.outOfScope;
      expect(f.clearCorrect / f.clear).toBeGreaterThanOrEqual(floor.clear);
      // Issue 31: routed right, or clarified with the label among the ≤ 3 choices offered.
      expect(f.oneTurn / f.clear).toBeGreaterThanOrEqual(floor.oneTurn);
      expect(f.wrongRoutes / total).toBeLessThanOrEqual(floor.wrong);
      expect(f.ambiguousClarified / f.ambiguous).toBeGreaterThanOrEqual(floor.ambiguous);
      expect(f.outOfScopeClarified / f.outOfScope).toBeGreaterThanOrEqual(0.9);
    },
  );

  it('beats both the router before issue 13 and plain BM25 on wrong routes and on ambiguous messages, on every set', () => {
    for (const view of [set, second, third]) {
      const now = evaluate(view, new LexicalClassifier());
      for (const other of [evaluate(view, new LegacyLexicalClassifier()), evaluate(view, new PlainBm25Classifier())]) {
        expect(now.wrongRoutes).toBeLessThan(other.wrongRoutes);
        expect(now.ambiguousClarified).toBeGreaterThan(other.ambiguousClarified);
      }
    }
  });
});
