import { Module } from '@nestjs/common';
import { AppConfigModule, HealthModule, LoggingModule, RedisModule } from '@cp/common';
import { DbModule, PrismaService, postgresProbe } from '@cp/db';
import { ClockModule } from '@cp/jobs';
import { SyncPublisherModule } from '@cp/sync';
import { RetirementWorkerModule } from './retirement/retirement-worker.module';

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
    HealthModule.forRoot({ inject: [PrismaService], useFactory: (prisma: PrismaService) => [postgresProbe(prisma)] }),
  ],
})
export class WorkerModule {}
