export { registerA2AServer } from './a2a-server';
export type { A2AServerOptions, A2AServer } from './a2a-server';
export { A2AService, ANONYMOUS_TENANT, DEFAULT_A2A_LIMITS } from './a2a-service';
export type { RequestContext, UsageSink, A2ALog, A2ALimits, ClarificationChoice, ClarificationSink } from './a2a-service';
export { A2AError, A2AErrorName, A2A_ERRORS } from './a2a-errors';
export { A2AAuthenticator } from './a2a-authenticator';
export type { Authenticated } from './a2a-authenticator';
export { HandlerRegistry } from './handler-registry';
export type {
  Handler,
  HandlerContext,
  HandlerResult,
  HandlerRegistration,
  HandlerOptions,
  LimitDeclaration,
  GenericLimits,
  TypedLimits,
  TaskUpdates,
} from './handler-registry';
export { ExecutionLimits, LimitExceededError, RedisBudgetStore } from './execution-limits';
export type { Admission, BudgetStore, ExecutionLimitsOptions, LimitedCall } from './execution-limits';
export { InMemoryTaskStore, ANONYMOUS_OWNER, ownerKey, DEFAULT_TASK_LIMITS } from './task-store';
export type { TaskStore, TaskRecord, TaskStoreLimits, TaskQuery, TaskPage } from './task-store';
export { RedisTaskStore } from './redis-task-store';
export { InMemoryTaskEvents, RedisTaskEvents } from './task-events';
export type { TaskEvents, TaskEvent, StreamEvent } from './task-events';
export type { TaskStream } from './task-stream';
export { AGENT_CARD_PATH, etagMatches, registerCardRoute } from './card-route';
export { registerCatalogRoute } from './catalog-route';
export type { CatalogRouteOptions } from './catalog-route';
export { checkVersion, SUPPORTED_VERSIONS } from './version';
export type { ServedBundle, ServedCard } from './served-bundle';
export type { WireTask, WireArtifact, TaskState, SendMessageParams } from './wire-types';
export { negotiateVersion, requestedVersion } from './version';
export type { ProtocolVersion } from './version';
export { A2A_DEFINED_REASONS, ERROR_DOMAIN, NODE_ERROR_DOMAIN, errorDomainOf } from './a2a-errors';
export { PushService } from './push/push-service';
export type { PushServiceDeps } from './push/push-service';
export { InMemoryPushConfigStore, RedisPushConfigStore, DEFAULT_PUSH_CONFIG_LIMITS, pushConfigInput } from './push/push-configs';
export type { PushConfig, PushConfigInput, PushConfigView, PushConfigStore, PushConfigLimits } from './push/push-configs';
export { BullPushDelivery, deliverOnce, RetryableDeliveryError, PUSH_QUEUE } from './push/push-delivery';
export type { PushDelivery, PushJob, DeliveryDeps, BullPushDeliveryOptions, DeliveryOutcome } from './push/push-delivery';
export { InMemoryPushBacklog, RedisPushBacklog, DEFAULT_PUSH_BACKLOG_LIMITS } from './push/push-backlog';
export type { PushBacklog, PushBacklogLimits, HoldResult } from './push/push-backlog';
export { notificationTask, NOTIFICATION_TASK_MAX_BYTES } from './push/push-bodies';
export { cardToV03 } from './v03/card';
export { V03_METHODS, OPERATIONS } from './http/operations';
export type { Operation, UnaryOperation, StreamOperation, RestRoute } from './http/operations';
export * as v03 from './v03/shapes';
export { executorHandler, nodeContextOf, NODE_CONTEXT_KEY } from './agent-executor';
export type { NodeContext } from './agent-executor';
// The node as a gateway to upstream A2A agents (issue 28, ADR 0230).
export { UpstreamGateway, type UpstreamGatewayDeps, type UpstreamLink } from './upstream/upstream-gateway';
// Servability and drift of upstreams (issue 28 item 6, ADR 0275).
export { UpstreamProbe, skillsOfCard, type UpstreamProbeOptions } from './upstream/upstream-probe';
