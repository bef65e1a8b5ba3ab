import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectQueue } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { InjectConfig, type AppConfig } from '@cp/common';
import { RETIREMENT_JOB, RETIREMENT_QUEUE, RETIREMENT_SCHEDULER_ID, type RetirementJobData } from '@cp/jobs';

/**
 * Keeps exactly one repeatable retirement schedule (RETIREMENT_CRON, UTC). Upserting the job
 * scheduler by a fixed id is idempotent, so every worker may do it at boot and a changed cron
 * replaces the old one.
 */
@Injectable()
export class RetirementScheduler implements OnApplicationBootstrap {
  private readonly logger = new Logger(RetirementScheduler.name);

  constructor(
    @InjectQueue(RETIREMENT_QUEUE) private readonly queue: Queue<RetirementJobData>,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.RETIREMENT_SCHEDULE_ENABLED) {
      await this.queue.removeJobScheduler(RETIREMENT_SCHEDULER_ID);
      this.logger.log('retirement schedule disabled (RETIREMENT_SCHEDULE_ENABLED=false)');
      return;
    }
    await this.queue.upsertJobScheduler(
      RETIREMENT_SCHEDULER_ID,
      { pattern: this.config.RETIREMENT_CRON, tz: 'UTC' },
      { name: RETIREMENT_JOB, data: { trigger: 'schedule' }, opts: { attempts: 3, backoff: { type: 'exponential', delay: 60_000 } } },
    );
    this.logger.log(`retirement scheduled: "${this.config.RETIREMENT_CRON}" (UTC)`);
  }
}
