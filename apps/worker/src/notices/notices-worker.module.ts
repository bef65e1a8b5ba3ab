import { Module } from '@nestjs/common';
import { JobMetricsModule } from '../metrics';
import { JobsQueueModule, NoticesCoreModule } from '@cp/jobs';
import { NoticesProcessor } from './notices.processor';
import { NoticesScheduler } from './notices.scheduler';

@Module({
  imports: [JobsQueueModule, JobMetricsModule, NoticesCoreModule],
  providers: [NoticesProcessor, NoticesScheduler],
})
export class NoticesWorkerModule {}
