import { Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { BullModule } from '@nestjs/bullmq';
import { AppConfigToken, closeRedis, type AppConfig, type RedisClient } from '@cp/common';
import { bullConnectionFor, bullPrefix, NOTICES_QUEUE, RETIREMENT_QUEUE } from './queues';

/** BullMQ never closes a connection instance it was given (cluster mode): this does, at shutdown. */
@Injectable()
export class BullClusterConnections implements OnApplicationShutdown {
  private readonly opened: RedisClient[] = [];

  connectionFor(config: AppConfig) {
    const connection = bullConnectionFor(config, 'bullmq');
    if ('status' in connection) this.opened.push(connection);
    return connection;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.opened.map(closeRedis));
  }
}

@Module({ providers: [BullClusterConnections], exports: [BullClusterConnections] })
class BullConnectionsModule {}

/**
 * BullMQ's root configuration (connection + prefix from AppConfig), the retirement queue and the
 * deprecation-notices queue, for every app that enqueues or processes their jobs.
 */
@Module({
  imports: [
    BullModule.forRootAsync({
      imports: [BullConnectionsModule],
      inject: [AppConfigToken, BullClusterConnections],
      useFactory: (config: AppConfig, connections: BullClusterConnections) => ({
        connection: connections.connectionFor(config),
        prefix: bullPrefix(config),
        defaultJobOptions: { removeOnComplete: 100, removeOnFail: 500 },
      }),
    }),
    BullModule.registerQueue({ name: RETIREMENT_QUEUE }, { name: NOTICES_QUEUE }),
  ],
  exports: [BullModule],
})
export class JobsQueueModule {}
