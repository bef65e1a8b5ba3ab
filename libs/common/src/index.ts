/** @cp/common: the Nest-free core (./core, ADR 0222) and the Nest modules built on it. */
export * from './core';
export { AppConfigModule } from './config/config.module';
export { AppConfigToken, InjectConfig, loadConfigOrExit } from './config/config.provider';
export { RedisModule, RedisToken, InjectRedis, createRedis } from './redis/redis.module';
export { LoggingModule, LogDestinationToken, RootLoggerToken, logFormat } from './logging/logging.module';
export { HealthModule } from './health/health.module';
export { bootstrapFastifyApp } from './bootstrap';
export { Clock, SystemClock, ClockModule } from './clock';
export { createFastifyAdapter, requestIdFor } from './http/fastify-adapter';
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
