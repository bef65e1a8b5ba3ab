import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectQueue } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { InjectConfig, type AppConfig } from '@cp/common';
import { NOTICE_SCAN_JOB, NOTICE_SCHEDULER_ID, NOTICES_QUEUE, type NoticeJobData } from '@cp/jobs';

/** Keeps one repeatable notice scan (DEPRECATION_NOTICE_CRON, UTC), like the retirement schedule. */
@Injectable()
export class NoticesScheduler implements OnApplicationBootstrap {
  private readonly logger = new Logger(NoticesScheduler.name);

  constructor(
    @InjectQueue(NOTICES_QUEUE) private readonly queue: Queue<NoticeJobData>,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.DEPRECATION_NOTICE_SCHEDULE_ENABLED) {
      await this.queue.removeJobScheduler(NOTICE_SCHEDULER_ID);
      return;
    }
    await this.queue.upsertJobScheduler(
      NOTICE_SCHEDULER_ID,
      { pattern: this.config.DEPRECATION_NOTICE_CRON, tz: 'UTC' },
      { name: NOTICE_SCAN_JOB, data: { kind: 'scan' }, opts: { attempts: 3, backoff: { type: 'exponential', delay: 10_000 } } },
    );
    this.logger.log(`deprecation notice scan scheduled: "${this.config.DEPRECATION_NOTICE_CRON}" (UTC)`);
  }
}
