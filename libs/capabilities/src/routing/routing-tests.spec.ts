import { financeAgentExample } from '../fixtures/finance-agent';
import { given } from '../testing/given';
import { parseRoutingTests, runRoutingTests, type RoutingTestCase } from './routing-tests';

const finance = financeAgentExample();
const snapshot = given.snapshot(finance.manifests, { agent: finance.agent });
const suite = (tests: RoutingTestCase[]) => ({ minAccuracy: 0, tests });
const RECONCILE = 'Reconcile invoice INV-20931 against its PO';

describe('routing tests: how the router decided, and anonymous callers', () => {
  it('reports the deciding layer, the classifier candidates and the size of the caller index', () => {
    const [r] = runRoutingTests(
      snapshot,
      suite([{ text: RECONCILE, expect: 'reconcile-invoice', tenant: 'acme-partner', scopes: ['recon.run'] }]),
    ).results;
    expect(r.outcome).toMatchObject({ kind: 'routed', id: 'reconcile-invoice' });
    expect(r.decision.layer).toBe('classifier');
    expect(r.decision.indexSize).toBe(2);
    expect(r.decision.candidates[0].id).toBe('reconcile-invoice');
    expect(r.decision.candidates.map((c) => c.id).sort()).toEqual(['invoice-lookup', 'reconcile-invoice']);
    expect(r.decision.reason).not.toBe('');
  });

  it('names the only-candidate layer when one capability is left, and never a capability outside the index', () => {
    // Without recon.run the partner's index holds invoice-lookup alone.
    const [r] = runRoutingTests(
      snapshot,
      suite([{ text: RECONCILE, expect: 'invoice-lookup', tenant: 'acme-partner', scopes: [] }]),
    ).results;
    expect(r.decision).toEqual({ layer: 'only-candidate', reason: expect.any(String), candidates: [], indexSize: 1 });
  });

  it('routes an anonymous test through what anyone may use (not the open index of an unnamed caller)', () => {
    const report = runRoutingTests(
      snapshot,
      suite([
        { text: RECONCILE, expect: 'invoice-lookup', anonymous: true },
        { text: RECONCILE, expect: 'reconcile-invoice' },
      ]),
    );
    expect(report.results[0].decision).toMatchObject({ layer: 'only-candidate', indexSize: 1 });
    expect(report.results[0].outcome).toMatchObject({ kind: 'routed', id: 'invoice-lookup' });
    expect(report.results[1].decision.indexSize).toBe(2);
  });

  it('refuses an anonymous test that names a tenant or scopes, at its path', () => {
    const parsed = parseRoutingTests({ tests: [{ text: 'x', expect: 'clarify', anonymous: true, tenant: 'acme-partner' }] });
    expect(parsed).toEqual({
      ok: false,
      errors: [{ path: '$.tests[0].anonymous', message: 'an anonymous caller has no tenant or scopes' }],
    });
    expect(parseRoutingTests({ tests: [{ text: 'x', expect: 'clarify', anonymous: 'yes' }] }).ok).toBe(false);
  });
});
