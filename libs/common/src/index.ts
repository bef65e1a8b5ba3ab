export { loadConfig, configSchema, ConfigError, type AppConfig } from './config/config';
export { AppConfigModule } from './config/config.module';
export { AppConfigToken, InjectConfig, loadConfigOrExit } from './config/config.provider';
export { RedisModule, RedisToken, InjectRedis, createRedis } from './redis/redis.module';
export { LoggingModule } from './logging/logging.module';
export { HealthModule } from './health/health.module';
export { redisProbe, type ReadinessProbe } from './health/readiness';
export { bootstrapFastifyApp } from './bootstrap';
export { createFastifyAdapter, requestIdFor } from './http/fastify-adapter';
