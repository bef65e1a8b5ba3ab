export enum SyncErrorCode {
  /** The bundle could not be computed in time (another process holds the lock, or PostgreSQL is slow). */
  BundleUnavailable = 'BUNDLE_UNAVAILABLE',
  /** Redis is not connected: the revision stays in the outbox and is announced when it is back. */
  RedisUnavailable = 'REDIS_UNAVAILABLE',
}

/** The sync layer could not serve or announce a bundle. */
export class SyncError extends Error {
  override readonly name = 'SyncError';
  constructor(
    readonly code: SyncErrorCode,
    message: string,
  ) {
    super(message);
  }
}
