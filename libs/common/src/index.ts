export { loadConfig, configSchema, ConfigError, JWKS_PATH, isLoopbackHost, type AppConfig } from './config/config';
export { AppConfigModule } from './config/config.module';
export { AppConfigToken, InjectConfig, loadConfigOrExit } from './config/config.provider';
export { RedisModule, RedisToken, InjectRedis, createRedis } from './redis/redis.module';
export { LoggingModule, LogDestinationToken, RootLoggerToken, logFormat } from './logging/logging.module';
export { recordPrincipal, recordTraceId, principalOf, registerAccessLog, accessLogLine, type AccessLogSink } from './logging/access-log';
export { type RedisClient } from './redis/redis-client';
export { closeRedis, connectRedis, isRedisCluster, redisAway, redisUrlOptions, clusterNodes } from './redis/redis-connection';
export { RedisLease } from './redis/redis-lease';
export { SECURITY_HEADERS } from './http/security-headers';
export { HealthModule } from './health/health.module';
export { redisProbe, type ReadinessProbe } from './health/readiness';
export { bootstrapFastifyApp } from './bootstrap';
export { answerOnArrival, createFastifyAdapter, requestIdFor, type ArrivalHandler } from './http/fastify-adapter';
export { Clock, SystemClock, ClockModule } from './clock';
export {
  MetricsModule,
  MetricsServer,
  MetricsRegistryToken,
  InjectMetrics,
  createMetricsRegistry,
  startMetricsServer,
  counterIn,
  gaugeIn,
  histogramIn,
  SECONDS_BUCKETS,
  type MetricDef,
} from './observability/metrics';
export { SERVER_METRICS, serverCounter, serverHistogram, serverGauge } from './observability/server-metrics';
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
