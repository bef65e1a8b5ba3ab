/** The one selection every projection starts from: what a caller's card holds, ordered by id. */
import { entitlement, type EntitlementContext } from './entitlement';
import type { Caller, CapabilityManifest, RegistrySnapshot } from './types';

/** Code-unit order, never localeCompare: output must not depend on the machine's locale. */
export const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function entitlementContext(snapshot: RegistrySnapshot): EntitlementContext & { previewTenants: ReadonlySet<string> } {
  return { previewTenants: new Set(snapshot.previewTenants) };
}

/**
 * The manifests in this caller's card: the public card for anonymous, the extended card for an
 * authenticated caller. By definition also exactly the routable ones.
 */
export function manifestsForCaller(snapshot: RegistrySnapshot, caller: Caller): CapabilityManifest[] {
  const ctx = entitlementContext(snapshot);
  const pick = caller === null ? 'inPublicCard' : 'inExtendedCard';
  return snapshot.manifests.filter((m) => entitlement(m, caller, ctx)[pick]).sort(byId);
}
