import { Global, Module, type DynamicModule } from '@nestjs/common';
import { AppConfigToken, type AppConfig } from '@cp/common';
import { REVISION_LISTENERS, RegistryModule } from '@cp/db';
import { BundleCache } from './bundle-cache';
import { BundleDeltas } from './bundle-deltas';
import { OutboxRelay } from './outbox-relay';
import { OutboxRepository } from './outbox.repository';
import { RevisionPublisher } from './revision-publisher';
import { SigningKeys } from './signing-keys';
import { DEFAULT_SYNC_OPTIONS, SYNC_OPTIONS, type SyncPublisherOptions } from './sync.options';

const providers = [
  SigningKeys,
  BundleCache,
  BundleDeltas,
  OutboxRepository,
  RevisionPublisher,
  OutboxRelay,
  { provide: REVISION_LISTENERS, inject: [RevisionPublisher], useFactory: (publisher: RevisionPublisher) => [publisher] },
];
const exported = [REVISION_LISTENERS, SigningKeys, BundleCache, BundleDeltas, RevisionPublisher, OutboxRelay];

/**
 * Import once in any app that changes the registry (control plane, worker): RegistryWriter then
 * announces every committed revision to the agent nodes. Needs DbModule and RedisModule (global).
 */
@Global()
@Module({
  imports: [RegistryModule],
  providers: [...providers, { provide: SYNC_OPTIONS, inject: [AppConfigToken], useFactory: syncOptionsFromConfig }],
  exports: exported,
})
export class SyncPublisherModule {
  static forRoot(options: Partial<SyncPublisherOptions> = {}): DynamicModule {
    return {
      module: SyncPublisherModule,
      global: true,
      imports: [RegistryModule],
      providers: [...providers, { provide: SYNC_OPTIONS, useValue: { ...DEFAULT_SYNC_OPTIONS, ...options } }],
      exports: exported,
    };
  }
}

/** The relay's intervals from the configuration (SYNC_*), the rest from the defaults. */
export function syncOptionsFromConfig(config: AppConfig): SyncPublisherOptions {
  return {
    ...DEFAULT_SYNC_OPTIONS,
    outboxIntervalMs: config.SYNC_OUTBOX_INTERVAL_MS,
    reannounceIntervalMs: config.SYNC_REANNOUNCE_INTERVAL_MS,
    reannounceWindowMs: config.SYNC_REANNOUNCE_WINDOW_MS,
    pushDeltaMaxLength: config.SYNC_PUSH_DELTA_MAX_LENGTH,
  };
}
