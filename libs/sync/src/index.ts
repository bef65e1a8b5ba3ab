/** @cp/sync: the control plane's side of node sync (bundle cache, revision publisher, outbox relay). */
export { SyncPublisherModule } from './sync-publisher.module';
export { BundleCache, type CachedBundle } from './bundle-cache';
export { BundleDeltas } from './bundle-deltas';
export { RevisionReads, type RevisionReader } from './revision-reads';
export { RevisionPublisher } from './revision-publisher';
export { SigningKeys } from './signing-keys';
export { OutboxRelay, relayLeaseKey } from './outbox-relay';
export { SyncError, SyncErrorCode } from './sync.errors';
export { DEFAULT_SYNC_OPTIONS, SYNC_OPTIONS, type SyncPublisherOptions } from './sync.options';
