/**
 * THE entitlement function (the seed's `visible()`, extended for the lifecycle). Every projection
 * and execution-time enforcement call this one function, so what is advertised, what is routed
 * and what is allowed cannot disagree.
 */
import type { Caller, CapabilityManifest } from './types';

export type EntitlementRule =
  | 'removed'
  | 'internal'
  | 'public'
  | 'anonymous-not-extended'
  | 'preview-anonymous'
  | 'preview-not-opted-in'
  | 'missing-scopes'
  | 'tenant-not-allowed'
  | 'entitled';

export interface EntitlementDecision {
  /** In the public card served at the well-known path. */
  inPublicCard: boolean;
  /** In the extended card served to THIS caller (never for anonymous: it gets no extended card). */
  inExtendedCard: boolean;
  /** May be routed to and executed for this caller: exactly "in this caller's card". */
  routable: boolean;
  rule: EntitlementRule;
  reason: string;
}

/** What entitlement reads: a manifest or an execution-policy entry both fit. */
export type EntitlementSubject = Pick<CapabilityManifest, 'state' | 'visibility'> & {
  requiresScopes: readonly string[];
  tenants: '*' | readonly string[];
};

export interface EntitlementContext {
  /** Tenants opted in to this agent's previews. Pass a Set on hot paths. */
  previewTenants: ReadonlySet<string> | readonly string[];
}

const has = (set: ReadonlySet<string> | readonly string[], v: string) =>
  set instanceof Set ? set.has(v) : (set as readonly string[]).includes(v);

function decision(rule: EntitlementRule, reason: string, pub: boolean, ext: boolean, caller: Caller): EntitlementDecision {
  return { inPublicCard: pub, inExtendedCard: ext, routable: caller === null ? pub : ext, rule, reason };
}

export function entitlement(m: EntitlementSubject, caller: Caller, ctx: EntitlementContext): EntitlementDecision {
  if (m.state === 'removed') return decision('removed', 'the capability is removed', false, false, caller);
  if (m.visibility === 'internal')
    return decision('internal', 'internal capabilities are never advertised nor routable for callers', false, false, caller);
  // Public ga/deprecated is open: scopes and tenants do not apply (validation refuses them on public).
  if (m.visibility === 'public' && m.state !== 'preview') {
    return decision('public', 'public capability', true, caller !== null, caller);
  }
  if (caller === null) {
    return m.state === 'preview'
      ? decision('preview-anonymous', 'previews are shown only to authenticated callers of opted-in tenants', false, false, caller)
      : decision('anonymous-not-extended', 'extended capabilities need an authenticated caller', false, false, caller);
  }
  if (m.state === 'preview' && !has(ctx.previewTenants, caller.tenant)) {
    return decision('preview-not-opted-in', `tenant "${caller.tenant}" has not opted in to previews`, false, false, caller);
  }
  const missing = m.requiresScopes.filter((s) => !caller.scopes.includes(s));
  if (missing.length > 0) return decision('missing-scopes', `missing scope(s): ${missing.join(', ')}`, false, false, caller);
  if (m.tenants !== '*' && !m.tenants.includes(caller.tenant)) {
    return decision('tenant-not-allowed', `tenant "${caller.tenant}" is not among the allowed tenants`, false, false, caller);
  }
  return decision('entitled', 'caller holds every required scope and its tenant is allowed', false, true, caller);
}

/** Execution-time enforcement: may this caller run it? (= routable). */
export function isEntitled(m: EntitlementSubject, caller: Caller, ctx: EntitlementContext): boolean {
  return entitlement(m, caller, ctx).routable;
}

/**
 * Whether a manifest can reach some extended card without being in the public card: decides
 * capabilities.extendedAgentCard. A preview counts only if some opted-in tenant may see it.
 */
export function canBeExtendedOnly(m: EntitlementSubject, previewTenants: ReadonlySet<string>): boolean {
  if (m.state === 'removed' || m.visibility === 'internal') return false;
  if (m.state === 'preview') {
    if (m.tenants === '*') return previewTenants.size > 0;
    return m.tenants.some((t) => previewTenants.has(t));
  }
  return m.visibility === 'extended';
}
