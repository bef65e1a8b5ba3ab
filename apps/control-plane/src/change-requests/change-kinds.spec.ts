import fc from 'fast-check';
import { given } from '@cp/capabilities/testing';
import type { CapabilityManifest } from '@cp/capabilities';
import { CHANGE_KINDS, classify, classifyAllowLists, gatedChanges, widenedAllowEntries } from './change-kinds';

const upstream = (url: string) => ({ url, binding: 'jsonrpc' as const, version: '1.0' as const });
const kinds = (before: CapabilityManifest | undefined, after: CapabilityManifest) =>
  classify(before, after).map((c) => `${c.kind}: ${c.detail}`);

describe('gated change kinds (ADR 0300)', () => {
  const base = given.manifest({ id: 'recon', visibility: 'extended', requiresScopes: ['recon.run'], tenants: ['acme'] });

  it.each<[string, Partial<CapabilityManifest> | undefined, Partial<CapabilityManifest>, string[]]>([
    ['created public', undefined, { visibility: 'public' }, ['public: created public']],
    ['created extended: new, not a widening of anything', undefined, {}, []],
    ['extended → public', {}, { visibility: 'public' }, ['public: visibility extended → public']],
    ['internal → extended', { visibility: 'internal' }, {}, ['access: visibility internal → extended']],
    ['public → extended narrows', { visibility: 'public' }, {}, []],
    ['a tenant added', {}, { tenants: ['acme', 'globex'] }, ['access: tenants + globex']],
    ['every tenant', {}, { tenants: '*' }, ['access: tenants acme → "*" (every tenant)']],
    ['a tenant dropped narrows', { tenants: ['acme', 'globex'] }, { tenants: ['acme'] }, []],
    ['a required scope dropped', {}, { requiresScopes: [] }, ['access: no longer requires scope recon.run']],
    ['a scope swapped', {}, { requiresScopes: ['recon.admin'] }, ['access: no longer requires scope recon.run']],
    ['a scope added narrows', {}, { requiresScopes: ['recon.run', 'recon.admin'] }, []],
    [
      'undeprecated',
      { state: 'deprecated', replacedBy: null, deprecationReason: 'old' },
      { state: 'ga' },
      ['undeprecate: deprecated → ga'],
    ],
    [
      'removed',
      { state: 'deprecated', deprecationReason: 'old' },
      { state: 'removed', deprecationReason: 'old' },
      ['remove: deprecated → removed'],
    ],
    ['upstream set', {}, { upstream: upstream('https://a.example') }, ['upstream: upstream set to https://a.example']],
    [
      'upstream moved',
      { upstream: upstream('https://a.example') },
      { upstream: upstream('https://b.example') },
      ['upstream: upstream → https://b.example'],
    ],
    ['upstream dropped', { upstream: upstream('https://a.example') }, {}, ['upstream: upstream https://a.example dropped']],
    ['created with an upstream', undefined, { upstream: upstream('https://a.example') }, ['upstream: upstream set to https://a.example']],
    ['a description edit', {}, { skill: { ...base.skill, description: 'Other words.' } }, []],
  ])('%s', (_name, before, after, expected) => {
    const previous = before === undefined ? undefined : { ...base, ...before };
    expect(kinds(previous, { ...base, ...after })).toEqual(expected);
  });

  it('names several kinds of one change, and keeps only the kinds the policy gates', () => {
    const after = { ...base, visibility: 'public' as const, tenants: '*' as const, requiresScopes: [] };
    expect(classify(base, after).map((c) => c.kind)).toEqual(['public', 'access', 'access']);
    expect(gatedChanges([{ before: base, after }], ['access']).map((c) => c.detail)).toEqual([
      'tenants acme → "*" (every tenant)',
      'no longer requires scope recon.run',
    ]);
    expect(gatedChanges([{ before: base, after }], [])).toEqual([]);
  });

  it('never gates a change to itself, whatever the manifest', () => {
    const manifest = fc.record({
      visibility: fc.constantFrom('public', 'extended', 'internal' as const),
      state: fc.constantFrom('preview', 'ga', 'deprecated' as const),
      tenants: fc.oneof(fc.constant('*' as const), fc.subarray(['acme', 'globex', 'initech'])),
      requiresScopes: fc.subarray(['a.b', 'c.d']),
    });
    fc.assert(
      fc.property(manifest, (m) => {
        const same = { ...base, ...m };
        expect(gatedChanges([{ before: same, after: { ...same } }], CHANGE_KINDS)).toEqual([]);
      }),
    );
  });

  describe('allow lists (ADR 0325)', () => {
    it('a new entry widens; a kept one (whatever its case or spelling) does not', () => {
      expect(widenedAllowEntries(['127.0.0.1', 'Hooks.Internal'], ['hooks.internal', '10.0.0.0/8'])).toEqual(['10.0.0.0/8']);
      expect(widenedAllowEntries(['127.0.0.1', '10.0.0.0/8'], ['127.0.0.1'])).toEqual([]);
      expect(widenedAllowEntries(['fd12:3456::/32'], ['FD12:3456:0::/32'])).toEqual([]);
    });

    it.each<[string, string[], string[], string[]]>([
      ['an entry added', [], ['10.20.0.0/16'], ['10.20.0.0/16']],
      ['an entry broadened', ['10.20.0.0/16'], ['10.0.0.0/8'], ['10.0.0.0/8']],
      ['a host swapped for its wildcard', ['hooks.corp.example'], ['*.corp.example'], ['*.corp.example']],
      ['an entry narrowed', ['10.0.0.0/8'], ['10.20.0.0/16'], []],
      ['a wildcard narrowed to a host', ['*.corp.example'], ['hooks.corp.example'], []],
      ['an entry removed', ['10.0.0.0/8', 'hooks.internal'], ['hooks.internal'], []],
      ['one removed, another added', ['10.0.0.0/8'], ['192.168.1.0/24'], ['192.168.1.0/24']],
      ['the same entry twice', [], ['::1', '::1'], ['::1']],
    ])('%s', (_name, before, after, widened) => {
      expect(widenedAllowEntries(before, after)).toEqual(widened);
    });

    it('names each widened list as a change of the agent settings', () => {
      expect(
        classifyAllowLists(
          { webhookAllow: ['hooks.internal'], upstreamAllow: ['10.0.0.0/8'] },
          { webhookAllow: ['hooks.internal', '10.1.0.0/16'], upstreamAllow: ['10.2.0.0/16'] },
        ),
      ).toEqual([{ kind: 'allowlist', capabilityId: '*', detail: 'protocol.webhookAllow + 10.1.0.0/16' }]);
      expect(classifyAllowLists({}, { upstreamAllow: ['*.corp.example'] })).toEqual([
        { kind: 'allowlist', capabilityId: '*', detail: 'protocol.upstreamAllow + *.corp.example' },
      ]);
    });

    it('never widens by keeping a list or taking entries out of it', () => {
      const entry = fc.constantFrom(
        '10.0.0.0/8',
        '10.20.0.0/16',
        '192.168.1.7',
        'fd12::/16',
        '::1',
        '*.corp.example',
        'hooks.corp.example',
      );
      fc.assert(
        fc.property(fc.uniqueArray(entry), fc.func(fc.boolean()), (list, keep) => {
          expect(widenedAllowEntries(list, list)).toEqual([]);
          expect(
            widenedAllowEntries(
              list,
              list.filter((e) => keep(e)),
            ),
          ).toEqual([]);
        }),
      );
    });
  });
});
