import { Module } from '@nestjs/common';
import { AppConfigModule, HealthModule, LoggingModule, RedisModule } from '@cp/common';
import { DbModule, PrismaService, postgresProbe } from '@cp/db';

@Module({
  imports: [
    AppConfigModule,
    LoggingModule,
    DbModule,
    RedisModule,
    HealthModule.forRoot({ inject: [PrismaService], useFactory: (prisma: PrismaService) => [postgresProbe(prisma)] }),
  ],
})
export class AppModule {}
