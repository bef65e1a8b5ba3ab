/**
 * The lexical router decides, an embeddings ranking chooses a clarification's choices (ADR 0361),
 * against the local deterministic embeddings server (testing/fake-embeddings.ts, real HTTP).
 */
import fc from 'fast-check';
import { buildRouterIndex, route, routeAsync, type InputRequired, type RouteResult } from '@cp/capabilities';
import { given } from '../../../capabilities/src/testing/given';
import { EmbeddingsClassifier } from './embeddings-classifier';
import { SemanticChoicesClassifier, type SemanticRanker } from './semantic-choices';
import { fakeEmbeddings, type FakeEmbeddings, type FakeMode } from './testing/fake-embeddings';

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
});
