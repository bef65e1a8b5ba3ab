/** @cp/node-sdk: what an agent node needs to serve its agent's bundles without the control plane on the request path. */
// The sync client (./sync: Nest-free, ADR 0222).
export {
  ActiveBundle,
  DEFAULT_ACK_SPREAD_MS,
  NodeSync,
  nodeSyncHealthCheck,
  nodeSyncOptionsFromConfig,
  PinnedJwks,
  type LazyCardSigning,
  type PinnedJwksOptions,
  type NodeSyncOptions,
  type NodeSyncLogger,
  type NodeSyncStatus,
  type RegistrationStatus,
  type BundleSource,
  type RefreshOutcome,
  type AppliedListener,
} from './sync';
export {
  nodeApiPaths,
  nodeBundleEtag,
  syncKeys,
  revisionStamp,
  parseRevisionStamp,
  NODE_API_PREFIX,
  NODE_ID_PATTERN,
} from '@cp/node-protocol';
export type { AckBody, HeartbeatBody, RegisterNodeBody } from '@cp/node-protocol';
// Signature verification for calling agents and for tools built on the SDK (ADR 0130): a card
// fetched from another agent, a node bundle (the delta sync rebuilds one and checks it here).
export {
  verifyCardSignature,
  verifyNodeBundle,
  cardSigningPayload,
  pinnedJwks,
  CardVerifyCode,
  BUNDLE_SIGNATURE_TYP,
} from '@cp/node-protocol';
export type { CardVerification, BundleVerification, VerificationKeys, AgentCardSignature } from '@cp/node-protocol';
export type { NodeBundle, NodeBundleClass, NodeBundleCheck, SerializedProjection } from '@cp/capabilities';
export { checkNodeBundle } from '@cp/capabilities';
// The thin Nest wrapper (the classes above have no Nest dependency).
export { NodeSyncModule } from './nest/node-sync.module';
// The A2A server layer, usage reporting and the tool gateway (issue 6).
export * from './a2a';
export * from './usage';
export * from './tools';
export * from './routing';
export * from './observability';
