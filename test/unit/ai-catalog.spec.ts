import fc from 'fast-check';
import { given, snapshotArb, callerArb } from '@cp/capabilities/testing';
import type { RegistrySnapshot } from '@cp/capabilities';
import {
  A2A_AGENT_CARD_MEDIA_TYPE,
  agentCatalogEntry,
  agentsCatalog,
  agentUrn,
  checkAiCatalog,
  fleetCatalog,
  type CatalogAgent,
} from '@cp/node-protocol';

const publisher = { identifier: 'acme-corp', displayName: 'Acme' };
const host = { displayName: 'Acme agents' };
const at = '2026-12-01T10:00:00.000Z';
const agentOf = (snapshot: RegistrySnapshot, teamId = 'finance-team'): CatalogAgent => ({ snapshot, teamId, updatedAt: at });
const pub = () => given.manifest({ visibility: 'public', skill: { tags: ['finance', 'invoices'] } });
const ext = (o: Parameters<typeof given.manifest>[0] = {}) =>
  given.manifest({ visibility: 'extended', requiresScopes: ['recon.run'], ...o });

describe('AI Catalog entries (per caller, no oracle)', () => {
  it('lists an agent with a public capability for anonymous, with a urn:air id, the public card URL, tags and updatedAt', () => {
    const s = given.snapshot([pub()], { agentId: 'finance' });
    const entry = agentCatalogEntry(agentOf(s), null, publisher)!;
    expect(entry).toMatchObject({
      identifier: 'urn:air:acme-corp:agent:finance',
      mediaType: A2A_AGENT_CARD_MEDIA_TYPE,
      updatedAt: at,
      tags: ['finance', 'invoices'],
    });
    expect(entry.url).toMatch(/\/\.well-known\/agent-card\.json$/);
    expect(entry.metadata?.extendedCardUrl).toBeUndefined();
  });

  it('hides an agent with only extended capabilities from anonymous and from callers not entitled, and shows it, linking the extended card, to an entitled one', () => {
    const s = given.snapshot([ext()], { agentId: 'recon' });
    expect(agentCatalogEntry(agentOf(s), null, publisher)).toBeUndefined();
    expect(agentCatalogEntry(agentOf(s), given.caller({ scopes: [] }), publisher)).toBeUndefined();
    const entry = agentCatalogEntry(agentOf(s), given.caller({ scopes: ['recon.run'] }), publisher)!;
    expect(entry.metadata?.extendedCardUrl).toMatch(/\/extendedAgentCard$/);
  });

  it('an entitled caller of an agent whose switch is off sees only what the public card holds', () => {
    const s = given.snapshot([pub(), ext()], { agentId: 'a' });
    s.agent = given.agent({ protocol: { ...s.agent.protocol, extendedAgentCard: false } });
    const entry = agentCatalogEntry(agentOf(s), given.caller({ scopes: ['recon.run'] }), publisher)!;
    expect(entry.metadata?.extendedCardUrl).toBeUndefined();
  });

  it('a hidden agent is absent: the catalog is byte-identical to one where the agent does not exist', () => {
    fc.assert(
      fc.property(snapshotArb(12), callerArb, (snapshot, caller) => {
        const visible = agentOf(given.snapshot([pub()], { agentId: 'visible' }));
        const probe = agentOf({ ...snapshot, agentId: 'probed' });
        const withIt = agentsCatalog(host, [visible, probe], caller, publisher);
        const without = agentsCatalog(host, [visible], caller, publisher);
        if (agentCatalogEntry(probe, caller, publisher) === undefined) expect(JSON.stringify(withIt)).toBe(JSON.stringify(without));
        expect(checkAiCatalog(withIt)).toEqual([]);
        expect(checkAiCatalog(fleetCatalog(host, [visible, probe], caller, publisher))).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('never lists a tag or capability the caller may not see', () => {
    const secret = ext({ skill: { tags: ['secret-merger'] } });
    const s = given.snapshot([pub(), secret], { agentId: 'a' });
    const anon = JSON.stringify(agentCatalogEntry(agentOf(s), null, publisher));
    expect(anon).not.toContain('secret-merger');
    expect(anon).not.toContain(secret.id);
  });
});

describe('lifecycle in the entry (metadata.lifecycle)', () => {
  it('carries deprecation date, sunset and a replacement the caller can see; an agent all deprecated is deprecated', () => {
    const next = given.manifest({ visibility: 'public', state: 'ga', id: 'reconcile-v2' });
    const old = given.manifest({
      visibility: 'public',
      state: 'deprecated',
      id: 'reconcile-v1',
      replacedBy: 'reconcile-v2',
      deprecatedAt: '2026-11-01T00:00:00.000Z',
      sunsetAt: '2027-02-01T00:00:00.000Z',
    });
    const entry = agentCatalogEntry(agentOf(given.snapshot([old, next])), null, publisher)!;
    expect(entry.metadata?.lifecycle).toEqual({
      status: 'active',
      capabilities: [
        {
          id: 'reconcile-v1',
          status: 'deprecated',
          deprecatedAt: '2026-11-01T00:00:00.000Z',
          sunsetAt: '2027-02-01T00:00:00.000Z',
          replacement: 'reconcile-v2',
        },
      ],
    });
    const onlyOld = agentCatalogEntry(
      agentOf(given.snapshot([{ ...old, replacedBy: 'hidden-v2' }, ext({ id: 'hidden-v2' })])),
      null,
      publisher,
    )!;
    expect(onlyOld.metadata?.lifecycle).toEqual({
      status: 'deprecated',
      deprecatedAt: '2026-11-01T00:00:00.000Z',
      sunsetAt: '2027-02-01T00:00:00.000Z',
      // The replacement is extended-only: an anonymous caller is never told its name.
      capabilities: [
        { id: 'reconcile-v1', status: 'deprecated', deprecatedAt: '2026-11-01T00:00:00.000Z', sunsetAt: '2027-02-01T00:00:00.000Z' },
      ],
    });
  });

  it('moves through preview → ga → deprecated → removed: previews only for opted-in tenants, removed disappears', () => {
    const m = given.manifest({ visibility: 'public', state: 'preview', id: 'forecast' });
    const optedIn = given.caller({ tenant: 'acme' });
    const other = given.caller({ tenant: 'globex' });
    const at = (state: 'preview' | 'ga' | 'deprecated' | 'removed') =>
      agentOf(
        given.snapshot([{ ...m, state, ...(state === 'deprecated' ? { deprecationReason: 'no successor' } : {}) }], {
          previewTenants: ['acme'],
        }),
      );
    expect(agentCatalogEntry(at('preview'), null, publisher)).toBeUndefined();
    expect(agentCatalogEntry(at('preview'), other, publisher)).toBeUndefined();
    expect(agentCatalogEntry(at('preview'), optedIn, publisher)?.metadata?.lifecycle).toMatchObject({ status: 'preview' });
    expect(agentCatalogEntry(at('ga'), null, publisher)?.metadata?.lifecycle).toEqual({ status: 'active', capabilities: [] });
    expect(agentCatalogEntry(at('deprecated'), null, publisher)?.metadata?.lifecycle).toMatchObject({ status: 'deprecated' });
    expect(agentCatalogEntry(at('removed'), null, publisher)).toBeUndefined();
    expect(agentCatalogEntry(at('removed'), optedIn, publisher)).toBeUndefined();
  });
});

describe('identifiers and grouping', () => {
  it('keeps urn:air identifiers URNs whatever the names hold', () => {
    expect(agentUrn('Acme Corp', 'team/1', 'ag:ent')).toBe('urn:air:Acme-Corp:team-1:ag-ent');
  });

  it('groups the fleet by host and by team as inline nested catalogs, leaving out groups the caller sees nothing in', () => {
    const a = agentOf(given.snapshot([pub()], { agentId: 'a' }), 'team-a');
    const b = agentOf(given.snapshot([ext()], { agentId: 'b' }), 'team-b');
    const anon = fleetCatalog(host, [a, b], null, publisher);
    expect(anon.entries.map((e) => e.identifier)).toEqual(expect.arrayContaining(['urn:air:acme-corp:team:team-a']));
    expect(JSON.stringify(anon)).not.toContain('team-b');
    const entitled = fleetCatalog(host, [a, b], given.caller({ scopes: ['recon.run'] }), publisher);
    expect(JSON.stringify(entitled)).toContain('urn:air:acme-corp:team:team-b');
    expect(checkAiCatalog(entitled)).toEqual([]);
  });
});

describe('checkAiCatalog (the spec MUST rules)', () => {
  const entry = { identifier: 'urn:x:a', displayName: 'A', mediaType: A2A_AGENT_CARD_MEDIA_TYPE, url: 'https://a.example/card' };
  it.each([
    ['no specVersion', { entries: [] }, '$.specVersion'],
    ['specVersion not Major.Minor', { specVersion: '1', entries: [] }, '$.specVersion'],
    ['no entries', { specVersion: '1.0' }, '$.entries'],
    ['host without displayName', { specVersion: '1.0', host: {}, entries: [] }, '$.host.displayName'],
    ['entry without mediaType', { specVersion: '1.0', entries: [{ ...entry, mediaType: undefined }] }, '$.entries[0].mediaType'],
    ['entry with both url and data', { specVersion: '1.0', entries: [{ ...entry, data: {} }] }, '$.entries[0]'],
    ['entry with neither url nor data', { specVersion: '1.0', entries: [{ ...entry, url: undefined }] }, '$.entries[0]'],
    ['duplicate identifier', { specVersion: '1.0', entries: [entry, entry] }, '$.entries[1].identifier'],
    ['bad updatedAt', { specVersion: '1.0', entries: [{ ...entry, updatedAt: 'yesterday' }] }, '$.entries[0].updatedAt'],
    ['empty metadata key', { specVersion: '1.0', metadata: { '': 1 }, entries: [] }, '$.metadata'],
    [
      'trust manifest of another identity',
      { specVersion: '1.0', entries: [{ ...entry, trustManifest: { identity: 'urn:x:b' } }] },
      '$.entries[0].trustManifest.identity',
    ],
    [
      'bad nested catalog',
      { specVersion: '1.0', entries: [{ ...entry, url: undefined, mediaType: 'application/ai-catalog+json', data: { entries: [] } }] },
      '$.entries[0].data.specVersion',
    ],
  ])('refuses %s', (_name, doc, path) => {
    const clean = JSON.parse(JSON.stringify(doc)) as unknown;
    expect(checkAiCatalog(clean).map((i) => i.path)).toContain(path);
  });

  it('accepts the same identifier twice with distinct versions, and refuses catalogs nested past the depth limit', () => {
    expect(
      checkAiCatalog({
        specVersion: '1.0',
        entries: [
          { ...entry, version: '1' },
          { ...entry, version: '2' },
        ],
      }),
    ).toEqual([]);
    let doc: object = { specVersion: '1.0', entries: [] };
    for (let i = 0; i < 5; i++)
      doc = { specVersion: '1.0', entries: [{ ...entry, url: undefined, mediaType: 'application/ai-catalog+json', data: doc }] };
    expect(checkAiCatalog(JSON.parse(JSON.stringify(doc))).some((i) => i.message.includes('nested deeper'))).toBe(true);
  });
});
