import fc from 'fast-check';
import { financeAgentExample } from './fixtures/finance-agent';
import {
  declaredLimits,
  limitIssues,
  reachesCard,
  typedLimits,
  unservedCapabilities,
  unservedMessage,
  type HandlerDeclaration,
  type NodeInventory,
} from './servability';
import { registryArb, TENANTS } from './testing/arbitraries';
import { given } from './testing/given';
import type { CapabilityManifest } from './types';

const [lookup, recon] = financeAgentExample().manifests;
const pdf = given.manifest({ id: 'invoice-pdf', state: 'ga', visibility: 'public', handler: 'invoices.pdf' });
const node = (nodeId: string, ...handlers: string[]): NodeInventory => ({
  nodeId,
  handlers: handlers.map((id): HandlerDeclaration => ({
    id,
    limits: id === 'invoices.pdf' ? { max_pdf_pages: 'integer' } : {},
    outputModes: [],
  })),
});
const oldCode = node('node-old', lookup.handler, recon.handler);
const newCode = node('node-new', lookup.handler, recon.handler, 'invoices.pdf');

const check = (after: CapabilityManifest[], live: NodeInventory[], extra: { allowUnserved?: string[]; previewTenants?: string[] } = {}) =>
  unservedCapabilities({
    before: [lookup, recon],
    after,
    previewTenantsBefore: [],
    previewTenantsAfter: extra.previewTenants ?? [],
    live,
    allowUnserved: extra.allowUnserved,
  });

describe('unservedCapabilities', () => {
  it('names the capability, its handler and every live node lacking it', () => {
    const out = check([lookup, recon, pdf], [newCode, oldCode, node('node-older', lookup.handler)]);
    expect(out).toEqual([{ capabilityId: 'invoice-pdf', handler: 'invoices.pdf', nodesLacking: ['node-old', 'node-older'] }]);
    expect(unservedMessage(out[0])).toContain('"invoices.pdf" is not served by live node(s) node-old, node-older');
  });

  it('passes once every live node serves the handler', () => {
    expect(check([lookup, recon, pdf], [newCode])).toEqual([]);
  });

  it('lets an explicitly staged capability through: allowUnserved, or a preview nobody opted in to', () => {
    expect(check([lookup, recon, pdf], [oldCode], { allowUnserved: ['invoice-pdf'] })).toEqual([]);
    const preview = { ...pdf, state: 'preview' as const, visibility: 'extended' as const };
    expect(check([lookup, recon, preview], [oldCode])).toEqual([]);
    // Once a tenant has opted in, a preview is in that tenant's card: refused like ga.
    expect(check([lookup, recon, preview], [oldCode], { previewTenants: ['acme-partner'] })).toHaveLength(1);
  });

  it('refuses a handler change of a capability already in a card, and ignores internal ones', () => {
    expect(check([{ ...lookup, handler: 'invoices.v2.lookup' }, recon], [oldCode])).toEqual([
      { capabilityId: 'invoice-lookup', handler: 'invoices.v2.lookup', nodesLacking: ['node-old'] },
    ]);
    expect(check([lookup, recon, { ...pdf, visibility: 'internal' }], [oldCode])).toEqual([]);
  });

  it('refuses nothing while the agent has no live node (bootstrap, ADR 0100)', () => {
    expect(check([lookup, recon, pdf], [])).toEqual([]);
  });
});

