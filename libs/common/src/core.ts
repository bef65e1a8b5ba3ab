/**
 * `@cp/common/core`: the Nest-free part of libs/common (ADR 0222). The `@cp/common` barrel also
 * holds the Nest modules (config, Redis, logging, metrics, health, the Fastify bootstrap), and
 * loading it loads NestJS; code that runs without Nest (the node SDK's sync client, a team's
 * node) imports from here. Every file re-exported here imports no Nest at run time
 * (test/unit/sync-client-nest-free.spec.ts requires this entry in a fresh process and checks).
 * Not here: observability/metrics.ts (prom-client helpers beside MetricsModule), clock.ts.
 */
export { loadConfig, configSchema, ConfigError, JWKS_PATH, isLoopbackHost, type AppConfig } from './config/config';
export { type RedisClient } from './redis/redis-client';
export { closeRedis, connectRedis, isRedisCluster, redisAway, redisUrlOptions, clusterNodes } from './redis/redis-connection';
export { RedisLease } from './redis/redis-lease';
export { redisProbe, type ReadinessProbe } from './health/readiness';
export { recordPrincipal, recordTraceId, principalOf, registerAccessLog, accessLogLine, type AccessLogSink } from './logging/access-log';
export { SECURITY_HEADERS } from './http/security-headers';
export { answerOnArrival, type ArrivalHandler } from './http/arrival-routes';
export {
  tracingOn,
  tracingConfigured,
  startTracing,
  inSpan,
  openSpan,
  markSpanError,
  activeSpan,
  contextFromHeaders,
  contextFromTraceparent,
  injectTraceHeaders,
  currentTraceparent,
  currentTraceId,
  parseOtlpHeaders,
  SpanKind,
  type Span,
  type Context,
  type OpenSpan,
} from './observability/tracing';
export {
  parseWebhookUrl,
  resolveAndCheck,
  safeFetch,
  addressRange,
  invalidAllowEntries,
  WebhookError,
  WebhookErrorCode,
  type WebhookPolicy,
  type HostResolver,
  type ResolvedAddress,
  type WebhookUrlResult,
  type AddressCheckResult,
  type SafeFetchInit,
  type SafeFetchResponse,
} from './net/webhook-url';
