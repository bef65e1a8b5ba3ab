/**
 * Redis key and channel names of bundle sync, the bundle ETag and the revision stamp: written by
 * the control plane (libs/sync), read by nodes (libs/node-sdk).
 *
 * Keys carry the agent in a hash tag (`{agent}`) so one agent's keys stay in one Redis Cluster slot.
 */
export const syncKeys = (prefix: string, agentId: string) => ({
  /** The agent's latest announced revision stamp (`revisionStamp`; raised within an epoch). */
  revision: `${prefix}sync:{${agentId}}:rev`,
  /** Hash {body, etag} of the bundle of one revision of one registry epoch. */
  bundle: (revision: number, epoch = '') => `${prefix}sync:{${agentId}}:bundle:${revision}:${epoch}`,
  /** The delta from the bundle with ETag `"r<base>-<hash>"` to a revision of an epoch ('' = the full bundle is smaller). */
  delta: (baseRevision: number, baseHash: string, revision: number, epoch = '') =>
    `${prefix}sync:{${agentId}}:delta:${baseRevision}-${baseHash}:${revision}:${epoch}`,
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
