import { Module } from '@nestjs/common';
import { ClockModule } from '@cp/jobs';
import { AgentsModule } from '../agents/agents.module';
import { CapabilityHealthRepository } from './capability-health.repository';
import { CapabilityHealthResolver } from './capability-health.resolver';
import { CapabilityHealthService } from './capability-health.service';

/** Health per capability (issue 32): read side of what the usage batches carry (ADR 0310). */
@Module({
  imports: [AgentsModule, ClockModule],
  providers: [CapabilityHealthRepository, CapabilityHealthService, CapabilityHealthResolver],
})
export class CapabilityHealthModule {}
