/**
 * The lexical router decides, an embeddings ranking chooses a clarification's choices (ADR 0361),
 * against the local deterministic embeddings server (../testing/fake-embeddings.ts, real HTTP).
 */
import fc from 'fast-check';
import { DEFAULT_SECOND_OPINION, buildRouterIndex, route, routeAsync, type InputRequired, type RouteResult } from '@cp/capabilities';
import { given } from '../../../capabilities/src/testing/given';
import { EmbeddingsClassifier } from './embeddings-classifier';
import { SemanticChoicesClassifier, type SemanticRanker } from './semantic-choices';
import { fakeEmbeddings, type FakeEmbeddings, type FakeMode } from '../testing/fake-embeddings';

// Names in examples are not lexical evidence (ADR 0360), but the embeddings read them: a message
// naming only the supplier is unknown to the lexical router and close to `supplier-statements`.
const snapshot = given.snapshot([
  given.manifest({ id: 'book-flight', skill: { name: 'Book a flight', description: 'Books a flight.', tags: ['travel'] } }),
  given.manifest({ id: 'book-hotel', skill: { name: 'Book a hotel', description: 'Books a hotel room.', tags: ['travel'] } }),
  given.manifest({ id: 'expense-report', skill: { name: 'File an expense report', description: 'Files expenses.', tags: ['expenses'] } }),
  given.manifest({ id: 'payroll-status', skill: { name: 'Payroll status', description: 'Tells how payroll stands.', tags: ['payroll'] } }),
  given.manifest({
    id: 'supplier-statements',
    skill: {
      name: 'Supplier statements',
      description: 'Sends statements of account.',
      tags: ['suppliers'],
      examples: ['Send Zorblat Quuxley Frobnitz their statement.'],
    },
  }),
  given.manifest({
    id: 'secret-payroll',
    visibility: 'extended',
    requiresScopes: ['admin.all'],
    skill: { name: 'Run payroll', description: 'Pays salaries.', tags: ['payroll'], examples: ['Zorblat Quuxley Frobnitz payroll'] },
  }),
]);
const caller = given.caller({ principal: 'p', tenant: 'acme', scopes: [] });
const index = buildRouterIndex(snapshot, caller);
const msg = (text: string) => ({ messageId: 'm', role: 'ROLE_USER', parts: [{ text }] });
const offered = (r: RouteResult) => (r as InputRequired).candidates.map((c) => c.id);

