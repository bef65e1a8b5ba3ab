import { Inject, Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import { InjectQueue } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import type { Registry } from 'prom-client';
import { MetricsRegistryToken, serverGauge } from '@cp/common';
import { RETIREMENT_QUEUE } from '@cp/jobs';

const STATES = ['waiting', 'delayed', 'active', 'failed'] as const;

/** cp_queue_jobs{queue,state}: read from Redis at scrape time (one call), not kept in memory. */
@Injectable()
export class QueueMetrics implements OnModuleInit {
  constructor(
    @InjectQueue(RETIREMENT_QUEUE) private readonly queue: Queue,
    @Optional() @Inject(MetricsRegistryToken) private readonly metrics?: Registry,
  ) {}

  onModuleInit(): void {
    if (!this.metrics) return;
    const queue = this.queue;
    serverGauge(this.metrics, 'queueDepth', async function () {
      try {
        const counts = await queue.getJobCounts(...STATES);
        for (const state of STATES) this.labels(RETIREMENT_QUEUE, state).set(counts[state] ?? 0);
      } catch {
        // Redis away: no stale figure rather than a wrong one.
        this.reset();
      }
    });
  }
}
