import type { RegistrySnapshot } from '@cp/capabilities';

/**
 * Told after a registry change has COMMITTED (never inside the transaction). The sync layer
 * publishes the revision to agent nodes from here; a listener that fails is logged, and the
 * RegistryRevision outbox row (publishedAt null) makes sure the revision is published later.
 */
export interface RevisionListener {
  /** `prepared`: what `prepare` returned for this change, when the listener has one (ADR 0365). */
  revisionCommitted(agentId: string, revision: number, prepared?: unknown): Promise<void>;
  /**
   * Optional (ADR 0365): called inside the change's transaction, after its work and audit, with
   * the snapshot of the revision being committed, read in that transaction. It starts work that
   * needs no commit (the publisher builds and signs the bundle) and returns it at once, so the
   * work overlaps the COMMIT; it must not write anything others can see, since the transaction
   * may still roll back. What it returns is handed to revisionCommitted only after the commit.
   */
  prepare?(snapshot: RegistrySnapshot): unknown;
}
export const REVISION_LISTENERS = Symbol('REVISION_LISTENERS');
