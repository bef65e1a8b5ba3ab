import { financeAgentExample } from '../fixtures/finance-agent';
import { buildRouterIndex } from '../router-index';
import { given } from '../testing/given';
import { LexicalClassifier } from './classifier';
import { STEM_MAX_WORD, STEM_MEMO_MAX_ENTRIES, stem, stemMemoSize, terms } from './text';
import porter2 = require('wink-porter2-stemmer');

describe('words named like the properties of every object (hostile input)', () => {
  // "constructor" found Object itself in the synonym table, and the stemmer threw on it: a message
  // with that word failed its call.
  it('are ordinary words: stemmed, never looked up on the prototype', () => {
    expect(terms('who is the constructor of the bridge')).toEqual(['constructor', 'bridg']);
    for (const word of ['constructor', 'proto', 'tostring', 'valueof', 'hasownproperty', 'isprototypeof', 'prototype'])
      expect(stem(word)).toBe(porter2(word));
  });

  it('route like any other unknown word', () => {
    const finance = financeAgentExample();
    const entries = buildRouterIndex(given.snapshot(finance.manifests, { agent: finance.agent }), finance.callers.partner).entries;
    const result = new LexicalClassifier().classify('what is the status of the constructor invoice INV-1', entries);
    expect(result.id).toBe('invoice-lookup');
  });
});

describe('the stem memo (ADR 0376)', () => {
  it('answers what the stemmer answers, the first time and after', () => {
    const words = ['payments', 'reimbursement', 'approved', 'purchasing', 'catalogues', 'flights', 'running', 'invoices'];
    const first = words.map((w) => stem(w));
    const again = words.map((w) => stem(w));
    expect(again).toEqual(first);
    expect(first).toEqual(['pay', 'reimburs', 'approv', 'buy', 'catalog', 'flight', 'run', 'invoic']);
  });

  it('stays bounded when a caller sends ever new words, and keeps answering right', () => {
    for (let i = 0; i < STEM_MEMO_MAX_ENTRIES + 5_000; i++) stem(`zq${i.toString(36)}ing`);
    expect(stemMemoSize()).toBe(STEM_MEMO_MAX_ENTRIES);
    // The oldest went out; asked again, a word is stemmed again, the same way.
    expect(stem('zq0ing')).toBe(porter2('zq0ing'));
    expect(stemMemoSize()).toBe(STEM_MEMO_MAX_ENTRIES);
  });

  it('keeps a very long word as it is: not stemmed (time square in its length), not remembered', () => {
    const before = stemMemoSize();
    const long = 'ab'.repeat(50_000) + 'ing';
    expect(stem(long)).toBe(long);
    expect(terms(`status of ${long}`)).toEqual(['status', long]);
    expect(stemMemoSize()).toBe(before);
    // At the bound, still stemmed.
    const edge = 'b'.repeat(STEM_MAX_WORD - 3) + 'ing';
    expect(stem(edge)).toBe(porter2(edge));
  });

  it('routes a message holding a 100,000-letter word by its other words', () => {
    const finance = financeAgentExample();
    const entries = buildRouterIndex(given.snapshot(finance.manifests, { agent: finance.agent }), finance.callers.partner).entries;
    const result = new LexicalClassifier().classify(`what is the status of invoice ${'ab'.repeat(50_000)}`, entries);
    expect(result.id).toBe('invoice-lookup');
  });
});
