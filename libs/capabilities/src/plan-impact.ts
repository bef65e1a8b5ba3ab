/**
 * Which changes between two registries take a capability away from some of its callers (issue
 * 21): removed, narrowed by scopes or tenants, or hidden (made extended-only or internal). The
 * control plane joins these with recent usage; cpctl gates on them. Pure.
 */
import { byId } from './select';
import type { CapabilityManifest } from './types';

export type ImpactKind = 'removed' | 'narrowed-scopes' | 'narrowed-tenants' | 'hidden';

/**
 * Which callers lose the capability. Usage is counted per tenant, so this is what can be told
 * from a tenant: every caller, anonymous callers only, or the tenants outside `keep` / inside `lose`.
 */
export type ImpactAudience =
  { kind: 'all' } | { kind: 'anonymous' } | { kind: 'tenants-except'; keep: string[] } | { kind: 'tenants'; lose: string[] };

export interface ImpactChange {
  capabilityId: string;
  kind: ImpactKind;
  detail: string;
  audience: ImpactAudience;
}

/** Whether calls counted under `tenant` come from callers this change takes the capability from. */
export function affectsTenant(audience: ImpactAudience, tenant: string, anonymousTenant: string): boolean {
  switch (audience.kind) {
    case 'all':
      return true;
    case 'anonymous':
      return tenant === anonymousTenant;
    case 'tenants-except':
      return !audience.keep.includes(tenant);
    case 'tenants':
      return audience.lose.includes(tenant);
  }
}

const live = (m: CapabilityManifest | undefined): m is CapabilityManifest => m !== undefined && m.state !== 'removed';

/** The changes from `before` to `after` (whole registries) that take a capability from callers, ordered by id. */
export function planImpact(before: readonly CapabilityManifest[], after: readonly CapabilityManifest[]): ImpactChange[] {
  const next = new Map(after.map((m) => [m.id, m] as const));
  const out: ImpactChange[] = [];
  for (const b of [...before].sort(byId)) {
    if (!live(b)) continue;
    const a = next.get(b.id);
    const id = b.id;
    if (!live(a)) {
      out.push({ capabilityId: id, kind: 'removed', detail: `${b.state} capability removed`, audience: { kind: 'all' } });
      continue;
    }
    if (b.visibility !== a.visibility && a.visibility !== 'public') {
      const fromPublic = b.visibility === 'public' && a.visibility === 'extended';
      out.push({
        capabilityId: id,
        kind: 'hidden',
        detail: `visibility ${b.visibility} → ${a.visibility}${fromPublic ? ': anonymous callers lose it' : ': no caller may use it'}`,
        audience: fromPublic ? { kind: 'anonymous' } : { kind: 'all' },
      });
    }
    const added = a.requiresScopes.filter((s) => !b.requiresScopes.includes(s));
    if (added.length > 0) {
      // Usage does not record the callers' scopes: any caller may lack the new ones.
      out.push({
        capabilityId: id,
        kind: 'narrowed-scopes',
        detail: `now requires scope(s) ${added.join(', ')}`,
        audience: { kind: 'all' },
      });
    }
    if (a.tenants !== '*') {
      if (b.tenants === '*')
        out.push({
          capabilityId: id,
          kind: 'narrowed-tenants',
          detail: `tenants * → ${a.tenants.join(', ') || '(none)'}`,
          audience: { kind: 'tenants-except', keep: [...a.tenants].sort() },
        });
      else {
        const after = a.tenants;
        const lose = b.tenants.filter((t) => !after.includes(t)).sort();
        if (lose.length > 0)
          out.push({
            capabilityId: id,
            kind: 'narrowed-tenants',
            detail: `tenants no longer allowed: ${lose.join(', ')}`,
            audience: { kind: 'tenants', lose },
          });
      }
    }
  }
  return out;
}
