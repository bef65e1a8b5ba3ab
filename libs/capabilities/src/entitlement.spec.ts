import { canBeExtendedOnly, entitlement, isEntitled } from './entitlement';
import { given } from './testing/given';

const ctx = { previewTenants: new Set(['acme']) };
const anonymous = null;
const acme = given.caller({ tenant: 'acme', scopes: ['recon.run'] });

describe('entitlement', () => {
  it('never shows nor routes a removed capability, whatever its visibility', () => {
    for (const visibility of ['public', 'extended', 'internal'] as const) {
      const d = entitlement(given.manifest({ state: 'removed', visibility }), acme, ctx);
      expect(d).toMatchObject({ inPublicCard: false, inExtendedCard: false, routable: false, rule: 'removed' });
    }
  });

  it('never puts an internal capability in a card nor routes it for a caller', () => {
    const m = given.manifest({ visibility: 'internal' });
    expect(entitlement(m, acme, ctx)).toMatchObject({ inPublicCard: false, inExtendedCard: false, routable: false, rule: 'internal' });
    expect(entitlement(m, anonymous, ctx).routable).toBe(false);
  });

  it('puts public ga and deprecated capabilities in the public card and every extended card', () => {
    for (const state of ['ga', 'deprecated'] as const) {
      const m = given.manifest({ visibility: 'public', state });
      expect(entitlement(m, anonymous, ctx)).toMatchObject({ inPublicCard: true, inExtendedCard: false, routable: true, rule: 'public' });
      expect(entitlement(m, given.caller({ tenant: 'nobody' }), ctx)).toMatchObject({
        inPublicCard: true,
        inExtendedCard: true,
        routable: true,
      });
    }
  });

  it('keeps extended capabilities from anonymous callers', () => {
    expect(entitlement(given.manifest(), anonymous, ctx)).toMatchObject({ routable: false, rule: 'anonymous-not-extended' });
  });

  it('requires every scope and names the missing ones', () => {
    const m = given.manifest({ requiresScopes: ['recon.run', 'invoices.read'] });
    const d = entitlement(m, acme, ctx);
    expect(d).toMatchObject({ inExtendedCard: false, routable: false, rule: 'missing-scopes' });
    expect(d.reason).toContain('invoices.read');
    expect(d.reason).not.toContain('recon.run');
    expect(entitlement(m, given.caller({ scopes: ['invoices.read', 'recon.run'] }), ctx).rule).toBe('entitled');
  });

  it('requires the caller tenant to be listed unless tenants is "*"', () => {
    const m = given.manifest({ tenants: ['globex'] });
    const d = entitlement(m, acme, ctx);
    expect(d).toMatchObject({ routable: false, rule: 'tenant-not-allowed' });
    expect(d.reason).toContain('acme');
    expect(entitlement(m, given.caller({ tenant: 'globex' }), ctx)).toMatchObject({
      inExtendedCard: true,
      routable: true,
      rule: 'entitled',
    });
    expect(entitlement(given.manifest({ tenants: '*' }), given.caller({ tenant: 'anyone' }), ctx).routable).toBe(true);
  });

  it('shows a preview only to authenticated callers of opted-in tenants who pass scopes and tenants', () => {
    const preview = given.manifest({ state: 'preview', requiresScopes: ['recon.run'] });
    expect(entitlement(preview, anonymous, ctx).rule).toBe('preview-anonymous');
    expect(entitlement(preview, given.caller({ tenant: 'globex', scopes: ['recon.run'] }), ctx).rule).toBe('preview-not-opted-in');
    expect(entitlement(preview, given.caller({ tenant: 'acme' }), ctx).rule).toBe('missing-scopes');
    expect(entitlement(preview, acme, ctx)).toMatchObject({ inPublicCard: false, inExtendedCard: true, routable: true, rule: 'entitled' });
  });

  it('keeps a public preview out of the public card', () => {
    const preview = given.manifest({ state: 'preview', visibility: 'public' });
    expect(entitlement(preview, anonymous, ctx)).toMatchObject({ inPublicCard: false, routable: false });
    expect(entitlement(preview, acme, ctx)).toMatchObject({ inPublicCard: false, inExtendedCard: true });
  });

  it('accepts previewTenants as an array too', () => {
    const preview = given.manifest({ state: 'preview' });
    expect(isEntitled(preview, acme, { previewTenants: ['acme'] })).toBe(true);
    expect(isEntitled(preview, acme, { previewTenants: [] })).toBe(false);
  });

  it('isEntitled is routable: the execution-time check', () => {
    const m = given.manifest({ requiresScopes: ['recon.run'] });
    expect(isEntitled(m, acme, ctx)).toBe(entitlement(m, acme, ctx).routable);
    expect(isEntitled(m, given.caller(), ctx)).toBe(false);
  });
});

describe('canBeExtendedOnly', () => {
  const set = (...t: string[]) => new Set(t);
  it('is true for live extended capabilities and reachable previews only', () => {
    expect(canBeExtendedOnly(given.manifest(), set())).toBe(true);
    expect(canBeExtendedOnly(given.manifest({ visibility: 'public' }), set())).toBe(false);
    expect(canBeExtendedOnly(given.manifest({ visibility: 'internal' }), set('acme'))).toBe(false);
    expect(canBeExtendedOnly(given.manifest({ state: 'removed' }), set('acme'))).toBe(false);
    expect(canBeExtendedOnly(given.manifest({ state: 'preview', visibility: 'public' }), set())).toBe(false);
    expect(canBeExtendedOnly(given.manifest({ state: 'preview', visibility: 'public' }), set('acme'))).toBe(true);
    expect(canBeExtendedOnly(given.manifest({ state: 'preview', tenants: ['globex'] }), set('acme'))).toBe(false);
  });
});
