import { Inject, Logger, Optional } from '@nestjs/common';
import type { Registry } from 'prom-client';
import { MetricsRegistryToken, serverCounter, serverHistogram } from '@cp/common';
import { Processor, WorkerHost } from '@nestjs/bullmq';
import type { Job } from 'bullmq';
import { RETIREMENT_QUEUE, RetirementService, UsageRetentionService, type RetirementJobData, type RetirementRunRecord } from '@cp/jobs';

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
    @Optional() @Inject(MetricsRegistryToken) private readonly metrics?: Registry,
  ) {
    super();
  }

  /** Timed and counted (ADR 0140); a failed job is counted and rethrown for BullMQ's retry. */
  async process(
    job: Job<RetirementJobData>,
  ): Promise<{ runId: string; retired: number; skipped: number; errors: number } | { skipped: 'already-finished' }> {
    const started = performance.now();
    try {
      const { result, run } = await this.runJob(job);
      this.observe(run);
      return result;
    } catch (error) {
      if (this.metrics) {
        serverCounter(this.metrics, 'jobFailures').labels(RETIREMENT_QUEUE).inc();
        serverCounter(this.metrics, 'retirementRuns').labels('failed').inc();
      }
      throw error;
    } finally {
      if (this.metrics)
        serverHistogram(this.metrics, 'jobDuration')
          .labels(RETIREMENT_QUEUE)
          .observe((performance.now() - started) / 1000);
    }
  }

  private observe(run: RetirementRunRecord | null): void {
    if (!this.metrics || !run) return;
    serverCounter(this.metrics, 'retirementRuns')
      .labels(run.status === 'failed' ? 'failed' : 'completed')
      .inc();
    const decisions = serverCounter(this.metrics, 'retirementDecisions');
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
    if (!run) return { result: { skipped: 'already-finished' }, run: null };
    this.logger.log(
      `retirement run ${run.id} (${run.trigger}): ${run.retiredCount} retired, ${run.skippedCount} skipped, ${run.errors.length} errors`,
    );
    return { result: { runId: run.id, retired: run.retiredCount, skipped: run.skippedCount, errors: run.errors.length }, run };
  }
}
