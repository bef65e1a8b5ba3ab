import { financeAgentExample } from './fixtures/finance-agent';
import { buildRouterIndex, findTombstone } from './router-index';
import { given } from './testing/given';

const finance = financeAgentExample();

describe('buildRouterIndex', () => {
  it('holds only what the caller may reach, with handler, state and modes (seed example)', () => {
    const s = given.snapshot(finance.manifests, { agent: finance.agent });
    const partner = buildRouterIndex(s, finance.callers.partner);
    expect(partner.entries.map((e) => [e.id, e.handler, e.state])).toEqual([
      ['invoice-lookup', 'invoices.v1.lookup', 'ga'],
      ['reconcile-invoice', 'recon.v3.reconcile', 'ga'],
    ]);
    expect(partner.entries[1].inputModes).toEqual(['text/plain', 'application/pdf']);
    expect(buildRouterIndex(s, null).entries.map((e) => e.id)).toEqual(['invoice-lookup']);
    expect(buildRouterIndex(s, finance.callers.partnerWithoutScope).entries.map((e) => e.id)).toEqual(['invoice-lookup']);
  });

  it('falls back to the agent default modes and gives the classifier the skill text', () => {
    const m = given.manifest({ visibility: 'public', skill: { name: 'N', description: 'D', tags: ['t'] } });
    const [entry] = buildRouterIndex(given.snapshot([m]), null).entries;
    expect(entry.inputModes).toEqual(finance.agent.defaultInputModes);
    expect(entry.outputModes).toEqual(finance.agent.defaultOutputModes);
    expect(entry.skill).toEqual({ name: 'N', description: 'D', tags: ['t'], examples: [] });
  });

  it('keeps a tombstone for a removed capability naming its live replacement, followed through removed ones', () => {
    const v3 = given.manifest({ id: 'recon-v3', visibility: 'public' });
    const v2 = given.manifest({ id: 'recon-v2', visibility: 'public', state: 'removed', replacedBy: 'recon-v3' });
    const v1 = given.manifest({
      id: 'recon-v1',
      visibility: 'public',
      state: 'removed',
      replacedBy: 'recon-v2',
      deprecationReason: 'Old PO format.',
    });
    const index = buildRouterIndex(given.snapshot([v1, v2, v3]), null);
    expect(index.entries.map((e) => e.id)).toEqual(['recon-v3']);
    expect(findTombstone(index, 'recon-v1')).toEqual({ id: 'recon-v1', replacedBy: 'recon-v3', deprecationReason: 'Old PO format.' });
    expect(findTombstone(index, 'recon-v2')).toEqual({ id: 'recon-v2', replacedBy: 'recon-v3', deprecationReason: null });
  });

  it('does not show a caller tombstones of capabilities it could never use, nor replacements it cannot reach', () => {
    const hidden = given.manifest({ id: 'secret-v1', state: 'removed', requiresScopes: ['admin.all'] });
    const toExtended = given.manifest({ id: 'open-v1', visibility: 'public', state: 'removed', replacedBy: 'partner-v2' });
    const partnerV2 = given.manifest({ id: 'partner-v2', requiresScopes: ['recon.run'] });
    const s = given.snapshot([hidden, toExtended, partnerV2]);
    const anon = buildRouterIndex(s, null);
    expect(anon.tombstones).toEqual([{ id: 'open-v1', replacedBy: null, deprecationReason: null }]);
    const partner = buildRouterIndex(s, given.caller({ scopes: ['recon.run'] }));
    expect(partner.tombstones).toEqual([{ id: 'open-v1', replacedBy: 'partner-v2', deprecationReason: null }]);
    expect(buildRouterIndex(s, given.caller({ scopes: ['admin.all'] })).tombstones.map((t) => t.id)).toEqual(['open-v1', 'secret-v1']);
  });
  it('shows the tombstone of a preview removed straight from preview only to callers of opted-in tenants (issue 11)', () => {
    const preview = given.manifest({ id: 'beta-export', visibility: 'public', state: 'removed', removedFromPreview: true });
    const extended = given.manifest({ id: 'beta-recon', visibility: 'extended', state: 'removed', tenants: '*', removedFromPreview: true });
    const deprecated = given.manifest({ id: 'old-export', visibility: 'public', state: 'removed', deprecationReason: 'gone' });
    const snapshot = given.snapshot([preview, extended, deprecated], { previewTenants: ['acme'] });
    const ids = (caller: Parameters<typeof buildRouterIndex>[1]) => buildRouterIndex(snapshot, caller).tombstones.map((t) => t.id);
    expect(ids({ principal: 'p', tenant: 'acme', scopes: [] })).toEqual(['beta-export', 'beta-recon', 'old-export']);
    expect(ids({ principal: 'p', tenant: 'globex', scopes: [] })).toEqual(['old-export']);
    expect(ids(null)).toEqual(['old-export']);
  });
});
