/**
 * The AI Catalog an agent node serves (ADR 0315): a pure function of its bundle (the snapshot and
 * the bundle's `catalog` host, publisher and updatedAt) and of the caller's entitlement class. The
 * node computes it to serve it; the control plane computes it to sign it (the anonymous catalog
 * when it builds the bundle, a class's when a node asks on ADR 0132's route). Both sides call this
 * one function: two builders could drift, and a signature over one would not verify over the other.
 */
import type { Caller, NodeBundleCatalog, RegistrySnapshot } from '@cp/capabilities';
import { agentsCatalog, type AiCatalog, type AiCatalogHost, type AiCatalogPublisher } from './ai-catalog';

/** What a node catalog is made of besides the snapshot and the caller. */
export type NodeCatalogParams = Pick<NodeBundleCatalog, 'host' | 'publisher' | 'updatedAt'>;

/** The catalog of the one agent of `snapshot`, as `caller` (or any caller of its class) may see it. */
export function nodeCatalog(snapshot: RegistrySnapshot, params: NodeCatalogParams, caller: Caller): AiCatalog {
  return agentsCatalog(params.host, [{ snapshot, teamId: '', updatedAt: params.updatedAt }], caller, params.publisher);
}

/** The host and publisher every catalog of a control plane names: its own, and its nodes' (through their bundles). */
export function catalogIdentity(config: { CATALOG_PUBLISHER: string; CATALOG_HOST_NAME: string }): {
  host: AiCatalogHost;
  publisher: AiCatalogPublisher;
} {
  const name = config.CATALOG_HOST_NAME;
  return { host: { displayName: name }, publisher: { identifier: config.CATALOG_PUBLISHER, displayName: name } };
}
