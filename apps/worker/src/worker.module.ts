import { Module } from '@nestjs/common';
import {
  type RedisClient,
  AppConfigModule,
  ClockModule,
  HealthModule,
  LoggingModule,
  MetricsModule,
  RedisModule,
  RedisToken,
  redisProbe,
} from '@cp/common';
import { DbModule, PrismaService, postgresProbe } from '@cp/db';
import { SyncPublisherModule } from '@cp/sync';
import { RetirementWorkerModule } from './retirement/retirement-worker.module';
import { NoticesWorkerModule } from './notices/notices-worker.module';

@Module({
  imports: [
    AppConfigModule,
    LoggingModule,
    // /metrics on WORKER_METRICS_PORT (loopback by default).
    MetricsModule.forRoot({ app: 'worker', port: (config) => config.WORKER_METRICS_PORT }),
    DbModule,
    RedisModule,
    ClockModule,
    // Retirements bump revisions through RegistryWriter; this announces them to the nodes.
    SyncPublisherModule,
    RetirementWorkerModule,
    NoticesWorkerModule,
    HealthModule.forRoot({
      inject: [PrismaService, RedisToken],
      useFactory: (prisma: PrismaService, redis: RedisClient) => [postgresProbe(prisma), redisProbe(redis)],
    }),
  ],
})
export class WorkerModule {}
