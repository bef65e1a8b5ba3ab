/** @cp/capabilities: the pure capability core (no Nest, Prisma, Redis or HTTP). */
export * from './types';
export type { EveryField, SameKeys, AssertTrue } from './every-field';
export type { AgentCard, AgentSkill, AgentCapabilities } from './card-types';
export { validateManifest, validateManifests } from './validate-manifest';
export { sunsetAt as sunsetAtSchema, skillBlockSchema, SKILL_FIELDS } from './manifest-schema';
export type { ManifestValidation, ManifestsValidation } from './validate-manifest';
export { toManifestDocument, fromManifestDocument } from './manifest-document';
export type { ManifestDocument } from './manifest-document';
export { entitlement, isEntitled, canBeExtendedOnly } from './entitlement';
export type { EntitlementDecision, EntitlementRule, EntitlementSubject, EntitlementContext } from './entitlement';
export { buildPublicCard, buildExtendedCard, declaresExtendedCard } from './cards';
export { manifestsForCaller } from './select';
export { buildRouterIndex, findTombstone } from './router-index';
export type { RouterIndex, RouterEntry, Tombstone } from './router-index';
export { buildExecutionPolicy, policyEntriesForHandler } from './execution-policy';
export type { ExecutionPolicy, PolicyEntry, PolicyDeprecation } from './execution-policy';
export { canonicalJson } from './canonical-json';
export { cardVersion, skillsHash, serializeCard, serializeCardWithSignatures } from './card-version';
export type { SerializedCard } from './card-version';
export { checkAgentCard } from './card-schema';
export { entitlementClassKey, enumerateEntitlementClasses, EntitlementClassIndex, ANONYMOUS_CLASS } from './entitlement-classes';
export type { EntitlementClass } from './entitlement-classes';
export { ProjectionCache } from './projection-cache';
export type { ProjectionCacheStats } from './projection-cache';
export { diffCards, hasBreakingChange } from './diff-cards';
export type { CardChange, CardChangeKind } from './diff-cards';
export { addedLeaks, findLeaks, MIN_LEAK_TEXT, publicCardLeaksAdded } from './find-leaks';
export type { Leak } from './find-leaks';
export { checkManifestChange, wasRemovedFromPreview, sunsetIssues } from './lifecycle';
export { deprecationFor, deprecationHeaders, deprecationNotice, structuredDate } from './deprecation';
export type { DeprecationAnnouncement, DeprecationLinks } from './deprecation';
export { planImpact, affectsTenant } from './plan-impact';
export type { ImpactChange, ImpactKind, ImpactAudience } from './plan-impact';
export { planApply } from './plan-apply';
export type { ApplyPlan, ManifestChange } from './plan-apply';
export { changedFields, fieldValue } from './manifest-diff';
export { financeAgentExample } from './fixtures/finance-agent';
export type { FinanceAgentExample } from './fixtures/finance-agent';
export { GATEWAY_DEMO_AGENT_ID, gatewayDemoExample } from './fixtures/gateway-demo';
export type { GatewayDemoOptions } from './fixtures/gateway-demo';
export {
  buildNodeBundle,
  nodeBundleContent,
  finishNodeBundle,
  checkNodeBundle,
  bundleContentHash,
  nodeBundleContentHash,
  derivedNodeBundleContentHash,
  sealNodeBundle,
  representativeCaller,
  NODE_BUNDLE_FORMAT,
  DEFAULT_BUNDLE_CLASS_LIMIT,
} from './node-bundle';
export type {
  NodeBundle,
  NodeBundleCatalog,
  NodeBundleClass,
  NodeBundleCheck,
  NodeBundleContent,
  NodeBundleOptions,
  SerializedProjection,
} from './node-bundle';
export * from './routing';
export * from './extensions';
export * from './retirement';
export { downscopedScopes } from './downscope';
export {
  GENERIC_LIMITS,
  LIVE_NODE_WINDOW_MS,
  isLiveNode,
  liveNodeCutoff,
  LIMIT_TYPES,
  MAX_INVENTORY_HANDLERS,
  handlerInventorySchema,
  declaredLimits,
  limitIssues,
  reachesCard,
  typedLimits,
  unservedCapabilities,
  unservedMessage,
} from './servability';
export type { GenericLimitKey, GenericLimits, HandlerDeclaration, LimitType, NodeInventory, UnservedCapability } from './servability';
export { batchIdRetentionCutoff, isPastBatchIdRetention } from './usage/batch-retention';
export { latencyQuantile } from './usage/latency-quantile';
export { dueNotices, NoticeEvent, REMOVAL_IMMINENT_MS } from './deprecation-notices';
export type { DueNotice, NoticePayload, NoticeSubject } from './deprecation-notices';
export { protocolVersionsSchema } from './protocol-versions';
export {
  webhookAllowSchema,
  webhookAllowEntryProblem,
  webhookAllowProblems,
  usableWebhookAllow,
  allowEntryCovers,
  widenedAllowEntries,
  METADATA_ADDRESSES,
} from './webhook-allow';
export * from './upstream';
export * from './upstream-servability';
export { CAPABILITY_ID, CAPABILITY_ID_MAX, MEDIA_TYPE } from './formats';
