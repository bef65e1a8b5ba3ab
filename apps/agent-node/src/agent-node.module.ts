import { Module } from '@nestjs/common';
import { AppConfigModule, HealthModule, LoggingModule, RedisModule } from '@cp/common';

/** Agent nodes never talk to PostgreSQL: they serve what they synced from the control plane. */
@Module({
  imports: [AppConfigModule, LoggingModule, RedisModule, HealthModule.forRoot({ useFactory: () => [] })],
})
export class AgentNodeModule {}
