export interface SyncPublisherOptions {
  /** How often unpublished outbox rows are re-published (0: never). */
  outboxIntervalMs: number;
  /** Outbox rows younger than this are left to the publisher that committed them. */
  outboxGraceMs: number;
  /** How often every agent's current revision is announced again, so a dropped message converges (0: never). */
  reannounceIntervalMs: number;
  /** Re-announce only agents whose latest revision is younger than this (older ones were announced often enough). */
  reannounceWindowMs: number;
  /** How long a bundle stays cached in Redis per (agent, revision). */
  bundleTtlSeconds: number;
  /** Longest delta pushed with an announcement on the changes channel, in characters (0: never push; ADR 0199). */
  pushDeltaMaxLength: number;
}

export const DEFAULT_SYNC_OPTIONS: SyncPublisherOptions = {
  outboxIntervalMs: 5_000,
  outboxGraceMs: 2_000,
  reannounceIntervalMs: 30_000,
  reannounceWindowMs: 10 * 60_000,
  bundleTtlSeconds: 24 * 3600,
  pushDeltaMaxLength: 64 * 1024,
};

export const SYNC_OPTIONS = Symbol('SYNC_OPTIONS');
