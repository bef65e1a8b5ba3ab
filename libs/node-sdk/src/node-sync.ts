/** The sync client's facade, where apps and test support have always imported it from (the classes are in ./sync). */
export { NodeSync } from './sync/node-sync';
export type {
  AppliedListener,
  BundleSource,
  FetchCounts,
  NodeSyncLogger,
  NodeSyncOptions,
  NodeSyncStatus,
  RefreshOutcome,
  RegistrationStatus,
} from './sync/node-sync-types';