describe('SemanticChoicesClassifier', () => {
  let fake: FakeEmbeddings;
  let clock = 0;
  // Timeouts far from both the fake's answer time on a loaded machine and its 'slow' delay (5 s).
  const embeddings = (timeoutMs = 2_000) =>
    new EmbeddingsClassifier({ url: fake.url, model: 'test-embed', apiKey: 'k', timeoutMs, coolDownMs: 1000, now: () => clock });
  const make = (timeoutMs?: number) => new SemanticChoicesClassifier({ ranker: embeddings(timeoutMs) });
  beforeEach(async () => {
    fake = await fakeEmbeddings();
    clock = 0;
  });
  afterEach(() => fake.close());

  it('a message the lexical router routes is routed the same, and the endpoint is not asked', async () => {
    const r = await routeAsync(msg('book a hotel room'), caller, index, { classifier: make() });
    expect(r).toEqual(route(msg('book a hotel room'), caller, index));
    expect(r.kind).toBe('routed');
    expect(fake.inputs).toHaveLength(0);
  });

  it('where the lexical router knows no word, the embeddings choose the three, entitled only', async () => {
    const text = 'Zorblat Quuxley Frobnitz';
    const alone = route(msg(text), caller, index);
    expect(alone.kind).toBe('input-required');
    expect(offered(alone)).not.toContain('supplier-statements');
    const r = await routeAsync(msg(text), caller, index, { classifier: make() });
    expect(r.kind).toBe('input-required');
    expect(offered(r)[0]).toBe('supplier-statements');
    expect(offered(r).length).toBeLessThanOrEqual(3);
    expect((r as InputRequired).message).toContain('Supplier statements');
    // The capability the caller cannot see is neither offered nor sent to the endpoint.
    expect(JSON.stringify(r)).not.toContain('secret-payroll');
    expect(fake.inputs.flat().join('\n')).not.toContain('Pays salaries');
    expect(fake.inputs).toHaveLength(1);
  });

  it('keeps the lexical best guess first and adds the embeddings’ best guess', async () => {
    const text = 'travel for Zorblat Quuxley Frobnitz';
    const alone = route(msg(text), caller, index);
    expect(alone.kind).toBe('input-required');
    expect(offered(alone)).not.toContain('supplier-statements');
    const r = await routeAsync(msg(text), caller, index, { classifier: make() });
    expect(r.kind).toBe('input-required');
    expect(offered(r)[0]).toBe(offered(alone)[0]);
    expect(offered(r)).toContain('supplier-statements');
    expect((r as InputRequired).explanation.reason).toMatch(/choices ordered with the embeddings ranking/);
  });

  it.each<FakeMode>(['error', 'slow', 'nan', 'short', 'garbage', 'wrong-length', 'out-of-range', 'huge'])(
    'an endpoint answering %s leaves the lexical choices, then cools down (not asked again)',
    async (mode) => {
      fake.mode = mode;
      const c = make(1_000);
      const text = 'Zorblat Quuxley Frobnitz';
      const alone = route(msg(text), caller, index);
      const r = await routeAsync(msg(text), caller, index, { classifier: c });
      expect(r.kind).toBe('input-required');
      expect(offered(r)).toEqual(offered(alone));
      expect((r as InputRequired).message).toBe((alone as InputRequired).message);
      expect((r as InputRequired).explanation.reason).toMatch(/choices not reordered: the embeddings endpoint failed/);
      const asked = fake.inputs.length;
      fake.mode = 'ok';
      const again = await routeAsync(msg(text), caller, index, { classifier: c });
      expect(offered(again)).toEqual(offered(alone));
      expect((again as InputRequired).explanation.reason).toMatch(/cooling down/);
      expect(fake.inputs.length).toBe(asked);
      clock = 5000;
      expect(offered(await routeAsync(msg(text), caller, index, { classifier: c }))[0]).toBe('supplier-statements');
    },
  );

  it('a ranker naming capabilities outside the list, or answering nonsense, offers nothing outside it', async () => {
    const hostile: unknown[] = [
      [{ id: 'secret-payroll', score: 1 }, { id: 'made-up', score: 0.9 }, null, 7, { id: 42 }, { id: 'expense-report', score: 0.1 }],
      'not a list',
      null,
    ];
    for (const answer of hostile) {
      const ranker: SemanticRanker = { rank: () => Promise.resolve(answer as never) };
      const r = await routeAsync(msg('Zorblat Quuxley Frobnitz'), caller, index, { classifier: new SemanticChoicesClassifier({ ranker }) });
      expect(r.kind).toBe('input-required');
      expect(JSON.stringify(r)).not.toContain('secret-payroll');
      expect(JSON.stringify(r)).not.toContain('made-up');
      for (const id of offered(r)) expect(index.entries.some((e) => e.id === id)).toBe(true);
    }
    const first = await routeAsync(msg('Zorblat Quuxley Frobnitz'), caller, index, {
      classifier: new SemanticChoicesClassifier({ ranker: { rank: () => Promise.resolve(hostile[0] as never) } }),
    });
    expect(offered(first)[0]).toBe('expense-report');
  });

  it('route or ask is always the lexical router’s, whatever the ranking says (property)', async () => {
    const WORDS = ['book', 'hotel', 'flight', 'travel', 'expense', 'payroll', 'status', 'Zorblat', 'statement', 'salaries', 'the'];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...WORDS), { maxLength: 6 }),
        fc.array(fc.constantFrom('secret-payroll', 'made-up', ...index.entries.map((e) => e.id)), { maxLength: 8 }),
        async (words, ids) => {
          const ranker: SemanticRanker = { rank: () => Promise.resolve(ids.map((id, i) => ({ id, score: 1 - i / 10 }))) };
          const text = words.join(' ');
          const alone = route(msg(text), caller, index);
          const r = await routeAsync(msg(text), caller, index, { classifier: new SemanticChoicesClassifier({ ranker }) });
          expect(r.kind).toBe(alone.kind);
          if (alone.kind === 'routed') expect(r).toEqual(alone);
          if (r.kind === 'input-required') {
            expect(r.candidates.length).toBeLessThanOrEqual(3);
            for (const c of r.candidates) expect(index.entries.some((e) => e.id === c.id)).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  describe('second opinion (ADR 0362): the ranking may turn a route into a clarification, nothing else', () => {
    // Lexically a hotel booking (confidence 0.84); by the deterministic embeddings the supplier's
    // names make it closest to supplier-statements, 0.26 ahead of book-hotel.
    const vetoed = 'Book a hotel room for Zorblat Quuxley Frobnitz, Zorblat Quuxley Frobnitz and Zorblat Quuxley Frobnitz';
    const opinion = (timeoutMs?: number, margin = DEFAULT_SECOND_OPINION.margin) =>
      new SemanticChoicesClassifier({ ranker: embeddings(timeoutMs), secondOpinion: { margin } });

    it('a route the ranking contradicts by more than the margin is asked about, the routed capability first', async () => {
      const alone = route(msg(vetoed), caller, index);
      expect(alone).toMatchObject({ kind: 'routed', entry: { id: 'book-hotel' } });
      const r = await routeAsync(msg(vetoed), caller, index, { classifier: opinion() });
      expect(r.kind).toBe('input-required');
      expect(offered(r)[0]).toBe('book-hotel');
      expect(offered(r)).toContain('supplier-statements');
      expect(offered(r).length).toBeLessThanOrEqual(3);
      expect((r as InputRequired).explanation.reason).toMatch(
        /puts "supplier-statements" ahead of it by 0\.2\d\d \(more than 0\.2\), so it asks instead/,
      );
      expect(JSON.stringify(r)).not.toContain('secret-payroll');
      expect(fake.inputs.flat().join('\n')).not.toContain('Pays salaries');
      expect(fake.inputs).toHaveLength(1);
      // A wider margin lets the same route stand.
      expect(await routeAsync(msg(vetoed), caller, index, { classifier: opinion(undefined, 0.3) })).toEqual(alone);
    });

    it('a route the ranking agrees with is routed exactly as the lexical router routes it, after one call', async () => {
      const text = 'Book a hotel for Zorblat Quuxley Frobnitz';
      const r = await routeAsync(msg(text), caller, index, { classifier: opinion() });
      expect(r).toEqual(route(msg(text), caller, index));
      expect(r).toMatchObject({ kind: 'routed', entry: { id: 'book-hotel' } });
      expect(fake.inputs).toHaveLength(1);
    });

    it('without the option a routed message does not reach the endpoint (EMBEDDINGS_ROLE=choices)', async () => {
      expect(await routeAsync(msg(vetoed), caller, index, { classifier: make() })).toEqual(route(msg(vetoed), caller, index));
      expect(fake.inputs).toHaveLength(0);
    });

    it.each<FakeMode>(['error', 'slow', 'nan', 'short', 'garbage', 'wrong-length', 'out-of-range', 'huge'])(
      'an endpoint answering %s leaves the lexical route',
      async (mode) => {
        fake.mode = mode;
        const r = await routeAsync(msg(vetoed), caller, index, { classifier: opinion(1_000) });
        expect(r).toEqual(route(msg(vetoed), caller, index));
      },
    );

    it('a ranker answering nonsense, or naming capabilities outside the list, leaves the route or offers only entitled ones', async () => {
      const hostile: unknown[] = [
        'not a list',
        null,
        [],
        [
          { id: 'book-hotel', score: NaN },
          { id: 'supplier-statements', score: 1 },
        ],
        [
          { id: 'secret-payroll', score: 99 },
          { id: 'made-up', score: 50 },
          { id: 'book-hotel', score: 0.1 },
        ],
        [
          { id: 'supplier-statements', score: Infinity },
          { id: 'book-hotel', score: 0 },
        ],
        [null, 7, { id: 42, score: 1 }, { id: 'book-hotel' }],
      ];
      const lexical = route(msg(vetoed), caller, index);
      for (const answer of hostile) {
        const ranker: SemanticRanker = { rank: () => Promise.resolve(answer as never) };
        const r = await routeAsync(msg(vetoed), caller, index, {
          classifier: new SemanticChoicesClassifier({ ranker, secondOpinion: DEFAULT_SECOND_OPINION }),
        });
        expect(r).toEqual(lexical);
      }
      // A well-formed disagreement among entitled candidates, with junk around it: asked, entitled only.
      const ranker: SemanticRanker = {
        rank: () =>
          Promise.resolve([
            { id: 'secret-payroll', score: 9 },
            { id: 'made-up', score: 8 },
            { id: 'expense-report', score: 0.9 },
            { id: 'book-hotel', score: 0.1 },
          ]),
      };
      const r = await routeAsync(msg(vetoed), caller, index, {
        classifier: new SemanticChoicesClassifier({ ranker, secondOpinion: DEFAULT_SECOND_OPINION }),
      });
      expect(r.kind).toBe('input-required');
      expect(offered(r).slice(0, 2)).toEqual(['book-hotel', 'expense-report']);
      expect(JSON.stringify(r)).not.toContain('secret-payroll');
      expect(JSON.stringify(r)).not.toContain('made-up');
    });

    it('never routes where the lexical router asks, nor elsewhere than it routes; offers entitled only (property)', async () => {
      const WORDS = ['book', 'hotel', 'flight', 'travel', 'expense', 'payroll', 'status', 'Zorblat', 'statement', 'salaries', 'the'];
      const entry = fc.record({
        id: fc.constantFrom('secret-payroll', 'made-up', ...index.entries.map((e) => e.id)),
        score: fc.oneof(fc.double({ min: -1, max: 1, noNaN: true }), fc.constantFrom(NaN, Infinity, -Infinity)),
      });
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.constantFrom(...WORDS), { maxLength: 6 }),
          fc.array(entry, { maxLength: 8 }),
          fc.double({ min: 0, max: 1, noNaN: true }),
          async (words, ranking, margin) => {
            const ranker: SemanticRanker = { rank: () => Promise.resolve(ranking) };
            const text = words.join(' ');
            const alone = route(msg(text), caller, index);
            const r = await routeAsync(msg(text), caller, index, {
              classifier: new SemanticChoicesClassifier({ ranker, secondOpinion: { margin } }),
            });
            if (r.kind === 'routed') expect(r).toEqual(alone);
            if (alone.kind === 'input-required') expect(r.kind).toBe('input-required');
            if (r.kind === 'input-required') {
              expect(r.candidates.length).toBeLessThanOrEqual(3);
              for (const c of r.candidates) expect(index.entries.some((e) => e.id === c.id)).toBe(true);
              if (alone.kind === 'routed') expect(r.candidates[0].id).toBe(alone.entry.id);
            }
          },
        ),
        { numRuns: 300 },
      );
    });
  });
});
