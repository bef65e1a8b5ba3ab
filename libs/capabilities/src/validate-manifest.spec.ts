import fc from 'fast-check';
import { financeAgentExample } from './fixtures/finance-agent';
import { toManifestDocument } from './manifest-document';
import { manifestArb } from './testing/arbitraries';
import { validateManifest, validateManifests } from './validate-manifest';

const seedDoc = () => toManifestDocument(financeAgentExample().manifests[1]);
const errorsOf = (doc: unknown) => {
  const r = validateManifest(doc);
  return r.ok ? [] : r.errors;
};
const paths = (doc: unknown) => errorsOf(doc).map((e) => e.path);

describe('validateManifest', () => {
  it('accepts the seed manifest exactly as written in the design', () => {
    const doc = {
      id: 'reconcile-invoice',
      state: 'ga',
      visibility: 'extended',
      skill: {
        name: 'Reconcile an invoice',
        description: 'Matches an invoice to its purchase order and lists line-level differences.',
        tags: ['finance', 'invoices'],
        examples: ['Reconcile invoice INV-20931 against its PO.'],
        inputModes: ['text/plain', 'application/pdf'],
        outputModes: ['application/json'],
      },
      requires_scopes: ['recon.run'],
      tenants: '*',
      handler: 'recon.v3.reconcile',
      // Server-side binding to the registry's erp tool (issue 11 item 7); not in the design's text.
      tools: ['erp'],
      limits: { max_pdf_pages: 200, cost_class: 'medium' },
      owner: 'finance-agents-team',
    };
    const r = validateManifest(doc);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.manifest).toEqual(financeAgentExample().manifests[1]);
  });

  it('lists every problem with its JSON path, not only the first', () => {
    const doc = {
      ...seedDoc(),
      id: 'Bad_Id',
      handler: 'Recon..x',
      skill: { ...seedDoc().skill, tags: [], inputModes: ['text/plain', 'pdf'] },
    };
    expect(paths(doc)).toEqual(expect.arrayContaining(['$.id', '$.handler', '$.skill.tags', '$.skill.inputModes[1]']));
  });

  it('validates the server-side tools list: names, duplicates, size; empty and absent are the same', () => {
    expect(paths({ ...seedDoc(), tools: ['ERP!', 'erp', 'erp', ''] })).toEqual(
      expect.arrayContaining(['$.tools[0]', '$.tools[2]', '$.tools[3]']),
    );
    expect(paths({ ...seedDoc(), tools: 'erp' })).toEqual(['$.tools']);
    expect(paths({ ...seedDoc(), tools: Array.from({ length: 33 }, (_, i) => `t${i}`) })).toEqual(['$.tools']);
    const empty = validateManifest({ ...seedDoc(), tools: [] });
    const absent = validateManifest((({ tools: _t, ...rest }) => rest)(seedDoc()));
    expect(empty.ok && absent.ok && empty.manifest).toEqual(absent.ok && absent.manifest);
    expect(empty.ok && empty.manifest.tools).toBeUndefined();
  });

  it('rejects unknown keys at the top level and in the skill block (closed shape)', () => {
    const doc = { ...seedDoc(), requiresScopes: ['x'], skill: { ...seedDoc().skill, input_modes: ['text/plain'] } };
    expect(errorsOf(doc)).toEqual(
      expect.arrayContaining([
        { path: '$.requiresScopes', message: 'unknown field' },
        { path: '$.skill.input_modes', message: 'unknown field' },
      ]),
    );
  });

  it('says "is required" for a missing field', () => {
    const { owner: _owner, visibility: _v, ...doc } = seedDoc();
    expect(errorsOf(doc)).toEqual(
      expect.arrayContaining([
        { path: '$.owner', message: 'is required' },
        { path: '$.visibility', message: 'is required' },
      ]),
    );
  });

  it.each([
    ['id too long', { id: 'a'.repeat(65) }, '$.id'],
    ['id with a trailing dash', { id: 'recon-' }, '$.id'],
    ['state outside the enumeration', { state: 'beta' }, '$.state'],
    ['visibility outside the enumeration', { visibility: 'private' }, '$.visibility'],
    ['handler with uppercase', { handler: 'Recon.run' }, '$.handler'],
    ['malformed scope', { requires_scopes: ['recon run'] }, '$.requires_scopes[0]'],
    ['duplicate scope', { requires_scopes: ['recon.run', 'recon.run'] }, '$.requires_scopes[1]'],
    ['empty tenant list', { tenants: [] }, '$.tenants'],
    ['tenants neither "*" nor a list', { tenants: 'all' }, '$.tenants'],
    ['malformed tenant slug', { tenants: ['Acme Corp'] }, '$.tenants[0]'],
    ['duplicate tenant', { tenants: ['acme', 'acme'] }, '$.tenants[1]'],
    ['owner not a slug', { owner: 'Finance Team' }, '$.owner'],
    ['negative limit', { limits: { max_pdf_pages: -1 } }, '$.limits.max_pdf_pages'],
    ['limit as a string', { limits: { max_pdf_pages: '200' } }, '$.limits.max_pdf_pages'],
    ['unknown cost class', { limits: { cost_class: 'huge' } }, '$.limits.cost_class'],
    ['limit name not snake_case', { limits: { maxPages: 3 } }, '$.limits.maxPages'],
    ['deprecated without replacement or reason', { state: 'deprecated' }, '$.replaced_by'],
    ['replacement on a ga capability', { replaced_by: 'other-thing' }, '$.replaced_by'],
    ['public capability requiring scopes', { visibility: 'public' }, '$.requires_scopes'],
    ['public capability restricted to tenants', { visibility: 'public', requires_scopes: [], tenants: ['acme'] }, '$.tenants'],
  ])('rejects %s', (_name, patch, path) => {
    expect(paths({ ...seedDoc(), ...patch })).toContain(path);
  });

  it.each([
    ['empty tags entry', { tags: [''] }, '$.skill.tags[0]'],
    ['malformed output mode', { outputModes: ['json'] }, '$.skill.outputModes[0]'],
    ['duplicate input mode', { inputModes: ['text/plain', 'text/plain'] }, '$.skill.inputModes[1]'],
    ['empty name', { name: '  ' }, '$.skill.name'],
  ])('rejects a skill block with %s', (_name, patch, path) => {
    expect(paths({ ...seedDoc(), skill: { ...seedDoc().skill, ...patch } })).toContain(path);
  });

  it('accepts media types with parameters and wildcards', () => {
    expect(errorsOf({ ...seedDoc(), skill: { ...seedDoc().skill, inputModes: ['text/plain; charset=utf-8', 'image/*'] } })).toEqual([]);
  });

  it('accepts a deprecated capability with either a replacement or a reason', () => {
    expect(errorsOf({ ...seedDoc(), state: 'deprecated', replaced_by: 'reconcile-invoice-v2' })).toEqual([]);
    expect(errorsOf({ ...seedDoc(), state: 'deprecated', deprecation_reason: 'No longer offered.' })).toEqual([]);
  });

  it('rejects a non-object document at the root', () => {
    expect(paths('nope')).toEqual(['$']);
  });

  it('round-trips: toManifestDocument is the exact inverse of validation', () => {
    fc.assert(
      fc.property(manifestArb(), (m) => {
        const doc = toManifestDocument(m);
        const r = validateManifest(JSON.parse(JSON.stringify(doc)));
        if (!r.ok) throw new Error(JSON.stringify(r.errors));
        expect(r.manifest).toEqual(m);
        expect(toManifestDocument(r.manifest)).toEqual(doc);
      }),
      { numRuns: 300 },
    );
  });
});

