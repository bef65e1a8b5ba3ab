// The repo's declarations of two untyped dependencies of the routing core: the type bundler
// compiles from this entry alone, not from tsconfig.json's `include`.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- a declaration file, not a module: nothing to import
/// <reference path="../../../libs/capabilities/src/routing/vendor-modules.d.ts" />
/**
 * `@cp-sdk/node-sync`: the sync client of an agent node (ADR 0224). Bundled by
 * tools/build-packages.cjs from libs/node-sdk's sources, which stay where they are; loads no NestJS
 * (ADR 0222, test/unit/sync-client-nest-free.spec.ts). The Nest integration is `./nest`.
 */
export {
  ActiveBundle,
  NodeSync,
  nodeSyncHealthCheck,
  nodeSyncOptionsFromConfig,
  PinnedJwks,
  type AppliedListener,
  type BundleSource,
  type FetchCounts,
  type LazyCardSigning,
  type NodeSyncLogger,
  type NodeSyncOptions,
  type NodeSyncStatus,
  type PinnedJwksOptions,
  type RefreshOutcome,
  type RegistrationStatus,
} from '../../../libs/node-sdk/src/sync';
// The node API's contract and signature verification (ADR 0130): for a node's own checks and for
// tools that fetch another agent's card.
export {
  BUNDLE_SIGNATURE_TYP,
  CardVerifyCode,
  NODE_API_PREFIX,
  NODE_ID_PATTERN,
  cardSigningPayload,
  nodeApiPaths,
  pinnedJwks,
  verifyCardSignature,
  verifyNodeBundle,
  type AgentCardSignature,
  type BundleVerification,
  type CardVerification,
  type VerificationKeys,
} from '@cp/node-protocol';
export type { HandlerDeclaration, NodeBundle } from '@cp/capabilities';
