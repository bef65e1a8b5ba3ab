import { Logger } from '@nestjs/common';
import { Processor, WorkerHost } from '@nestjs/bullmq';
import type { Job } from 'bullmq';
import { serverCounter } from '@cp/common';
import { NOTICES_QUEUE, NoticeDeliveryService, NoticeScanService, type NoticeJobData } from '@cp/jobs';
import { JobMetrics } from '../metrics';

/**
 * Thin: a scan job finds due notices, a deliver job sends one. Delivery retries are BullMQ's
 * (attempts + exponential backoff set when the job was enqueued); the last failed attempt
 * dead-letters the notice. Both are idempotent (see NoticeScanService, NoticeDeliveryService).
 */
@Processor(NOTICES_QUEUE)
export class NoticesProcessor extends WorkerHost {
  private readonly logger = new Logger(NoticesProcessor.name);

  constructor(
    private readonly scans: NoticeScanService,
    private readonly deliveries: NoticeDeliveryService,
    private readonly jobs: JobMetrics,
  ) {
    super();
  }

  /** Timed and counted (ADR 0140); deliveries by outcome, a failed attempt (retried by BullMQ) as `failed`. */
  process(job: Job<NoticeJobData>): Promise<unknown> {
    return this.jobs.time(NOTICES_QUEUE, () => this.run(job));
  }

  private async run(job: Job<NoticeJobData>): Promise<unknown> {
    if (job.data.kind === 'scan') return this.scans.scan();
    const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const outcome = await this.deliveries.deliver(job.data.noticeId, final).catch((error: unknown) => {
      this.countDelivery('failed');
      throw error;
    });
    this.countDelivery(outcome);
    if (outcome === 'dead') this.logger.warn(`deprecation notice ${job.data.noticeId} dead-lettered`);
    return { outcome };
  }

  private countDelivery(outcome: string): void {
    if (this.jobs.registry) serverCounter(this.jobs.registry, 'noticeDeliveries').labels(outcome).inc();
  }
}
