import fc from 'fast-check';
import { buildRouterIndex } from '../router-index';
import { callerArb, snapshotArb } from '../testing/arbitraries';
import { applySecondOpinion, fuseChoices, lexicalChoiceOrder } from './choices';
import { LexicalClassifier, type Classifier } from './classifier';
import { clarificationQuestion } from './clarification';
import { route } from './route';

const WORDS = ['invoice', 'reconcile', 'report', 'payroll', 'status', 'lookup', 'po', 'hello', 'export', 'audit'];
const MODES = ['text/plain', 'application/pdf', 'application/json', 'image/png'];

describe('route (properties)', () => {
  it("never routes, nor offers as a choice, a capability outside the caller's entitled set", () => {
    fc.assert(
      fc.property(
        snapshotArb(40),
        fc.array(callerArb, { minLength: 1, maxLength: 4 }),
        fc.array(fc.constantFrom(...WORDS), { maxLength: 6 }),
        fc.subarray(MODES, { minLength: 1 }),
        // Ids drawn from the registry (any state, visibility) or made up.
        fc.option(
          fc.oneof(
            fc.nat(39).map((i) => `cap-${String(i).padStart(4, '0')}`),
            fc.string({ maxLength: 12 }),
          ),
        ),
        fc.option(
          fc.oneof(
            fc.nat(39).map((i) => `cap-${String(i).padStart(4, '0')}`),
            fc.string({ maxLength: 12 }),
          ),
        ),
        fc.option(fc.constantFrom('pick-first', 'pick-any-id')),
        (snapshot, callers, words, modes, hint, bound, rogue) => {
          for (const caller of callers) {
            const index = buildRouterIndex(snapshot, caller);
            const entitled = new Set(index.entries.map((e) => e.id));
            // A hostile classifier that names any id in the registry, at full confidence.
            const classifier: Classifier | undefined =
              rogue === null
                ? undefined
                : {
                    classify: (_t, c) => ({
                      id: rogue === 'pick-first' ? (c[0]?.id ?? null) : (snapshot.manifests[0]?.id ?? null),
                      confidence: 1,
                    }),
                  };
            const parts = [{ text: words.join(' ') }, ...modes.map((m) => ({ raw: 'AA', mediaType: m }))];
            const r = route({ messageId: 'm', role: 'ROLE_USER', parts }, caller, index, {
              classifier,
              requestMetadata: hint === null ? undefined : { skillId: hint },
              boundCapabilityId: bound === null ? undefined : bound,
            });
            if (r.kind === 'routed') expect(entitled.has(r.entry.id)).toBe(true);
            if (r.kind === 'input-required') for (const c of r.candidates) expect(entitled.has(c.id)).toBe(true);
            // Identical input, identical decision.
            expect(
              route({ messageId: 'm', role: 'ROLE_USER', parts }, caller, index, {
                classifier,
                requestMetadata: hint === null ? undefined : { skillId: hint },
                boundCapabilityId: bound ?? undefined,
              }),
            ).toEqual(r);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a clarification never names, and a reply never reaches, a capability the caller is not entitled to, whatever the reply says', () => {
    const anyId = fc.oneof(
      fc.nat(39).map((i) => `cap-${String(i).padStart(4, '0')}`),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(
        snapshotArb(40),
        fc.array(callerArb, { minLength: 1, maxLength: 3 }),
        // Stored choices may have been tampered with or gone stale: any ids at all.
        fc.array(anyId, { maxLength: 5 }),
        fc.oneof(
          anyId,
          fc.nat(9).map(String),
          fc.string({ maxLength: 40 }),
          fc.array(fc.constantFrom(...WORDS, 'the', 'second', 'one', 'not', '2', '\u0000'), { maxLength: 8 }).map((w) => w.join(' ')),
        ),
        (snapshot, callers, stored, reply) => {
          for (const caller of callers) {
            const index = buildRouterIndex(snapshot, caller);
            const entitled = new Set(index.entries.map((e) => e.id));
            const unsure: Classifier = { classify: (_t, c) => ({ id: c[0]?.id ?? null, confidence: 0.1, plausible: [...stored] }) };
            const r = route({ messageId: 'm', role: 'ROLE_USER', parts: [{ text: reply }] }, caller, index, {
              classifier: unsure,
              pending: { offered: stored, earlierText: 'earlier' },
            });
            if (r.kind === 'routed') expect(entitled.has(r.entry.id)).toBe(true);
            if (r.kind === 'input-required') {
              expect(r.candidates.length).toBeLessThanOrEqual(3);
              for (const c of r.candidates) expect(entitled.has(c.id)).toBe(true);
              // The question is built from those entitled entries alone (nothing else can leak into it).
              const offered = r.candidates.map((c) => index.entries.find((e) => e.id === c.id)).filter((e) => e !== undefined);
              expect(r.message).toBe(clarificationQuestion(offered));
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('choices ordered with a semantic ranking (ADR 0361) name only entitled capabilities and never change route or ask, whatever the ranking names', () => {
    const anyId = fc.oneof(
      fc.nat(39).map((i) => `cap-${String(i).padStart(4, '0')}`),
      fc.string({ maxLength: 12 }),
    );
    const lexical = new LexicalClassifier();
    fc.assert(
      fc.property(
        snapshotArb(40),
        fc.array(callerArb, { minLength: 1, maxLength: 3 }),
        fc.array(fc.constantFrom(...WORDS), { maxLength: 6 }),
        // The semantic ranking a hostile or broken endpoint could lead to: any ids, repeated, foreign.
        fc.array(anyId, { maxLength: 8 }),
        fc.record({ keepLexicalFirst: fc.boolean(), k: fc.nat(60), semanticWeight: fc.double({ min: 0, max: 100, noNaN: true }) }),
        (snapshot, callers, words, ranking, fusion) => {
          for (const caller of callers) {
            const index = buildRouterIndex(snapshot, caller);
            const entitled = new Set(index.entries.map((e) => e.id));
            // SemanticChoicesClassifier (node SDK) in pure form: the lexical verdict, choices fused.
            const fused: Classifier = {
              classify: (t, c) => {
                const r = lexical.classify(t, c);
                return { ...r, plausible: fuseChoices(lexicalChoiceOrder(r), ranking, c, fusion) };
              },
            };
            const message = { messageId: 'm', role: 'ROLE_USER', parts: [{ text: words.join(' ') }] };
            const alone = route(message, caller, index);
            const r = route(message, caller, index, { classifier: fused });
            expect(r.kind).toBe(alone.kind);
            if (r.kind === 'routed' && alone.kind === 'routed') expect(r.entry.id).toBe(alone.entry.id);
            if (r.kind === 'routed') expect(entitled.has(r.entry.id)).toBe(true);
            if (r.kind === 'input-required' && alone.kind === 'input-required') {
              expect(r.candidates.length).toBeLessThanOrEqual(3);
              for (const c of r.candidates) expect(entitled.has(c.id)).toBe(true);
              // The lexical best guess stays first when it is kept and the lexical router ranked anything.
              if (fusion.keepLexicalFirst && alone.explanation.candidates.length > 0)
                expect(r.candidates[0].id).toBe(alone.candidates[0].id);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('the second opinion (ADR 0362) only turns a route into a question: never a route the classifier did not choose, only entitled choices, the routed capability first', () => {
    const anyId = fc.oneof(
      fc.nat(39).map((i) => `cap-${String(i).padStart(4, '0')}`),
      fc.string({ maxLength: 12 }),
    );
    // Mostly finite: a veto needs the routed capability's score and a better one to be finite (with
    // half the scores non-finite, 200 runs vetoed 1 to 8 times and sometimes none).
    const anyScore = fc.oneof(
      { arbitrary: fc.double({ min: -2, max: 2, noNaN: true }), weight: 9 },
      { arbitrary: fc.constantFrom(NaN, Infinity, -Infinity), weight: 1 },
    );
    // What a hostile or broken ranker could answer: entries with any ids and scores, junk among them, or no list at all.
    const anyRanking = fc.oneof(
      fc.array(fc.oneof(fc.record({ id: anyId, score: anyScore }), fc.constantFrom(null, 7, 'x', {})), { maxLength: 8 }),
      fc.constantFrom(null, 'not a list', 42, {}),
      // A score for each of the caller's entitled capabilities, in index order (so vetoes happen).
      { arbitrary: fc.record({ perEntry: fc.array(anyScore, { minLength: 40, maxLength: 40 }) }), weight: 3 },
    );
    // The verdict the wrapped classifier gives (the lexical one rarely routes these generated
    // registries' texts): any best guess, any confidence, any plausible set.
    // A number picks one of the caller's entitled capabilities (so routes happen), a string any id.
    const anyVerdict = fc.record({
      id: fc.option(fc.oneof({ arbitrary: fc.nat(), weight: 4 }, { arbitrary: anyId, weight: 1 }), { nil: null }),
      confidence: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0.6, max: 1, noNaN: true })),
      plausible: fc.array(anyId, { maxLength: 5 }),
    });
    let vetoes = 0;
    fc.assert(
      fc.property(
        snapshotArb(40),
        fc.array(callerArb, { minLength: 1, maxLength: 3 }),
        anyVerdict,
        anyRanking,
        fc.double({ min: 0, max: 0.5, noNaN: true }),
        (snapshot, callers, generated, answer, margin) => {
          for (const caller of callers) {
            const index = buildRouterIndex(snapshot, caller);
            const entitled = new Set(index.entries.map((e) => e.id));
            const ranking =
              answer !== null && typeof answer === 'object' && 'perEntry' in answer
                ? index.entries.map((e, i) => ({ id: e.id, score: answer.perEntry[i % answer.perEntry.length] }))
                : answer;
            const id =
              typeof generated.id === 'number'
                ? (index.entries[generated.id % Math.max(index.entries.length, 1)]?.id ?? null)
                : generated.id;
            const verdict = { ...generated, id };
            const base: Classifier = { classify: () => verdict };
            // SemanticChoicesClassifier (node SDK) with the second opinion, in pure form.
            const vetoing: Classifier = { classify: (t, c) => applySecondOpinion(verdict, ranking, c, { margin }) ?? verdict };
            const message = { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'invoice report' }] };
            const alone = route(message, caller, index, { classifier: base });
            const r = route(message, caller, index, { classifier: vetoing });
            if (r.kind === 'routed') {
              expect(alone.kind).toBe('routed');
              if (alone.kind === 'routed') expect(r.entry.id).toBe(alone.entry.id);
            }
            if (alone.kind !== 'routed') expect(r.kind).toBe(alone.kind);
            if (r.kind === 'input-required') {
              expect(r.candidates.length).toBeLessThanOrEqual(3);
              for (const c of r.candidates) expect(entitled.has(c.id)).toBe(true);
              if (alone.kind === 'routed') {
                expect(r.candidates[0].id).toBe(alone.entry.id);
                vetoes++;
              }
            }
          }
        },
      ),
      { numRuns: 200 },
    );
    // Not vacuous: some generated rankings did veto a route.
    expect(vetoes).toBeGreaterThan(0);
  });
});
