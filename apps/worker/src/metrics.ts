import { Inject, Injectable, Module, Optional, type OnModuleInit } from '@nestjs/common';
import { InjectQueue } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import type { Registry } from 'prom-client';
import { MetricsRegistryToken, serverCounter, serverGauge, serverHistogram } from '@cp/common';
import { JobsQueueModule, NOTICES_QUEUE, RETIREMENT_QUEUE } from '@cp/jobs';

const STATES = ['waiting', 'delayed', 'active', 'failed'] as const;

/**
 * The worker's job metrics (ADR 0140): every processor runs its job through `time`, which
 * observes cp_job_duration_seconds{queue} and counts cp_job_failures_total{queue} (the error is
 * rethrown for BullMQ's retry); cp_queue_jobs{queue,state} is read from Redis at scrape time
 * (one call per queue), never kept in memory.
 */
@Injectable()
export class JobMetrics implements OnModuleInit {
  private readonly queues: readonly Queue[];

  constructor(
    @InjectQueue(RETIREMENT_QUEUE) retirement: Queue,
    @InjectQueue(NOTICES_QUEUE) notices: Queue,
    @Optional() @Inject(MetricsRegistryToken) readonly registry?: Registry,
  ) {
    this.queues = [retirement, notices];
  }

  onModuleInit(): void {
    if (!this.registry) return;
    const queues = this.queues;
    // Every queue's series exist from the start at 0, so rate() and alerts see them before a first job.
    for (const queue of queues) {
      serverHistogram(this.registry, 'jobDuration').zero({ queue: queue.name });
      serverCounter(this.registry, 'jobFailures').labels(queue.name).inc(0);
    }
    serverGauge(this.registry, 'queueDepth', async function () {
      await Promise.all(
        queues.map(async (queue) => {
          try {
            const counts = await queue.getJobCounts(...STATES);
            for (const state of STATES) this.labels(queue.name, state).set(counts[state] ?? 0);
          } catch {
            // Redis away: no stale figure rather than a wrong one.
            for (const state of STATES) this.remove(queue.name, state);
          }
        }),
      );
    });
  }

  /** Runs one job of `queue`, timed; a failure is counted and rethrown. */
  async time<T>(queue: string, job: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await job();
    } catch (error) {
      if (this.registry) serverCounter(this.registry, 'jobFailures').labels(queue).inc();
      throw error;
    } finally {
      if (this.registry)
        serverHistogram(this.registry, 'jobDuration')
          .labels(queue)
          .observe((performance.now() - started) / 1000);
    }
  }
}

@Module({ imports: [JobsQueueModule], providers: [JobMetrics], exports: [JobMetrics] })
export class JobMetricsModule {}