describe('limits against the handler declaration', () => {
  it('refuses an undeclared key and a wrongly typed value, with the JSON path', () => {
    const declared = declaredLimits('invoices.pdf', [newCode]);
    expect(limitIssues({ max_pdf_pages: 2.5, max_pages: 3 }, 'invoices.pdf', declared, '$[2]')).toEqual([
      { path: '$[2].limits.max_pdf_pages', message: 'must be an integer (the handler declares it so)' },
      { path: '$[2].limits.max_pages', message: 'handler "invoices.pdf" does not declare limit "max_pages" (it declares max_pdf_pages)' },
    ]);
    expect(limitIssues({ max_pdf_pages: 200, cost_class: 'high', timeout_s: 1.5 }, 'invoices.pdf', declared)).toEqual([]);
  });

  it('checks generic keys even without a declaration, and nothing else', () => {
    expect(limitIssues({ timeout_s: 0, max_input_bytes: 1.5, anything: 3 }, 'x.y', undefined)).toEqual([
      { path: '$.limits.timeout_s', message: 'must be greater than 0' },
      { path: '$.limits.max_input_bytes', message: 'must be an integer (the handler declares it so)' },
    ]);
  });

  it('counts a key only when every live node serving the handler declares it alike', () => {
    const a = { nodeId: 'a', handlers: [{ id: 'h.x', limits: { k: 'integer' as const, j: 'number' as const }, outputModes: [] }] };
    const b = { nodeId: 'b', handlers: [{ id: 'h.x', limits: { k: 'number' as const, j: 'number' as const }, outputModes: [] }] };
    expect(declaredLimits('h.x', [a, b])).toEqual({ j: 'number' });
    expect(declaredLimits('h.y', [a, b])).toBeUndefined();
  });

  it('hands a handler only generic and declared keys of the declared type', () => {
    expect(typedLimits({ cost_class: 'low', max_pdf_pages: 200, stray: 1, timeout_s: 2 }, { max_pdf_pages: 'integer' })).toEqual({
      cost_class: 'low',
      max_pdf_pages: 200,
      timeout_s: 2,
    });
    expect(typedLimits({ max_pdf_pages: 2.5 }, { max_pdf_pages: 'integer' })).toEqual({});
  });
});

// Handlers in the generated registries are team.v1.handler_<i % 97>; small registries share them.
const handlerIds = Array.from({ length: 12 }, (_, i) => `team.v1.handler_${i}`);
const inventoryArb = fc
  .array(fc.subarray(handlerIds), { minLength: 1, maxLength: 4 })
  .map((lists) => lists.map((handlers, i) => node(`node-${i}`, ...handlers)));
const proposalArb = fc.record({
  manifests: registryArb(12),
  previewTenants: fc.subarray([...TENANTS]),
  stage: fc.subarray(
    Array.from({ length: 12 }, (_, i) => `cap-${String(i).padStart(4, '0')}`),
    { maxLength: 2 },
  ),
});

describe('property: no capability reaches a card unless every live node serves its handler or it was staged', () => {
  it('holds after any sequence of accepted changes, for random registries and inventories', () => {
    fc.assert(
      fc.property(inventoryArb, fc.array(proposalArb, { minLength: 1, maxLength: 6 }), (live, proposals) => {
        let current: CapabilityManifest[] = [];
        let tenants: string[] = [];
        const staged = new Set<string>();
        for (const p of proposals) {
          const refused = unservedCapabilities({
            before: current,
            after: p.manifests,
            previewTenantsBefore: tenants,
            previewTenantsAfter: p.previewTenants,
            live,
            allowUnserved: p.stage,
          });
          if (refused.length > 0) continue;
          current = p.manifests;
          tenants = p.previewTenants;
          p.stage.forEach((id) => staged.add(id));
          for (const m of current) {
            if (!reachesCard(m, tenants) || staged.has(m.id)) continue;
            for (const n of live) expect(n.handlers.map((h) => h.id)).toContain(m.handler);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('refuses exactly the new card entries some live node cannot serve', () => {
    fc.assert(
      fc.property(inventoryArb, proposalArb, (live, p) => {
        const out = unservedCapabilities({
          before: [],
          after: p.manifests,
          previewTenantsBefore: [],
          previewTenantsAfter: p.previewTenants,
          live,
          allowUnserved: p.stage,
        });
        const expected = p.manifests
          .filter((m) => reachesCard(m, p.previewTenants) && !p.stage.includes(m.id))
          .filter((m) => live.some((n) => !n.handlers.some((h) => h.id === m.handler)))
          .map((m) => m.id)
          .sort();
        expect(out.map((u) => u.capabilityId)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
