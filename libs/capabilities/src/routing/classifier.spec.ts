import { financeAgentExample } from '../fixtures/finance-agent';
import { buildRouterIndex } from '../router-index';
import { given } from '../testing/given';
import { LexicalClassifier, stem, terms } from './classifier';

const finance = financeAgentExample();
const entries = buildRouterIndex(given.snapshot(finance.manifests, { agent: finance.agent }), finance.callers.partner).entries;

describe('LexicalClassifier', () => {
  const classifier = new LexicalClassifier();

  it('drops stopwords and numbers and stems plurals and -ing forms', () => {
    expect(terms('What is the status of invoice INV-20931?')).toEqual(['status', stem('invoice'), 'inv']);
    expect(stem('invoices')).toBe(stem('invoice'));
    expect(stem('reconciling')).toBe(stem('reconcile'));
  });

  it('scores the seed messages to the right capability above 0.6', () => {
    const recon = classifier.classify('reconcile this against the PO', entries);
    expect(recon.id).toBe('reconcile-invoice');
    expect(recon.confidence).toBeGreaterThanOrEqual(0.6);
    const lookup = classifier.classify('Look up invoice INV-20931 and tell me its status', entries);
    expect(lookup.id).toBe('invoice-lookup');
    expect(lookup.confidence).toBeGreaterThanOrEqual(0.6);
  });

  it('gives 0 when nothing matches and 0.5 share (below 0.6) on a tie', () => {
    expect(classifier.classify('hello there', entries)).toEqual({ id: null, confidence: 0 });
    const tie = classifier.classify('finance invoices', entries);
    expect(tie.confidence).toBeLessThan(0.6);
  });

  it('answers the same whatever the candidate order', () => {
    const q = 'reconcile invoice against purchase order';
    expect(classifier.classify(q, [...entries].reverse())).toEqual(classifier.classify(q, entries));
  });
});
