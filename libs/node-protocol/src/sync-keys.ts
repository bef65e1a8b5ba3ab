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
  /** Pub/sub channel: each message is the agent's latest revision stamp (revisionAnnouncement). */
  channel: `${prefix}sync:{${agentId}}:revisions`,
  /**
   * Pub/sub channel of the same announcements, each followed by the delta from the previous
   * revision when it is small enough (changeMessage, ADR 0199): what nodes subscribe to.
   */
  changes: `${prefix}sync:{${agentId}}:changes`,
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
  const digits = bar === -1 ? value : value.slice(0, bar);
  // Digits only: Number('') is 0, and '1e3' or ' 5' are not what the Lua script writes.
  if (!/^\d{1,15}$/.test(digits)) return undefined;
  const revision = Number(digits);
  return { revision, epoch: bar === -1 ? '' : value.slice(bar + 1) };
}

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * What the control plane PUBLISHes on the sync channel: the revision stamp, and when the change
 * was traced, `|<traceparent>` (W3C) so each node's fetch-and-apply continues the change's trace
 * (ADR 0142). Untraced announcements are the bare stamp, byte for byte as before.
 */
export function revisionAnnouncement(stamp: string, traceparent: string | undefined): string {
  return traceparent && TRACEPARENT.test(traceparent) ? `${stamp}|${traceparent}` : stamp;
}

export function parseRevisionAnnouncement(message: string): {
  stamp: { revision: number; epoch: string } | undefined;
  traceparent: string | undefined;
} {
  const bar = message.lastIndexOf('|');
  const tail = bar === -1 ? '' : message.slice(bar + 1);
  if (bar > 0 && message.indexOf('|') < bar && TRACEPARENT.test(tail)) {
    return { stamp: parseRevisionStamp(message.slice(0, bar)), traceparent: tail };
  }
  return { stamp: parseRevisionStamp(message), traceparent: undefined };
}

/**
 * Strong ETag of a bundle: covers the revision and the content (generatedAt excluded, so a
 * bundle recomputed after a cache eviction revalidates as unchanged).
 */
export function nodeBundleEtag(revision: number, contentHash: string): string {
  return `"r${revision}-${contentHash}"`;
}

/** A delta pushed on the changes channel longer than this (characters) is ignored: the node fetches instead. */
export const MAX_PUSHED_DELTA_LENGTH = 1024 * 1024;

/**
 * What the control plane publishes on the changes channel (ADR 0199): the announcement, then, when
 * the publisher had one within its size limit, a newline and the delta (JSON, bundle-delta.ts) from
 * the revision announced before. The delta names its own base; the node applies it only to that
 * base, and the result is verified like any fetched bundle.
 */
export function changeMessage(announcement: string, delta: string | null | undefined): string {
  return delta ? `${announcement}\n${delta}` : announcement;
}

export function parseChangeMessage(message: string): ReturnType<typeof parseRevisionAnnouncement> & { delta: string | undefined } {
  const newline = message.indexOf('\n');
  const head = newline === -1 ? message : message.slice(0, newline);
  // Only a head of the announcement's size is parsed; a longer one is not an announcement.
  const parsed = head.length <= 256 ? parseRevisionAnnouncement(head) : { stamp: undefined, traceparent: undefined };
  // A delta comes only after an announcement, and only within the limit.
  const delta = newline === -1 || !parsed.stamp ? undefined : message.slice(newline + 1);
  return { ...parsed, delta: delta && delta.length <= MAX_PUSHED_DELTA_LENGTH ? delta : undefined };
}
