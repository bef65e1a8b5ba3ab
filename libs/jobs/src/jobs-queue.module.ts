import { Module } from '@nestjs/common';
import { BullModule } from '@nestjs/bullmq';
import { AppConfigToken, type AppConfig } from '@cp/common';
import { bullConnection, bullPrefix, NOTICES_QUEUE, RETIREMENT_QUEUE } from './queues';

/**
 * BullMQ's root configuration (connection + prefix from AppConfig), the retirement queue and the
 * deprecation-notices queue, for every app that enqueues or processes their jobs.
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
    BullModule.registerQueue({ name: RETIREMENT_QUEUE }, { name: NOTICES_QUEUE }),
  ],
  exports: [BullModule],
})
export class JobsQueueModule {}
