import { Module } from '@nestjs/common';
import { JobsQueueModule } from '../jobs-queue.module';
import { RetirementCoreModule } from '../retirement/retirement.module';
import { NoticeDeliveryService } from './notice-delivery.service';
import { NoticeScanService } from './notice-scan.service';
import { NoticesRepository } from './notices.repository';

/**
 * Deprecation notices (issue 21), shared by the worker (scan and delivery jobs) and the control
 * plane (dead-letter view, redelivery). Needs DbModule, AppConfigModule and ClockModule in the app.
 */
@Module({
  imports: [JobsQueueModule, RetirementCoreModule],
  providers: [NoticesRepository, NoticeScanService, NoticeDeliveryService],
  exports: [NoticesRepository, NoticeScanService, NoticeDeliveryService],
})
export class NoticesCoreModule {}
