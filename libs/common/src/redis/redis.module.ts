import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import type { AppConfig } from '../config/config';
import { AppConfigToken } from '../config/config.provider';

export const RedisToken = Symbol('REDIS');
export const InjectRedis = (): ParameterDecorator => Inject(RedisToken);

export function createRedis(config: Pick<AppConfig, 'REDIS_URL'>, name: string): Redis {
  return new Redis(config.REDIS_URL, {
    connectionName: name,
    // Commands fail fast while disconnected instead of queueing forever; callers decide.
    maxRetriesPerRequest: 2,
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 2000),
    lazyConnect: false,
  });
}

class RedisCloser implements OnApplicationShutdown {
  constructor(@InjectRedis() private readonly redis: Redis) {}
  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/** One shared command connection per process (subscribers and BullMQ open their own). */
@Global()
@Module({
  providers: [
    { provide: RedisToken, inject: [AppConfigToken], useFactory: (config: AppConfig) => createRedis(config, 'cp-commands') },
    RedisCloser,
  ],
  exports: [RedisToken],
})
export class RedisModule {}
