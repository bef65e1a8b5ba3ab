/**
 * @cp/node-protocol: the wire contract between the control plane and its agent nodes (paths, the
 * zod schema of every /node/v1 body, the node-id rule, the revision stamp, the sync Redis names).
 * Imports only zod and the pure core; both sides import it, neither imports the other.
 */
export { NODE_API_PREFIX, nodeApiPaths } from './paths';
export {
  syncKeys,
  revisionStamp,
  parseRevisionStamp,
  nodeBundleEtag,
  revisionAnnouncement,
  parseRevisionAnnouncement,
  changeMessage,
  parseChangeMessage,
  MAX_PUSHED_DELTA_LENGTH,
} from './sync-keys';
export { NODE_ID_PATTERN, nodeIdSchema } from './node-id';
export { reportedText } from './text';
export { registerNodeBodySchema, heartbeatBodySchema, ackBodySchema } from './sync-bodies';
export type { RegisterNodeBody, HeartbeatBody, AckBody } from './sync-bodies';
export {
  ANONYMOUS_TENANT,
  MAX_COUNT_PER_ENTRY,
  MAX_CALLS_PER_BATCH,
  MAX_ENTRIES_PER_BATCH,
  usageCountSchema,
  usageBatchSchema,
  CALL_OUTCOMES,
  LATENCY_BOUNDS_MS,
  LATENCY_BUCKETS,
  TIMED_OUTCOMES,
  outcomeTotal,
} from './usage-body';
export type { UsageBatchBody, UsageIngestResult, CallOutcome } from './usage-body';
export { tokenExchangeSchema } from './token-exchange-body';
export type { TokenExchangeBody, TokenExchangeResult } from './token-exchange-body';
export { MAX_CLARIFICATION_TEXT, MAX_CLARIFICATIONS_PER_REPORT, clarificationBatchSchema } from './clarification-body';
export type { ClarificationBatch } from './clarification-body';
export { SIGNATURE_ALG, keyGetter, pinnedJwks } from './signing/keys';
export type { SignatureKey, VerificationKeys } from './signing/keys';
export { cardPayloads, cardSigningPayload, jcs, sdkCompatiblePayload } from './signing/card-payload';
export { CardVerifyCode, cardSignatures, signCard, verifyCardSignature } from './signing/card-signature';
export type { AgentCardSignature, CardVerification } from './signing/card-signature';
export {
  BUNDLE_SIGNATURE_TYP,
  buildSignedNodeBundle,
  signNodeBundle,
  signProjection,
  verifyBundleSignature,
  verifyNodeBundle,
} from './signing/bundle-signature';
export type { BundleSignaturePayload, BundleVerification } from './signing/bundle-signature';
export { SIGNED_CARD_MEMO_CHARS, SignedCardMemo } from './signing/signed-card-memo';
export { MAX_CLASS_KEY_LENGTH, cardSignaturesBodySchema, cardSignaturesResultSchema } from './signing/card-signatures-body';
export type { CardSignaturesBody, CardSignaturesResult } from './signing/card-signatures-body';
export {
  BUNDLE_DELTA_BASE_HEADER,
  NODE_BUNDLE_DELTA_TYPE,
  NODE_BUNDLE_DELTA_FORMAT,
  parseBundleEtag,
  diffNodeBundles,
  applyNodeBundleDelta,
} from './bundle-delta';
export type { DeltaPatch, NodeBundleDelta, DeltaApplication } from './bundle-delta';
export {
  A2A_AGENT_CARD_MEDIA_TYPE,
  AI_CATALOG_MEDIA_TYPE,
  AI_CATALOG_PATH,
  AI_CATALOG_SPEC_VERSION,
  agentCardUrls,
  agentCatalogEntry,
  agentHost,
  agentUrn,
  agentsCatalog,
  fleetCatalog,
} from './catalog/ai-catalog';
export type {
  AgentLifecycle,
  AiCatalog,
  AiCatalogEntry,
  AiCatalogHost,
  AiCatalogPublisher,
  CatalogAgent,
  CapabilityLifecycle,
} from './catalog/ai-catalog';
export { MAX_CATALOG_DEPTH, checkAiCatalog } from './catalog/check-catalog';
export type { CatalogIssue } from './catalog/check-catalog';
export {
  CATALOG_SIGNATURE_KEY,
  CATALOG_SIGNATURE_TYP,
  catalogSignature,
  catalogSigningInput,
  signCatalog,
  verifyCatalogSignature,
  withCatalogSignature,
} from './signing/catalog-signature';
export { catalogIdentity, nodeCatalog } from './catalog/node-catalog';
export type { NodeCatalogParams } from './catalog/node-catalog';
export type { CatalogVerification } from './signing/catalog-signature';
