/** The execution policy: per handler, the scopes, tenants and limits a node enforces. */
import { manifestsForCaller, byId } from './select';
import type { UpstreamSpec } from './upstream';
import type { Caller, CapabilityManifest, CapabilityState, ManifestLimits, RegistrySnapshot, Visibility } from './types';

export interface PolicyEntry {
  capabilityId: string;
  handler: string;
  state: Exclude<CapabilityState, 'removed'>;
  visibility: Visibility;
  requiresScopes: string[];
  tenants: '*' | string[];
  limits: ManifestLimits;
  /** Deprecated capabilities only: what nodes announce on the wire (Deprecation/Sunset/Link, task metadata). */
  deprecation?: PolicyDeprecation;
  /** The upstream agent that serves it (ADR 0230): the node forwards instead of running a local handler. */
  upstream?: UpstreamSpec;
}

export interface PolicyDeprecation {
  /** ISO 8601; null for a manifest the registry has no deprecation time for. */
  deprecatedAt: string | null;
  sunsetAt: string | null;
  /** The replacement as the manifest names it (a node shows it only to callers entitled to it). */
  replacedBy: string | null;
}

export interface ExecutionPolicy {
  agentId: string;
  revision: number;
  /** Needed to re-check preview opt-in with `entitlement` at execution. */
  previewTenants: string[];
  /** Ordered by capabilityId. Several capabilities may share a handler. */
  entries: PolicyEntry[];
}

function entry(m: CapabilityManifest): PolicyEntry {
  const e: PolicyEntry = {
    capabilityId: m.id,
    handler: m.handler,
    state: m.state as PolicyEntry['state'],
    visibility: m.visibility,
    requiresScopes: [...m.requiresScopes],
    tenants: m.tenants === '*' ? '*' : [...m.tenants],
    limits: { ...m.limits },
  };
  if (m.state === 'deprecated')
    e.deprecation = { deprecatedAt: m.deprecatedAt ?? null, sunsetAt: m.sunsetAt ?? null, replacedBy: m.replacedBy ?? null };
  if (m.upstream) e.upstream = structuredClone(m.upstream);
  return e;
}

/**
 * With a caller: what that caller is entitled to (same set as its card and router index).
 * Without: every non-removed capability (internal included), for a node that enforces per call
 * with `entitlement(entry, caller, policy)`; a PolicyEntry is a valid EntitlementSubject.
 */
export function buildExecutionPolicy(snapshot: RegistrySnapshot, caller?: Caller): ExecutionPolicy {
  const selected =
    caller === undefined ? snapshot.manifests.filter((m) => m.state !== 'removed').sort(byId) : manifestsForCaller(snapshot, caller);
  return {
    agentId: snapshot.agentId,
    revision: snapshot.revision,
    previewTenants: [...snapshot.previewTenants].sort(),
    entries: selected.map(entry),
  };
}

/** Policy entries a node finds for a handler it is about to run. */
export function policyEntriesForHandler(policy: ExecutionPolicy, handler: string): PolicyEntry[] {
  return policy.entries.filter((e) => e.handler === handler);
}
