import { entitlement } from './entitlement';
import { buildExecutionPolicy, policyEntriesForHandler } from './execution-policy';
import { financeAgentExample } from './fixtures/finance-agent';
import { given } from './testing/given';

const finance = financeAgentExample();

describe('buildExecutionPolicy', () => {
  it('without a caller lists every non-removed capability, internal included, with what the node enforces', () => {
    const internal = given.manifest({ id: 'tool-x', visibility: 'internal', handler: 'tools.x' });
    const removed = given.manifest({ id: 'old', state: 'removed' });
    const policy = buildExecutionPolicy(given.snapshot([...finance.manifests, internal, removed], { previewTenants: ['globex', 'acme'] }));
    expect(policy.entries.map((e) => e.capabilityId)).toEqual(['invoice-lookup', 'reconcile-invoice', 'tool-x']);
    expect(policy.previewTenants).toEqual(['acme', 'globex']);
    expect(policyEntriesForHandler(policy, 'recon.v3.reconcile')).toEqual([
      {
        capabilityId: 'reconcile-invoice',
        handler: 'recon.v3.reconcile',
        state: 'ga',
        visibility: 'extended',
        requiresScopes: ['recon.run'],
        tenants: '*',
        limits: { max_pdf_pages: 200, cost_class: 'medium' },
      },
    ]);
  });

  it('with a caller lists only what that caller is entitled to', () => {
    const s = given.snapshot(finance.manifests);
    expect(buildExecutionPolicy(s, finance.callers.partner).entries.map((e) => e.capabilityId)).toEqual([
      'invoice-lookup',
      'reconcile-invoice',
    ]);
    expect(buildExecutionPolicy(s, finance.callers.partnerWithoutScope).entries.map((e) => e.capabilityId)).toEqual(['invoice-lookup']);
    expect(buildExecutionPolicy(s, null).entries.map((e) => e.capabilityId)).toEqual(['invoice-lookup']);
  });

  it('entries feed entitlement directly at execution time (same function as the cards)', () => {
    const policy = buildExecutionPolicy(given.snapshot(finance.manifests));
    const [entry] = policyEntriesForHandler(policy, 'recon.v3.reconcile');
    expect(entitlement(entry, finance.callers.partner, policy).routable).toBe(true);
    expect(entitlement(entry, finance.callers.partnerWithoutScope, policy)).toMatchObject({ routable: false, rule: 'missing-scopes' });
  });
});
