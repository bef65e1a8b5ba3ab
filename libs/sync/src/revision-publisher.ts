import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { Registry } from 'prom-client';
import { inSpan, markSpanError, MetricsRegistryToken, serverCounter, SpanKind } from '@cp/common';
import type { NodeBundle, RegistrySnapshot } from '@cp/capabilities';
import type { RevisionListener } from '@cp/db';
import { diffNodeBundles } from '@cp/node-protocol';
import { BundleCache, type BuiltBundle, type CachedBundle } from './bundle-cache';
import { BundleDeltas } from './bundle-deltas';
import { OutboxRepository } from './outbox.repository';
import { SyncError, SyncErrorCode } from './sync.errors';
import { SYNC_OPTIONS, type SyncPublisherOptions } from './sync.options';

/** A bundle built from a change's own snapshot before its COMMIT, with the delta to it (ADR 0365). */
export interface PreparedPublish {
  built: BuiltBundle;
  /**
   * The bundle Redis holds for the revision before (what the fleet serves) and the delta from it;
   * `push` false when the delta is longer than what is pushed: it is stored for the fetch the
   * announcement makes the fleet, not sent with it (ADR 0390).
   */
  base?: { revision: number; etag: string; delta: string; push: boolean };
}

/** Per agent, the bundle this process published last (the next change's delta base). */
const LAST_PUBLISHED_LIMIT = 64;

/**
 * Told by RegistryWriter after every commit. On the path of a change (ADR 0365): `prepare`, inside
 * the change's transaction, builds and signs the bundle from the snapshot read in it and computes
 * the delta from the bundle published before, while the COMMIT goes out; after the commit one Lua
 * call stores the bundle, raises the agent's revision key and PUBLISHes it; then the outbox row is
 * marked published. Without a prepared bundle (the outbox relay, the re-announcer, a prepare that
 * failed) `publish` warms the bundle from PostgreSQL first (so the nodes' refetch is a cache hit),
 * then raises and PUBLISHes in one Lua call. A failure leaves the row unpublished for OutboxRelay.
 */
@Injectable()
export class RevisionPublisher implements RevisionListener {
  private readonly logger = new Logger(RevisionPublisher.name);
  private readonly lastPublished = new Map<string, { revision: number; epoch: string; etag: string; bundle: NodeBundle }>();
  /** Exposed for tests and benchmarks: publishes from a prepared bundle, and from PostgreSQL. */
  readonly stats = { prepared: 0, fromDatabase: 0 };

  constructor(
    private readonly bundles: BundleCache,
    private readonly outbox: OutboxRepository,
    private readonly deltas: BundleDeltas,
    @Inject(SYNC_OPTIONS) private readonly options: SyncPublisherOptions,
    @Optional() @Inject(MetricsRegistryToken) private readonly metrics?: Registry,
  ) {}

  /** In a PRODUCER span: the announcement carries its traceparent to every node (ADR 0142). */
  async revisionCommitted(agentId: string, revision: number, prepared?: unknown): Promise<void> {
    // Awaited outside the span: it ran beside the COMMIT, and never rejects (prepare catches).
    const ready = prepared instanceof Promise ? ((await prepared) as PreparedPublish | undefined) : undefined;
    await inSpan(
      'sync.publish',
      { 'cp.agent.id': agentId, 'cp.revision': revision },
      async (span) => {
        try {
          if (ready && ready.built.entry.agentId === agentId && ready.built.entry.revision === revision) await this.publishPrepared(ready);
          else await this.publish(agentId, revision);
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

  /**
   * Inside the change's transaction (RevisionListener.prepare, ADR 0365): starts building and
   * signing the bundle of `snapshot` and the delta from the bundle served for the revision before,
   * and returns at once; nothing is stored or announced before the commit. Never rejects: a
   * failure resolves to undefined and the commit is published the ordinary way.
   */
  prepare(snapshot: RegistrySnapshot): Promise<PreparedPublish | undefined> {
    return this.build(snapshot).catch((error: Error) => {
      this.logger.warn(`could not prepare the bundle of ${snapshot.agentId}@${snapshot.revision}: ${error.message}`);
      return undefined;
    });
  }

  private async build(snapshot: RegistrySnapshot): Promise<PreparedPublish> {
    // Let the transaction's COMMIT go out first: the build is CPU on this thread (signing is not).
    await new Promise((resolve) => setImmediate(resolve));
    const base = this.baseOf(snapshot);
    const built = await this.bundles.buildSnapshot(snapshot);
    const before = await base;
    if (!before || this.options.pushDeltaMaxLength <= 0) return { built };
    const delta = JSON.stringify(diffNodeBundles(before.bundle, built.bundle));
    // As BundleDeltas: none when not smaller than the bundle.
    if (delta.length >= built.entry.body.length) {
      if (this.metrics) serverCounter(this.metrics, 'pushedDeltas').labels('none').inc();
      return { built };
    }
    // Longer than what is pushed: stored all the same, so the nodes' fetch does not compute it again (ADR 0390).
    return { built, base: { revision: before.revision, etag: before.etag, delta, push: delta.length <= this.options.pushDeltaMaxLength } };
  }

  /** The bundle of the revision before `snapshot`'s: the one this process published, else Redis's. */
  private async baseOf(snapshot: RegistrySnapshot): Promise<{ revision: number; etag: string; bundle: NodeBundle } | undefined> {
    const revision = snapshot.revision - 1;
    const epoch = snapshot.epoch ?? '';
    if (revision < 1) return undefined;
    const last = this.lastPublished.get(snapshot.agentId);
    if (last && last.revision === revision && last.epoch === epoch) return last;
    if (!this.bundles.connected()) return undefined;
    const stored = await this.bundles.stored(snapshot.agentId, revision, epoch);
    return stored ? { revision, etag: stored.etag, bundle: JSON.parse(stored.body) as NodeBundle } : undefined;
  }

  /** The prepared bundle stored, the revision raised and announced in one Redis call, the outbox row marked. */
  private async publishPrepared(ready: PreparedPublish): Promise<number> {
    const { entry, bundle } = ready.built;
    if (!this.bundles.connected())
      throw new SyncError(SyncErrorCode.RedisUnavailable, `Redis is not connected; ${entry.agentId}@${entry.revision} stays in the outbox`);
    const { announced, pushed, stored } = await this.bundles.publishBuilt(entry, ready.base);
    this.stats.prepared++;
    if (ready.base && this.metrics)
      serverCounter(this.metrics, 'pushedDeltas')
        .labels(pushed ? 'pushed' : 'none')
        .inc();
    this.lastPublished.delete(entry.agentId);
    if (stored) {
      this.lastPublished.set(entry.agentId, { revision: entry.revision, epoch: entry.epoch, etag: entry.etag, bundle });
      if (this.lastPublished.size > LAST_PUBLISHED_LIMIT) this.lastPublished.delete(this.lastPublished.keys().next().value!);
    }
    await this.outbox.markPublished(entry.agentId, entry.revision);
    return announced;
  }

  /** Returns the revision announced (the key's value: never lower than what it held). */
  async publish(agentId: string, revision: number): Promise<number> {
    this.stats.fromDatabase++;
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
