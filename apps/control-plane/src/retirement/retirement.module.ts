import { Module } from '@nestjs/common';
import { ClockModule } from '@cp/common';
import { JobsQueueModule, RetirementCoreModule } from '@cp/jobs';
import { RetirementAdminService } from './retirement-admin.service';
import { RetirementResolver } from './retirement.resolver';

/** Retirement in the admin API: preview, run now (queued for the worker), run records. */
@Module({
  imports: [ClockModule, JobsQueueModule, RetirementCoreModule],
  providers: [RetirementAdminService, RetirementResolver],
})
export class RetirementModule {}
