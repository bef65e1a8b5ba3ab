import { Module } from '@nestjs/common';
import { JobMetricsModule } from '../metrics';
import { JobsQueueModule, RetirementCoreModule } from '@cp/jobs';
import { RetirementProcessor } from './retirement.processor';
import { RetirementScheduler } from './retirement.scheduler';

@Module({
  imports: [JobsQueueModule, JobMetricsModule, RetirementCoreModule],
  providers: [RetirementProcessor, RetirementScheduler],
})
export class RetirementWorkerModule {}
