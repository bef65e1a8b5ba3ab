import { buildExtendedCard, buildNodeBundle, buildRouterIndex, financeAgentExample, serializeCard } from '@cp/capabilities';
import { given } from '@cp/capabilities/testing';
import { ActiveBundle } from './active-bundle';

const f = financeAgentExample();
const snapshot = given.snapshot(f.manifests, { revision: 7 });

describe('ActiveBundle', () => {
  it('serves the precomputed projections of each class, and the public card to anonymous callers', () => {
    const bundle = buildNodeBundle(snapshot);
    const active = new ActiveBundle(bundle);
    expect(active.revision).toBe(7);
    expect(active.servedHash).toBe(bundle.contentHash);
    expect(active.extendedCardFor(null)).toBe(bundle.publicCard);
    expect(active.routerIndexFor(null)).toBe(bundle.anonymousRouterIndex);
    const partner = active.extendedCardFor(f.callers.partner);
    expect(partner).toEqual(serializeCard(buildExtendedCard(snapshot, f.callers.partner)));
    expect(bundle.classes.some((c) => c.extendedCard === partner)).toBe(true);
    expect(active.lazyBuilds).toBe(0);
  });

  it('computes a class past the cap lazily, with the core, once', () => {
    const active = new ActiveBundle(buildNodeBundle(snapshot, { classLimit: 0 }));
    const card = active.extendedCardFor(f.callers.partner);
    expect(card).toEqual(serializeCard(buildExtendedCard(snapshot, f.callers.partner)));
    expect(active.routerIndexFor(f.callers.partner)).toEqual(buildRouterIndex(snapshot, f.callers.partner));
    expect(active.extendedCardFor({ ...f.callers.partner!, principal: 'someone-else' })).toBe(card);
    expect(active.lazyBuilds).toBe(2);
  });

  it('gives entitlement what it needs at execution', () => {
    const active = new ActiveBundle(buildNodeBundle(given.snapshot(f.manifests, { previewTenants: ['acme'] })));
    expect(active.entitlementContext.previewTenants.has('acme')).toBe(true);
    expect(active.policy.entries.map((e) => e.capabilityId)).toEqual(expect.arrayContaining(['invoice-lookup', 'reconcile-invoice']));
  });
});
