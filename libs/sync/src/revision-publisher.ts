import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { Registry } from 'prom-client';
import { inSpan, markSpanError, MetricsRegistryToken, serverCounter, SpanKind } from '@cp/common';
import type { RevisionListener } from '@cp/db';
import { BundleCache } from './bundle-cache';
import { OutboxRepository } from './outbox.repository';
import { SyncError, SyncErrorCode } from './sync.errors';

/**
 * Told by RegistryWriter after every commit. Warms the bundle first (so the nodes' refetch is a
 * cache hit), then raises the agent's revision key and PUBLISHes it in one Lua call, then marks the
 * outbox row published. A failure leaves the row unpublished for OutboxRelay to retry.
 */
@Injectable()
export class RevisionPublisher implements RevisionListener {
  private readonly logger = new Logger(RevisionPublisher.name);

  constructor(
    private readonly bundles: BundleCache,
    private readonly outbox: OutboxRepository,
    @Optional() @Inject(MetricsRegistryToken) private readonly metrics?: Registry,
  ) {}

  /** In a PRODUCER span: the announcement carries its traceparent to every node (ADR 0142). */
  async revisionCommitted(agentId: string, revision: number): Promise<void> {
    await inSpan(
      'sync.publish',
      { 'cp.agent.id': agentId, 'cp.revision': revision },
      async (span) => {
        try {
          await this.publish(agentId, revision);
          if (this.metrics) serverCounter(this.metrics, 'publishes').labels('published').inc();
        } catch (error) {
          if (this.metrics) serverCounter(this.metrics, 'publishes').labels('failed').inc();
          markSpanError(span, (error as { code?: string }).code ?? 'PUBLISH_FAILED');
          throw error;
        }
      },
      { kind: SpanKind.PRODUCER },
    );
  }

  /** Returns the revision announced (the key's value: never lower than what it held). */
  async publish(agentId: string, revision: number): Promise<number> {
    // Fail fast rather than hold the mutation's answer while ioredis retries: the outbox has it.
    if (!this.bundles.connected())
      throw new SyncError(SyncErrorCode.RedisUnavailable, `Redis is not connected; ${agentId}@${revision} stays in the outbox`);
    let epoch = '';
    try {
      epoch = (await this.bundles.ensure(agentId, revision))?.epoch ?? '';
    } catch (error) {
      // Nodes will compute it through the lock on their fetch; announcing matters more.
      this.logger.warn(`could not warm the bundle of ${agentId}@${revision}: ${(error as Error).message}`);
    }
    // With the epoch, a registry recreated from scratch replaces the old registry's stamp.
    const announced = await this.bundles.raise(agentId, revision, true, epoch);
    await this.outbox.markPublished(agentId, revision);
    return announced;
  }
}
