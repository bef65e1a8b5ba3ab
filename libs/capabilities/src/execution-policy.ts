/** The execution policy: per handler, the scopes, tenants and limits a node enforces. */
import { manifestsForCaller, byId } from './select';
import type { Caller, CapabilityManifest, CapabilityState, ManifestLimits, RegistrySnapshot, Visibility } from './types';

export interface PolicyEntry {
  capabilityId: string;
  handler: string;
  state: Exclude<CapabilityState, 'removed'>;
  visibility: Visibility;
  requiresScopes: string[];
  tenants: '*' | string[];
  limits: ManifestLimits;
}

export interface ExecutionPolicy {
  agentId: string;
  revision: number;
  /** Needed to re-check preview opt-in with `entitlement` at execution. */
  previewTenants: string[];
  /** Ordered by capabilityId. Several capabilities may share a handler. */
  entries: PolicyEntry[];
}

const entry = (m: CapabilityManifest): PolicyEntry => ({
  capabilityId: m.id,
  handler: m.handler,
  state: m.state as PolicyEntry['state'],
  visibility: m.visibility,
  requiresScopes: [...m.requiresScopes],
  tenants: m.tenants === '*' ? '*' : [...m.tenants],
  limits: { ...m.limits },
});

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
