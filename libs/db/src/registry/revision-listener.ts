/**
 * Told after a registry change has COMMITTED (never inside the transaction). The sync layer
 * publishes the revision to agent nodes from here; a listener that fails is logged, and the
 * RegistryRevision outbox row (publishedAt null) makes sure the revision is published later.
 */
export interface RevisionListener {
  revisionCommitted(agentId: string, revision: number): Promise<void>;
}
export const REVISION_LISTENERS = Symbol('REVISION_LISTENERS');
