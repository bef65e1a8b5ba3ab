export { loadConfig, configSchema, ConfigError, type AppConfig } from './config/config';
export { AppConfigModule } from './config/config.module';
export { AppConfigToken, InjectConfig, loadConfigOrExit } from './config/config.provider';
export { RedisModule, RedisToken, InjectRedis, createRedis } from './redis/redis.module';
export { LoggingModule, LogDestinationToken, RootLoggerToken } from './logging/logging.module';
export { recordPrincipal, principalOf, registerAccessLog, accessLogLine, type AccessLogSink } from './logging/access-log';
export { SECURITY_HEADERS } from './http/security-headers';
export { HealthModule } from './health/health.module';
export { redisProbe, type ReadinessProbe } from './health/readiness';
export { bootstrapFastifyApp } from './bootstrap';
export { createFastifyAdapter, requestIdFor } from './http/fastify-adapter';
export { Clock, SystemClock, ClockModule } from './clock';
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
