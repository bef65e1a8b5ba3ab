import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '../config/config';
import { AppConfigToken } from '../config/config.provider';
import type { RedisClient } from './redis-client';
import { closeRedis, connectRedis } from './redis-connection';

export const RedisToken = Symbol('REDIS');
export const InjectRedis = (): ParameterDecorator => Inject(RedisToken);

/** A connection of its own (a subscriber, a script): to the one Redis or the cluster, by configuration. */
export function createRedis(config: Pick<AppConfig, 'REDIS_URL' | 'REDIS_CLUSTER_NODES'>, name: string): RedisClient {
  return connectRedis(config, name);
}

class RedisCloser implements OnApplicationShutdown {
  constructor(@InjectRedis() private readonly redis: RedisClient) {}
  async onApplicationShutdown(): Promise<void> {
    await closeRedis(this.redis);
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
