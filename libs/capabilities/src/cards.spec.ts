import { buildExtendedCard, buildPublicCard } from './cards';
import { checkAgentCard } from './card-schema';
import { financeAgentExample } from './fixtures/finance-agent';
import { given } from './testing/given';
import type { RegistrySnapshot } from './types';

const finance = financeAgentExample();
const financeSnapshot = (): RegistrySnapshot => given.snapshot(finance.manifests, { agent: finance.agent });
const ids = (card: { skills: { id: string }[] }) => card.skills.map((s) => s.id);

describe('the seed worked example', () => {
  it('anonymous sees only invoice lookup', () => {
    expect(ids(buildPublicCard(financeSnapshot()))).toEqual(['invoice-lookup']);
  });

  it('a partner holding recon.run gets reconcile-invoice in its extended card', () => {
    expect(ids(buildExtendedCard(financeSnapshot(), finance.callers.partner))).toEqual(['invoice-lookup', 'reconcile-invoice']);
  });

  it('a partner without recon.run does not', () => {
    expect(ids(buildExtendedCard(financeSnapshot(), finance.callers.partnerWithoutScope))).toEqual(['invoice-lookup']);
  });

  it('the public card is a valid A2A 1.0 card declaring an extended card', () => {
    const card = buildPublicCard(financeSnapshot());
    expect(checkAgentCard(card)).toEqual([]);
    expect(card.capabilities).toEqual({ streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: true });
    expect(card.supportedInterfaces.map((i) => i.protocolBinding)).toEqual(['JSONRPC', 'HTTP+JSON']);
    expect(card.securitySchemes).toEqual({ bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } } });
  });

  it('securityRequirements say anonymous calls are accepted (an empty alternative) exactly when a public capability is live', () => {
    const snap = financeSnapshot();
    expect(buildPublicCard(snap).securityRequirements).toEqual([{ schemes: { bearer: { list: [] } } }, {}]);
    expect(buildExtendedCard(snap, finance.callers.partner).securityRequirements).toEqual([{ schemes: { bearer: { list: [] } } }, {}]);
    const noPublic = { ...snap, manifests: snap.manifests.filter((m) => m.visibility !== 'public') };
    expect(buildPublicCard(noPublic).securityRequirements).toEqual([{ schemes: { bearer: { list: [] } } }]);
  });
});

describe('buildPublicCard', () => {
  it('never carries handler, scopes, tenants, limits or owner', () => {
    const json = JSON.stringify(buildExtendedCard(financeSnapshot(), finance.callers.partner));
    for (const secret of [
      'recon.v3.reconcile',
      'invoices.v1.lookup',
      'requiresScopes',
      'max_pdf_pages',
      'finance-agents-team',
      'cost_class',
      '"tenants"',
      '"handler"',
      '"owner"',
    ]) {
      expect(json).not.toContain(secret);
    }
  });

  it('omits unset optional agent fields', () => {
    const { provider: _p, securitySchemes: _s, securityRequirements: _r, ...agent } = finance.agent;
    const card = buildPublicCard(given.snapshot(finance.manifests, { agent }));
    expect(Object.keys(card).sort()).toEqual([
      'capabilities',
      'defaultInputModes',
      'defaultOutputModes',
      'description',
      'name',
      'skills',
      'supportedInterfaces',
      'version',
    ]);
  });

  it('copies the agent extensions into capabilities.extensions', () => {
    const extensions = [{ uri: 'https://example.com/ext/trace/v1', description: 'Tracing', required: false }];
    const card = buildPublicCard(given.snapshot(finance.manifests, { agent: { ...finance.agent, extensions } }));
    expect(card.capabilities.extensions).toEqual(extensions);
  });

  it('orders skills by id, whatever the registry order', () => {
    const ms = ['zeta', 'alpha', 'mid-one'].map((id) => given.manifest({ id, visibility: 'public' }));
    expect(ids(buildPublicCard(given.snapshot(ms)))).toEqual(['alpha', 'mid-one', 'zeta']);
  });

  it('keeps a deprecated skill, saying so and naming a replacement that is in the same card', () => {
    const v2 = given.manifest({ id: 'lookup-v2', visibility: 'public' });
    const old = given.manifest({
      id: 'lookup',
      visibility: 'public',
      state: 'deprecated',
      replacedBy: 'lookup-v2',
      skill: { description: 'Finds invoices.' },
    });
    const card = buildPublicCard(given.snapshot([old, v2]));
    expect(card.skills.find((s) => s.id === 'lookup')!.description).toBe('Finds invoices. (Deprecated: use lookup-v2 instead.)');
  });

  it('gives the reason, and does not name an extended-only replacement in the public card', () => {
    const v2 = given.manifest({ id: 'lookup-v2', visibility: 'extended', requiresScopes: ['x.y'] });
    const old = given.manifest({
      id: 'lookup',
      visibility: 'public',
      state: 'deprecated',
      replacedBy: 'lookup-v2',
      deprecationReason: 'Moving to partners.',
      skill: { description: 'Finds invoices.' },
    });
    const snapshot = given.snapshot([old, v2]);
    expect(buildPublicCard(snapshot).skills[0].description).toBe('Finds invoices. (Deprecated. Moving to partners.)');
    const partner = buildExtendedCard(snapshot, given.caller({ scopes: ['x.y'] }));
    expect(partner.skills[0].description).toBe('Finds invoices. (Deprecated: use lookup-v2 instead. Moving to partners.)');
  });
});

describe('capabilities.extendedAgentCard', () => {
  const flag = (s: RegistrySnapshot) => buildPublicCard(s).capabilities.extendedAgentCard;
  const on = finance.agent;
  const off = { ...finance.agent, protocol: { ...finance.agent.protocol, extendedAgentCard: false } };

  it('is true when the switch is on and some live capability is extended-only', () => {
    expect(flag(given.snapshot([given.manifest({ visibility: 'public' }), given.manifest()], { agent: on }))).toBe(true);
  });
  it('is false when the switch is off, even with extended capabilities', () => {
    expect(flag(given.snapshot([given.manifest()], { agent: off }))).toBe(false);
  });
  it('is false when everything is public, internal or removed', () => {
    const ms = [given.manifest({ visibility: 'public' }), given.manifest({ visibility: 'internal' }), given.manifest({ state: 'removed' })];
    expect(flag(given.snapshot(ms, { agent: on }))).toBe(false);
  });
  it('counts a preview only when some tenant opted in', () => {
    const ms = [given.manifest({ visibility: 'public' }), given.manifest({ visibility: 'public', state: 'preview' })];
    expect(flag(given.snapshot(ms, { agent: on }))).toBe(false);
    expect(flag(given.snapshot(ms, { agent: on, previewTenants: ['acme'] }))).toBe(true);
  });
  it('is the same in the extended card', () => {
    const s = financeSnapshot();
    expect(buildExtendedCard(s, finance.callers.partner).capabilities).toEqual(buildPublicCard(s).capabilities);
  });
});

describe('buildExtendedCard', () => {
  it('for anonymous is the public card', () => {
    expect(buildExtendedCard(financeSnapshot(), null)).toEqual(buildPublicCard(financeSnapshot()));
  });

  it('has its own version, since its skill list differs', () => {
    const s = financeSnapshot();
    expect(buildExtendedCard(s, finance.callers.partner).version).not.toBe(buildPublicCard(s).version);
    expect(buildExtendedCard(s, finance.callers.partnerWithoutScope).version).toBe(buildPublicCard(s).version);
  });
});
