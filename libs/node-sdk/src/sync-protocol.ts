/**
 * The wire contract between the control plane and its nodes: Redis key and channel names, the
 * bundle ETag, and the node API's paths and bodies. Plain TypeScript, shared by both sides.
 *
 * Keys carry the agent in a hash tag (`{agent}`) so one agent's keys stay in one Redis Cluster slot.
 */
import type { HandlerDeclaration } from '@cp/capabilities';

export const NODE_API_PREFIX = '/node/v1';

export const nodeApiPaths = {
  register: `${NODE_API_PREFIX}/register`,
  heartbeat: `${NODE_API_PREFIX}/heartbeat`,
  bundle: `${NODE_API_PREFIX}/bundle`,
  ack: `${NODE_API_PREFIX}/ack`,
} as const;

export const syncKeys = (prefix: string, agentId: string) => ({
  /** The agent's latest announced revision stamp (`revisionStamp`; raised within an epoch). */
  revision: `${prefix}sync:{${agentId}}:rev`,
  /** Hash {body, etag} of the bundle of one revision of one registry epoch. */
  bundle: (revision: number, epoch = '') => `${prefix}sync:{${agentId}}:bundle:${revision}:${epoch}`,
  /** Held while one process computes the bundle of a revision. */
  lock: (revision: number) => `${prefix}sync:{${agentId}}:lock:${revision}`,
  /** Pub/sub channel: each message is the agent's latest revision stamp. */
  channel: `${prefix}sync:{${agentId}}:revisions`,
});

/**
 * `<revision>|<epoch>`: revisions only grow within one registry epoch (RegistrySnapshot.epoch);
 * a registry recreated from scratch (a reset or restored database) starts a new epoch, and
 * everything keyed by revision alone would otherwise serve the old registry's bundles.
 */
export function revisionStamp(revision: number, epoch: string | undefined): string {
  return `${revision}|${epoch ?? ''}`;
}

export function parseRevisionStamp(value: string): { revision: number; epoch: string } | undefined {
  const bar = value.indexOf('|');
  const revision = Number(bar === -1 ? value : value.slice(0, bar));
  if (!Number.isInteger(revision) || revision < 0) return undefined;
  return { revision, epoch: bar === -1 ? '' : value.slice(bar + 1) };
}

/**
 * Strong ETag of a bundle: covers the revision and the content (generatedAt excluded, so a
 * bundle recomputed after a cache eviction revalidates as unchanged).
 */
export function nodeBundleEtag(revision: number, contentHash: string): string {
  return `"r${revision}-${contentHash}"`;
}

export interface RegisterNodeBody {
  nodeId: string;
  hostname?: string;
  /** The handlers this node's code has (issue 14); absent from nodes older than the inventory. */
  handlers?: HandlerDeclaration[];
}
export interface HeartbeatBody {
  nodeId: string;
  handlers?: HandlerDeclaration[];
  /** Sent once by a node shutting down gracefully: it is no longer one of the agent's live nodes. */
  stopping?: boolean;
}
export type AckBody =
  | {
      nodeId: string;
      revision: number;
      servedHash: string;
      /** Capabilities of the applied bundle whose handler this node lacks (it serves the rest). */
      unservable?: string[];
    }
  | { nodeId: string; revision: number; error: string };

/** Node ids name a process; kept printable and short because they show up in GraphQL and logs. */
export const NODE_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
