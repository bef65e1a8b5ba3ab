import type { AgentCard } from './card-types';
import { buildPublicCard } from './cards';
import { addedLeaks, findLeaks } from './find-leaks';
import { financeAgentExample } from './fixtures/finance-agent';
import { given } from './testing/given';

const f = financeAgentExample();
const card = (): AgentCard => buildPublicCard(given.snapshot(f.manifests));
const withLookupText = (patch: Partial<AgentCard['skills'][number]>): AgentCard => {
  const c = card();
  return { ...c, skills: c.skills.map((s) => ({ ...s, ...patch })) };
};

describe('findLeaks', () => {
  it('finds nothing in the generated public card, shared public tags included', () => {
    expect(findLeaks(card(), f.manifests)).toEqual([]);
  });

  it('reports an extended skill description copied into a public one, case-insensitively', () => {
    const leaked = withLookupText({ description: 'Also: MATCHES AN INVOICE TO ITS PURCHASE ORDER AND LISTS LINE-LEVEL DIFFERENCES.' });
    expect(findLeaks(leaked, f.manifests)).toEqual([
      {
        skillId: 'reconcile-invoice',
        field: 'description',
        text: 'Matches an invoice to its purchase order and lists line-level differences.',
      },
    ]);
  });

  it('reports names, examples, ids and tags used by no public skill', () => {
    const secret = given.manifest({
      id: 'payroll-run',
      skill: { name: 'Run payroll', tags: ['payroll', 'hr'], examples: ['Pay everyone on Friday'] },
    });
    const leaked = withLookupText({ description: 'Run payroll: Pay everyone on Friday via payroll-run.', tags: ['finance', 'payroll'] });
    expect(findLeaks(leaked, [...f.manifests, secret]).map((l) => l.field)).toEqual(['id', 'name', 'examples[0]', 'tags[0]']);
  });

  it('ignores texts shorter than 4 characters and ids inside longer ids', () => {
    const secret = given.manifest({ id: 'lookup', skill: { name: 'Inv', tags: ['hr'] } });
    expect(findLeaks(card(), [...f.manifests, secret])).toEqual([]);
  });

  it('treats previews, even public ones, as non-public; ignores removed skills', () => {
    const preview = given.manifest({ visibility: 'public', state: 'preview', skill: { name: 'Forecast cash flow' } });
    const removed = given.manifest({ visibility: 'extended', state: 'removed', skill: { name: 'Reconcile an invoice' } });
    const leaked = withLookupText({ description: 'Forecast cash flow too.' });
    expect(findLeaks(leaked, [preview, removed]).map((l) => [l.skillId, l.field])).toEqual([[preview.id, 'name']]);
  });

  it('sees through a Cyrillic "е", a zero-width space and a right-to-left override inside an extended-only name or id', () => {
    for (const description of ['Also r\u0435concile-invoice.', 'Also: Recon\u200bcile an invoice.', 'Also: \u202eReconcile an invoice.']) {
      expect(findLeaks(withLookupText({ description }), f.manifests).map((l) => l.skillId)).toContain('reconcile-invoice');
    }
  });

  it('flags the scope names and tenant slugs of non-public skills, and tenants the caller names, as whole tokens', () => {
    const tenantOnly = given.manifest({ id: 'ledger-export', tenants: ['acme-partner'], requiresScopes: ['ledger.read'] });
    const leaked = withLookupText({ description: 'Partners with recon.run or ledger.read; built for acme-partner.' });
    expect(findLeaks(leaked, [...f.manifests, tenantOnly]).map((l) => [l.skillId, l.field, l.text])).toEqual([
      ['reconcile-invoice', 'requires_scopes[0]', 'recon.run'],
      ['ledger-export', 'requires_scopes[0]', 'ledger.read'],
      ['ledger-export', 'tenants[0]', 'acme-partner'],
    ]);
    expect(findLeaks(withLookupText({ description: 'For globex too.' }), f.manifests, { tenants: ['globex'] })).toEqual([
      { skillId: '*', field: 'tenant', text: 'globex' },
    ]);
    // Whole tokens only: "recon.running" and "acme-partnership" are other words.
    const near = withLookupText({ description: 'recon.running for an acme-partnership' });
    expect(findLeaks(near, [...f.manifests, tenantOnly], { tenants: ['acme-partner'] })).toEqual([]);
  });

  it("checks the agent's own text: name and description are public text too", () => {
    expect(findLeaks({ ...card(), description: 'We also Reconcile an invoice.' }, f.manifests).map((l) => l.field)).toEqual(['name']);
    expect(findLeaks({ ...card(), name: 'Finance (recon.run)' }, f.manifests).map((l) => l.field)).toEqual(['requires_scopes[0]']);
  });
});

describe('addedLeaks (ADR 0335)', () => {
  const leak = (skillId: string, field: string, text: string) => ({ skillId, field, text });

  it('keeps only the leaks the card before did not show: same skill, field kind and folded text is the same leak', () => {
    const before = [leak('a', 'tags[0]', 'travel'), leak('a', 'examples[1]', 'Book a flight')];
    const after = [
      leak('a', 'tags[0]', 'Travel'),
      leak('a', 'examples[0]', 'book a \u200bflight'),
      leak('a', 'examples[1]', 'Book a hotel'),
      leak('b', 'tags[0]', 'travel'),
      leak('a', 'name', 'travel'),
    ];
    expect(addedLeaks(before, after)).toEqual([after[2], after[3], after[4]]);
  });

  it('answers every leak when the card before had none, and none when the change only removes some', () => {
    const after = [leak('a', 'description', 'Secret text')];
    expect(addedLeaks([], after)).toEqual(after);
    expect(addedLeaks([...after, leak('b', 'name', 'Other')], after)).toEqual([]);
  });
});
