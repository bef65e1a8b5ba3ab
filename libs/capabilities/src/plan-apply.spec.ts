import { financeAgentExample } from './fixtures/finance-agent';
import { planApply } from './plan-apply';
import { given } from './testing/given';
import type { CapabilityManifest } from './types';

const [lookup, recon] = financeAgentExample().manifests;
const v2: CapabilityManifest = { ...recon, id: 'reconcile-invoice-v2', handler: 'recon.v4.reconcile' };

describe('planApply', () => {
  it('adds, changes, deprecates and leaves unchanged in one declarative pass', () => {
    const plan = planApply(
      [lookup, recon],
      [
        { ...lookup, skill: { ...lookup.skill, description: 'Finds invoices fast.' } },
        { ...recon, state: 'deprecated', replacedBy: v2.id },
        v2,
      ],
    );
    expect(plan.errors).toEqual([]);
    expect(plan.added.map((m) => m.id)).toEqual([v2.id]);
    expect(plan.changed.map((c) => [c.id, c.fields])).toEqual([['invoice-lookup', ['skill.description']]]);
    expect(plan.deprecated.map((m) => m.id)).toEqual(['reconcile-invoice']);
    expect(plan.unchanged).toEqual([]);
  });

  it('removes an absent deprecated (or preview) capability', () => {
    const dep = { ...recon, state: 'deprecated' as const, deprecationReason: 'Gone.' };
    const preview = given.manifest({ id: 'beta', state: 'preview' });
    const plan = planApply([lookup, dep, preview], [lookup]);
    expect(plan.errors).toEqual([]);
    expect(plan.removed.map((m) => [m.id, m.state])).toEqual([
      ['reconcile-invoice', 'removed'],
      ['beta', 'removed'],
    ]);
    expect(plan.unchanged).toEqual(['invoice-lookup']);
  });

  it('refuses to remove a ga capability by omission: deprecate first', () => {
    const plan = planApply([lookup, recon], [lookup]);
    expect(plan.errors).toEqual([{ path: '$', message: expect.stringContaining('deprecate it first') }]);
  });

  it('keeps removed ones removed without reporting them, and refuses reusing their ids', () => {
    const gone = { ...recon, state: 'removed' as const };
    expect(planApply([lookup, gone], [lookup])).toMatchObject({ errors: [], removed: [], unchanged: ['invoice-lookup'] });
    expect(planApply([lookup, gone], [lookup, gone])).toMatchObject({ errors: [], removed: [], changed: [] });
    const reuse = planApply([lookup, gone], [lookup, { ...recon, handler: 'recon.v9.reconcile' }]);
    expect(reuse.errors).toEqual([{ path: '$[1].state', message: expect.stringContaining('is removed') }]);
  });

  it('lists every error at once, with paths into the desired list', () => {
    const plan = planApply(
      [lookup, recon],
      [{ ...lookup, handler: 'invoices.v2.lookup' }, { ...recon, state: 'deprecated', replacedBy: 'missing-one' }, v2, v2],
    );
    expect(plan.errors.map((e) => e.path)).toEqual(['$[3].id', '$[0].handler', '$[1].replaced_by']);
  });

  it('checks replacements against the resulting registry (a removed replacement is refused)', () => {
    const dep = { ...v2, state: 'deprecated' as const, deprecationReason: 'x' };
    const plan = planApply([lookup, recon, dep], [lookup, { ...recon, state: 'deprecated', replacedBy: v2.id }]);
    expect(plan.errors.map((e) => e.message)).toEqual([expect.stringContaining('is removed')]);
  });
});
