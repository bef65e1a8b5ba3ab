/**
 * The sync client's entry (issue 29): NodeSync and what builds and watches it, without the A2A
 * server or Nest. Loads no NestJS (test/unit/sync-client-nest-free.spec.ts); the Nest wrapper is
 * nest/node-sync.module.ts.
 */
export * from './node-sync';
export { nodeSyncHealthCheck } from './node-sync-health';
export { nodeSyncOptionsFromConfig } from './node-sync-config';
export { PinnedJwks, type PinnedJwksOptions } from './pinned-jwks';
export { ActiveBundle, type LazyCardSigning } from '../active-bundle';
export { DEFAULT_ACK_SPREAD_MS } from './bundle-applier';