describe('validateManifests', () => {
  const lookup = () => toManifestDocument(financeAgentExample().manifests[0]);

  it('reports duplicate ids at the later index', () => {
    const r = validateManifests([seedDoc(), lookup(), seedDoc()]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors).toEqual([{ path: '$[2].id', message: 'duplicate capability id "reconcile-invoice" (first at $[0])' }]);
  });

  it('prefixes per-document problems with the index', () => {
    const r = validateManifests([lookup(), { ...seedDoc(), handler: 'BAD' }]);
    expect(!r.ok && r.errors.map((e) => e.path)).toEqual(['$[1].handler']);
  });

  it('requires replaced_by to name another live capability of the set', () => {
    const deprecated = { ...seedDoc(), state: 'deprecated', replaced_by: 'reconcile-invoice-v2' };
    const missing = validateManifests([deprecated, lookup()]);
    expect(!missing.ok && missing.errors).toEqual([
      { path: '$[0].replaced_by', message: 'replacement "reconcile-invoice-v2" is not a capability of this set' },
    ]);
    const removedTarget = { ...seedDoc(), id: 'reconcile-invoice-v2', handler: 'recon.v4.reconcile', state: 'removed' };
    const dead = validateManifests([deprecated, removedTarget]);
    expect(!dead.ok && dead.errors.map((e) => e.message)).toEqual(['replacement "reconcile-invoice-v2" is removed']);
    const ok = validateManifests([deprecated, { ...removedTarget, state: 'ga' }]);
    expect(ok.ok).toBe(true);
  });
});

describe('validateManifest: sunset_at', () => {
  const deprecated = () => ({ ...seedDoc(), state: 'deprecated', deprecation_reason: 'superseded' });
  it('takes an ISO date or date-time with offset and stores it as UTC date-time', () => {
    const day = validateManifest({ ...deprecated(), sunset_at: '2027-03-01' });
    expect(day.ok && day.manifest.sunsetAt).toBe('2027-03-01T00:00:00.000Z');
    const offset = validateManifest({ ...deprecated(), sunset_at: '2027-03-01T02:00:00+02:00' });
    expect(offset.ok && offset.manifest.sunsetAt).toBe('2027-03-01T00:00:00.000Z');
  });
  it.each([
    ['not a date', 'soon'],
    ['a date that does not exist', '2027-02-31'],
    ['a date-time without offset', '2027-03-01T00:00:00'],
    ['a year an HTTP-date cannot carry', '1969-12-31'],
    ['a header-splitting attempt', '2027-03-01\r\nSet-Cookie: x=1'],
    ['a huge string', '2'.repeat(100_000)],
    ['a number', 1_790_000_000],
  ])('refuses %s', (_what, value) => {
    expect(paths({ ...deprecated(), sunset_at: value })).toEqual(['$.sunset_at']);
  });
  it('refuses a sunset on a capability that is not deprecated', () => {
    expect(errorsOf({ ...seedDoc(), sunset_at: '2027-03-01' })).toEqual([
      { path: '$.sunset_at', message: 'only a deprecated capability has a sunset date (deprecate it first)' },
    ]);
  });
});
