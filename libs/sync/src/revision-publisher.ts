import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { Registry } from 'prom-client';
import { inSpan, markSpanError, MetricsRegistryToken, serverCounter, SpanKind } from '@cp/common';
import type { RevisionListener } from '@cp/db';
import { BundleCache, type CachedBundle } from './bundle-cache';
import { BundleDeltas } from './bundle-deltas';
import { OutboxRepository } from './outbox.repository';
import { SyncError, SyncErrorCode } from './sync.errors';
import { SYNC_OPTIONS, type SyncPublisherOptions } from './sync.options';

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
    private readonly deltas: BundleDeltas,
    @Inject(SYNC_OPTIONS) private readonly options: SyncPublisherOptions,
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
    let delta: string | null = null;
    try {
      const before = await this.bundles.heldStamp(agentId);
      const bundle = await this.bundles.ensure(agentId, revision);
      epoch = bundle?.epoch ?? '';
      // Only for the revision announced, newer than the one announced before (not a re-announce,
      // a late retry, or a bundle of a revision the registry moved on to meanwhile).
      if (bundle?.revision === revision && before && before.revision < revision && this.options.pushDeltaMaxLength > 0) {
        delta = await this.pushedDelta(before, bundle);
      }
    } catch (error) {
      // Nodes will compute it through the lock on their fetch; announcing matters more.
      this.logger.warn(`could not warm the bundle of ${agentId}@${revision}: ${(error as Error).message}`);
    }
    // With the epoch, a registry recreated from scratch replaces the old registry's stamp.
    const announced = await this.bundles.raise(agentId, revision, true, epoch, delta);
    await this.outbox.markPublished(agentId, revision);
    return announced;
  }

  /**
   * The delta from the revision announced before to this one, pushed to nodes with the
   * announcement (ADR 0199) so that a node serving that revision needs no request; null when there
   * is none or it is longer than `pushDeltaMaxLength` (those nodes fetch it, as before).
   */
  private async pushedDelta(before: { revision: number; epoch: string }, bundle: CachedBundle): Promise<string | null> {
    const computed = await this.deltas.fromRevision(before, bundle);
    const delta = computed !== null && computed.length <= this.options.pushDeltaMaxLength ? computed : null;
    if (this.metrics)
      serverCounter(this.metrics, 'pushedDeltas')
        .labels(delta === null ? 'none' : 'pushed')
        .inc();
    return delta;
  }
}
