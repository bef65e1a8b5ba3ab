/**
 * Entitlement classes: callers who must see the same thing share a key, so one extended card,
 * router index and policy serve the whole class. What entitlement reads of a caller is: is it
 * anonymous, which requirement sets its scopes satisfy, whether its tenant is in some tenant list,
 * and whether its tenant opted in to previews. The key holds exactly that:
 * - the tenant, if it matters (named in a tenant list of a manifest where tenants apply, or in
 *   previewTenants), else '*';
 * - the union of the requirement sets the caller satisfies (two callers have the same union iff
 *   they satisfy the same sets, so extra scopes the registry never asks for drop out);
 * - the preview opt-in.
 */
import { canonicalJson } from './canonical-json';
import type { Caller, CapabilityManifest, RegistrySnapshot } from './types';

export const ANONYMOUS_CLASS = 'anonymous';

/**
 * Whether scopes/tenants are read for this manifest (public ga/deprecated ignore them). Removed
 * extended manifests count too: router-index tombstones are per caller.
 */
const callerDependent = (m: CapabilityManifest) => m.visibility === 'extended' || (m.visibility === 'public' && m.state === 'preview');

export interface EntitlementClass {
  key: string;
  /** A representative caller of the class. */
  caller: Caller;
}

export class EntitlementClassIndex {
  /** Distinct non-empty requirement sets, each sorted. */
  readonly requirementSets: readonly (readonly string[])[];
  readonly relevantTenants: ReadonlySet<string>;
  private readonly previewTenants: ReadonlySet<string>;

  constructor(snapshot: RegistrySnapshot) {
    const sets = new Map<string, string[]>();
    const tenants = new Set<string>(snapshot.previewTenants);
    for (const m of snapshot.manifests) {
      if (!callerDependent(m)) continue;
      const set = [...new Set(m.requiresScopes)].sort();
      if (set.length > 0) sets.set(set.join(' '), set);
      if (m.tenants !== '*') for (const t of m.tenants) tenants.add(t);
    }
    this.requirementSets = [...sets.keys()].sort().map((k) => sets.get(k)!);
    this.relevantTenants = tenants;
    this.previewTenants = new Set(snapshot.previewTenants);
  }

  key(caller: Caller): string {
    if (caller === null) return ANONYMOUS_CLASS;
    const held = new Set(caller.scopes);
    const union = new Set<string>();
    for (const set of this.requirementSets) if (set.every((s) => held.has(s))) for (const s of set) union.add(s);
    return this.keyOf(this.relevantTenants.has(caller.tenant) ? caller.tenant : '*', [...union].sort());
  }

  private keyOf(tenant: string, scopes: readonly string[]): string {
    return canonicalJson({ preview: this.previewTenants.has(tenant), scopes, tenant });
  }

  /**
   * A representative caller for every reachable class: anonymous, then each relevant tenant plus
   * one unnamed tenant, times each distinct union of requirement sets. The number of unions can
   * grow exponentially with the number of requirement sets, so the list stops at `limit`
   * (default 4096) and the result's `truncated` says so.
   */
  enumerate(limit = 4096): EntitlementClass[] & { truncated: boolean } {
    const out: EntitlementClass[] = [{ key: ANONYMOUS_CLASS, caller: null }];
    let truncated = false;
    const unions = new Map<string, string[]>([['', []]]);
    for (const set of this.requirementSets) {
      for (const u of [...unions.values()]) {
        const merged = [...new Set([...u, ...set])].sort();
        const k = merged.join(' ');
        if (unions.has(k)) continue;
        if (unions.size >= limit) {
          truncated = true;
          break;
        }
        unions.set(k, merged);
      }
    }
    const named = [...this.relevantTenants].sort();
    let unnamed = 'other-tenant';
    for (let i = 2; this.relevantTenants.has(unnamed); i++) unnamed = `other-tenant-${i}`;
    const orderedUnions = [...unions.keys()].sort().map((k) => unions.get(k)!);
    outer: for (const tenant of [...named, unnamed]) {
      for (const scopes of orderedUnions) {
        if (out.length >= limit) {
          truncated = true;
          break outer;
        }
        const keyTenant = tenant === unnamed ? '*' : tenant;
        out.push({ key: this.keyOf(keyTenant, scopes), caller: { principal: `representative:${tenant}`, tenant, scopes } });
      }
    }
    return Object.assign(out, { truncated });
  }
}

export function entitlementClassKey(snapshot: RegistrySnapshot, caller: Caller): string {
  return new EntitlementClassIndex(snapshot).key(caller);
}

export function enumerateEntitlementClasses(
  snapshot: RegistrySnapshot,
  options: { limit?: number } = {},
): EntitlementClass[] & { truncated: boolean } {
  return new EntitlementClassIndex(snapshot).enumerate(options.limit);
}
