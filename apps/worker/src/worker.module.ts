import { Module } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { AppConfigModule, ClockModule, HealthModule, LoggingModule, RedisModule, RedisToken, redisProbe } from '@cp/common';
import { DbModule, PrismaService, postgresProbe } from '@cp/db';
import { SyncPublisherModule } from '@cp/sync';
import { RetirementWorkerModule } from './retirement/retirement-worker.module';
import { NoticesWorkerModule } from './notices/notices-worker.module';

@Module({
  imports: [
    AppConfigModule,
    LoggingModule,
    DbModule,
    RedisModule,
    ClockModule,
    // Retirements bump revisions through RegistryWriter; this announces them to the nodes.
    SyncPublisherModule,
    RetirementWorkerModule,
    NoticesWorkerModule,
    HealthModule.forRoot({
      inject: [PrismaService, RedisToken],
      useFactory: (prisma: PrismaService, redis: Redis) => [postgresProbe(prisma), redisProbe(redis)],
    }),
  ],
})
export class WorkerModule {}
