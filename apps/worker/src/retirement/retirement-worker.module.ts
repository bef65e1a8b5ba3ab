import { Module } from '@nestjs/common';
import { JobsQueueModule, RetirementCoreModule } from '@cp/jobs';
import { RetirementProcessor } from './retirement.processor';
import { RetirementScheduler } from './retirement.scheduler';
import { QueueMetrics } from './queue-metrics';

@Module({
  imports: [JobsQueueModule, RetirementCoreModule],
  providers: [RetirementProcessor, RetirementScheduler, QueueMetrics],
})
export class RetirementWorkerModule {}
