export { registerA2AServer } from './a2a-server';
export type { A2AServerOptions, A2AServer } from './a2a-server';
export { A2AService, ANONYMOUS_TENANT } from './a2a-service';
export type { RequestContext, UsageSink, A2ALog } from './a2a-service';
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
} from './handler-registry';
export { ExecutionLimits, LimitExceededError, RedisBudgetStore } from './execution-limits';
export type { BudgetStore, ExecutionLimitsOptions, LimitedCall } from './execution-limits';
export { InMemoryTaskStore } from './task-store';
export { AGENT_CARD_PATH, etagMatches, registerCardRoute } from './card-route';
export { checkVersion, SUPPORTED_VERSIONS } from './version';
export type { ServedBundle, ServedCard } from './served-bundle';
export type { WireTask, WireArtifact, TaskState, SendMessageParams } from './wire-types';
