import { Module } from '@nestjs/common';
import { BullModule } from '@nestjs/bullmq';
import { AppConfigToken, type AppConfig } from '@cp/common';
import { bullConnection, bullPrefix, RETIREMENT_QUEUE } from './queues';

/**
 * BullMQ's root configuration (connection + prefix from AppConfig) and the retirement queue,
 * for every app that enqueues or processes retirement runs.
 */
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [AppConfigToken],
      useFactory: (config: AppConfig) => ({
        connection: bullConnection(config),
        prefix: bullPrefix(config),
        defaultJobOptions: { removeOnComplete: 100, removeOnFail: 500 },
      }),
    }),
    BullModule.registerQueue({ name: RETIREMENT_QUEUE }),
  ],
  exports: [BullModule],
})
export class JobsQueueModule {}
