import { affectsTenant, planImpact } from './plan-impact';
import { given } from './testing/given';

const pub = given.manifest({ id: 'pub', visibility: 'public' });
const ext = given.manifest({ id: 'ext', tenants: ['acme', 'globex'] });
const open = given.manifest({ id: 'open' });
const dep = given.manifest({ id: 'dep', state: 'deprecated', deprecationReason: 'old' });
const gone = given.manifest({ id: 'gone', state: 'removed' });

describe('planImpact', () => {
  it('names removals, hiding, scope and tenant narrowing, and nothing for widening or unrelated edits', () => {
    const changes = planImpact(
      [pub, ext, open, dep, gone],
      [
        { ...pub, visibility: 'extended' },
        { ...ext, tenants: ['acme'] },
        { ...open, requiresScopes: ['x.read'], tenants: ['acme'], skill: { ...open.skill, description: 'New words.' } },
        gone,
      ],
    );
    expect(changes.map((c) => [c.capabilityId, c.kind, c.audience])).toEqual([
      ['dep', 'removed', { kind: 'all' }],
      ['ext', 'narrowed-tenants', { kind: 'tenants', lose: ['globex'] }],
      ['open', 'narrowed-scopes', { kind: 'all' }],
      ['open', 'narrowed-tenants', { kind: 'tenants-except', keep: ['acme'] }],
      ['pub', 'hidden', { kind: 'anonymous' }],
    ]);
    expect(planImpact([ext], [{ ...ext, tenants: '*' }])).toEqual([]);
    expect(planImpact([{ ...open, requiresScopes: ['a'] }], [open])).toEqual([]);
  });

  it('internal hides from everyone', () => {
    expect(planImpact([open], [{ ...open, visibility: 'internal' }])[0]).toMatchObject({ kind: 'hidden', audience: { kind: 'all' } });
  });

  it('affectsTenant reads the audience', () => {
    expect(affectsTenant({ kind: 'anonymous' }, 'anonymous', 'anonymous')).toBe(true);
    expect(affectsTenant({ kind: 'anonymous' }, 'acme', 'anonymous')).toBe(false);
    expect(affectsTenant({ kind: 'tenants-except', keep: ['acme'] }, 'globex', 'anonymous')).toBe(true);
    expect(affectsTenant({ kind: 'tenants-except', keep: ['acme'] }, 'acme', 'anonymous')).toBe(false);
    expect(affectsTenant({ kind: 'tenants', lose: ['globex'] }, 'globex', 'anonymous')).toBe(true);
    expect(affectsTenant({ kind: 'all' }, 'anyone', 'anonymous')).toBe(true);
  });
});
