import { buildExtendedCard } from './cards';
import { ANONYMOUS_CLASS, entitlementClassKey, enumerateEntitlementClasses } from './entitlement-classes';
import { financeAgentExample } from './fixtures/finance-agent';
import { given } from './testing/given';

const registry = () =>
  given.snapshot(
    [
      given.manifest({ id: 'pub', visibility: 'public' }),
      given.manifest({ id: 'recon', requiresScopes: ['recon.run'] }),
      given.manifest({ id: 'acme-only', tenants: ['acme'], requiresScopes: ['reports.view'] }),
      given.manifest({ id: 'beta', state: 'preview' }),
      given.manifest({ id: 'tool', visibility: 'internal', requiresScopes: ['old.scope'], tenants: ['old-tenant'] }),
    ],
    { previewTenants: ['globex'] },
  );

describe('entitlementClassKey', () => {
  const key = (c: Parameters<typeof entitlementClassKey>[1]) => entitlementClassKey(registry(), c);

  it('anonymous callers share one class', () => {
    expect(key(null)).toBe(ANONYMOUS_CLASS);
  });

  it('ignores principals and scopes the registry never asks for', () => {
    expect(key(given.caller({ principal: 'a', tenant: 'acme', scopes: ['recon.run', 'unrelated'] }))).toBe(
      key(given.caller({ principal: 'b', tenant: 'acme', scopes: ['recon.run'] })),
    );
  });

  it('collapses tenants no manifest names and that did not opt in, and scopes of internal manifests', () => {
    expect(key(given.caller({ tenant: 'initech', scopes: ['old.scope'] }))).toBe(key(given.caller({ tenant: 'old-tenant' })));
  });

  it('separates named tenants, preview opt-in and satisfied requirement sets', () => {
    const keys = new Set([
      key(given.caller({ tenant: 'initech' })),
      key(given.caller({ tenant: 'acme' })),
      key(given.caller({ tenant: 'globex' })),
      key(given.caller({ tenant: 'initech', scopes: ['recon.run'] })),
    ]);
    expect(keys.size).toBe(4);
  });

  it('counts removed extended manifests, since tombstones are per caller', () => {
    const s = given.snapshot([given.manifest({ id: 'gone', state: 'removed', requiresScopes: ['old.scope'] })]);
    expect(entitlementClassKey(s, given.caller({ scopes: ['old.scope'] }))).not.toBe(entitlementClassKey(s, given.caller()));
  });
});

describe('enumerateEntitlementClasses', () => {
  it('lists anonymous plus (relevant tenants + one unnamed) × unions of requirement sets', () => {
    const classes = enumerateEntitlementClasses(registry());
    // tenants: acme, globex, other; unions: {}, {recon.run}, {reports.view}, {both}
    expect(classes).toHaveLength(1 + 3 * 4);
    expect(classes.truncated).toBe(false);
    expect(new Set(classes.map((c) => c.key)).size).toBe(classes.length);
    for (const c of classes) expect(entitlementClassKey(registry(), c.caller)).toBe(c.key);
  });

  it('says when it stops at the limit', () => {
    const classes = enumerateEntitlementClasses(registry(), { limit: 5 });
    expect(classes).toHaveLength(5);
    expect(classes.truncated).toBe(true);
  });

  it('covers the seed example with three classes', () => {
    const f = financeAgentExample();
    const s = given.snapshot(f.manifests);
    const classes = enumerateEntitlementClasses(s);
    expect(classes.map((c) => buildExtendedCard(s, c.caller).skills.length)).toEqual([1, 1, 2]);
  });
});
