import type { AgentCard } from './card-types';
import { buildPublicCard } from './cards';
import { findLeaks } from './find-leaks';
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
});
