import { Module } from '@nestjs/common';
import { ClockModule } from '@cp/common';
import { AuditWriterModule } from '@cp/db';
import { NoticesCoreModule } from '@cp/jobs';
import { NotificationEndpointsRepository } from './notification-endpoints.repository';
import { NotificationsResolver } from './notifications.resolver';
import { NotificationsService } from './notifications.service';

/** Deprecation notices in the admin API (issue 21): endpoints, the notices and their dead letters. */
@Module({
  imports: [ClockModule, AuditWriterModule, NoticesCoreModule],
  providers: [NotificationEndpointsRepository, NotificationsService, NotificationsResolver],
})
export class NotificationsModule {}
