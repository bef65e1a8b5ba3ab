import { Logger } from '@nestjs/common';
import { serverCounter } from '@cp/common';
import { Processor, WorkerHost } from '@nestjs/bullmq';
import type { Job } from 'bullmq';
import { RETIREMENT_QUEUE, RetirementService, UsageRetentionService, type RetirementJobData, type RetirementRunRecord } from '@cp/jobs';
import { JobMetrics } from '../metrics';

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
    private readonly jobs: JobMetrics,
  ) {
    super();
  }

  /** Timed and counted (ADR 0140); a failed job is counted and rethrown for BullMQ's retry. */
  async process(
    job: Job<RetirementJobData>,
  ): Promise<{ runId: string; retired: number; skipped: number; errors: number } | { skipped: 'already-finished' }> {
    try {
      const { result, run } = await this.jobs.time(RETIREMENT_QUEUE, () => this.runJob(job));
      this.observe(run);
      return result;
    } catch (error) {
      if (this.jobs.registry) serverCounter(this.jobs.registry, 'retirementRuns').labels('failed').inc();
      throw error;
    }
  }

  private observe(run: RetirementRunRecord | null): void {
    const registry = this.jobs.registry;
    if (!registry || !run) return;
    serverCounter(registry, 'retirementRuns')
      .labels(run.status === 'failed' ? 'failed' : 'completed')
      .inc();
    const decisions = serverCounter(registry, 'retirementDecisions');
    if (run.retiredCount > 0) decisions.labels('retired', 'unused').inc(run.retiredCount);
    // The first reason of each recorded skip (codes of the core's rule: a bounded set).
    for (const skip of run.skipped) decisions.labels('kept', skip.reasons[0]?.code ?? 'unknown').inc();
    if (run.skippedCount > run.skipped.length) decisions.labels('kept', 'unrecorded').inc(run.skippedCount - run.skipped.length);
  }

  private async runJob(job: Job<RetirementJobData>): Promise<{
    result: { runId: string; retired: number; skipped: number; errors: number } | { skipped: 'already-finished' };
    run: RetirementRunRecord | null;
  }> {
    const run = await this.retirement.run({ trigger: job.data.trigger, runId: job.data.runId, requestedBy: job.data.requestedBy ?? null });
    const pruned = await this.retention.prune();
    if (pruned > 0) this.logger.log(`pruned ${pruned} usage batch id(s) past the retention window`);
    const healthPruned = await this.retention.pruneHealth();
    if (healthPruned > 0) this.logger.log(`pruned ${healthPruned} hourly health row(s) past HEALTH_RETENTION_DAYS`);
    if (!run) return { result: { skipped: 'already-finished' }, run: null };
    this.logger.log(
      `retirement run ${run.id} (${run.trigger}): ${run.retiredCount} retired, ${run.skippedCount} skipped, ${run.errors.length} errors`,
    );
    return { result: { runId: run.id, retired: run.retiredCount, skipped: run.skippedCount, errors: run.errors.length }, run };
  }
}
