import { Logger } from '@nestjs/common';
import { Processor, WorkerHost } from '@nestjs/bullmq';
import type { Job } from 'bullmq';
import { RETIREMENT_QUEUE, RetirementService, UsageRetentionService, type RetirementJobData } from '@cp/jobs';

/**
 * Thin: one job = one retirement run, delegated to the service. Idempotent: a redelivered
 * manual job whose run already finished does nothing, and the run itself retires each
 * capability at most once however often it runs (compare-and-set on the state). The same daily
 * job then prunes usage-batch ids no retry can match any more (idempotent too).
 */
@Processor(RETIREMENT_QUEUE)
export class RetirementProcessor extends WorkerHost {
  private readonly logger = new Logger(RetirementProcessor.name);

  constructor(
    private readonly retirement: RetirementService,
    private readonly retention: UsageRetentionService,
  ) {
    super();
  }

  async process(
    job: Job<RetirementJobData>,
  ): Promise<{ runId: string; retired: number; skipped: number; errors: number } | { skipped: 'already-finished' }> {
    const run = await this.retirement.run({ trigger: job.data.trigger, runId: job.data.runId, requestedBy: job.data.requestedBy ?? null });
    const pruned = await this.retention.prune();
    if (pruned > 0) this.logger.log(`pruned ${pruned} usage batch id(s) past the retention window`);
    if (!run) return { skipped: 'already-finished' };
    this.logger.log(
      `retirement run ${run.id} (${run.trigger}): ${run.retiredCount} retired, ${run.skippedCount} skipped, ${run.errors.length} errors`,
    );
    return { runId: run.id, retired: run.retiredCount, skipped: run.skippedCount, errors: run.errors.length };
  }
}
