import type { NodeSync } from './node-sync';

/**
 * The readiness check of a node built on NodeSync: ready when a bundle is applied and the control
 * plane has not refused this node's registration. A refused registration (another agent's id
 * pattern, an unknown agent, a bad token) means the node is missing from its fleet and from usage
 * coverage, so it must not look healthy. A control plane that is merely unreachable does not make
 * a node with a bundle unready: nodes serve what they last synced.
 */
export function nodeSyncHealthCheck(sync: Pick<NodeSync, 'current' | 'status'>): () => Promise<void> {
  return async () => {
    const { registration } = sync.status();
    if (registration.refused) throw new Error(`node not registered with the control plane: ${registration.error}`);
    if (!sync.current()) throw new Error('no capability bundle applied yet');
  };
}
