import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { UsageRepository } from './usage.repository';
import { ManifestUsageResolver, UsageResolver } from './usage.resolver';
import { UsageService } from './usage.service';

@Module({
  imports: [AgentsModule],
  providers: [UsageRepository, UsageService, UsageResolver, ManifestUsageResolver],
  exports: [UsageService],
})
export class UsageModule {}
