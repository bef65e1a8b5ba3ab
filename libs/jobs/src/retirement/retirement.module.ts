import { Module } from '@nestjs/common';
import { RegistryModule } from '@cp/db';
import { RetirementPlanner } from './retirement-planner';
import { RetirementRepository } from './retirement.repository';
import { RetirementRunsRepository } from './retirement-runs.repository';
import { RetirementService } from './retirement.service';
import { UsageRetentionRepository } from '../retention/usage-retention.repository';
import { UsageRetentionService } from '../retention/usage-retention.service';

/**
 * The retirement use cases, shared by the worker (runs) and the control plane (preview, run
 * records, queueing). Needs DbModule, AppConfigModule and ClockModule (global) in the app.
 */
@Module({
  imports: [RegistryModule],
  providers: [
    RetirementRepository,
    RetirementRunsRepository,
    RetirementPlanner,
    RetirementService,
    UsageRetentionRepository,
    UsageRetentionService,
  ],
  exports: [RetirementService, RetirementPlanner, UsageRetentionService],
})
export class RetirementCoreModule {}
