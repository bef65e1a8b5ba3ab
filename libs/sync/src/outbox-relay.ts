import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InjectConfig, InjectRedis, RedisLease, type AppConfig, type RedisClient } from '@cp/common';
import { OutboxRepository } from './outbox.repository';
import { RevisionPublisher } from './revision-publisher';
import { SYNC_OPTIONS, type SyncPublisherOptions } from './sync.options';

/**
 * The safety nets on the publishing side: re-publishes outbox rows a failed publish left behind
 * (Redis down at commit time), and periodically re-announces the revisions of the agents that
 * changed recently, so a message a node missed converges without waiting for its poll.
 *
 * Once per fleet, not once per process (ADR 0150): every control-plane and worker process runs
 * the timers, but a tick does its work only in the process that holds the relay lease in Redis;
 * the others skip it. A holder that dies stops renewing and another process takes over within
 * the lease's lifetime. The work itself stays idempotent, so a lease lost mid-tick (a pause past
 * its lifetime) costs a duplicate announcement, never a wrong one.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private timers: NodeJS.Timeout[] = [];
  private busy = false;
  readonly lease: RedisLease;
  /** What this process did (tests and metrics): ticks it led, ticks it left to the holder, announcements. */
  readonly stats = { led: 0, skipped: 0, republished: 0, reannounced: 0 };

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly publisher: RevisionPublisher,
    @Inject(SYNC_OPTIONS) private readonly options: SyncPublisherOptions,
    @InjectRedis() redis: RedisClient,
    @InjectConfig() config: AppConfig,
  ) {
    const intervals = [options.outboxIntervalMs, options.reannounceIntervalMs].filter((ms) => ms > 0);
    // Renewed on every tick of the most frequent timer: three missed ticks and it passes on.
    const ttl = intervals.length > 0 ? 3 * Math.min(...intervals) : 15_000;
    this.lease = new RedisLease(redis, relayLeaseKey(config.REDIS_KEY_PREFIX), ttl);
  }

  onApplicationBootstrap(): void {
    if (this.options.outboxIntervalMs > 0) this.every(this.options.outboxIntervalMs, () => this.republishOutbox());
    if (this.options.reannounceIntervalMs > 0) this.every(this.options.reannounceIntervalMs, () => this.reannounce());
  }

  async onApplicationShutdown(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await this.lease.release().catch(() => undefined);
  }

  /** Publishes the latest unpublished revision of each agent; returns how many were published. */
  async republishOutbox(): Promise<number> {
    let published = 0;
    for (const { agentId, revision } of await this.outbox.unpublished(this.options.outboxGraceMs)) {
      await this.publisher.publish(agentId, revision);
      published++;
    }
    this.stats.republished += published;
    if (published > 0) this.logger.log(`re-published ${published} revision(s) from the outbox`);
    return published;
  }

  /**
   * Announces again the current revision of every agent that changed within
   * `reannounceWindowMs`: the work is proportional to what changed, not to the registry. An agent
   * that has not changed for longer has been announced that many times already, and its nodes'
   * polling covers the rest.
   */
  async reannounce(): Promise<number> {
    const agents = await this.outbox.changedSince(new Date(Date.now() - this.options.reannounceWindowMs));
    for (const { agentId, revision } of agents) await this.publisher.publish(agentId, revision);
    this.stats.reannounced += agents.length;
    return agents.length;
  }

  /** One tick of periodic work, done only by the lease holder. Returns whether this process did it. */
  async tick(work: () => Promise<unknown>): Promise<boolean> {
    if (!(await this.lease.hold())) {
      this.stats.skipped++;
      return false;
    }
    this.stats.led++;
    await work();
    return true;
  }

  private every(ms: number, work: () => Promise<unknown>): void {
    const timer = setInterval(() => {
      if (this.busy) return;
      this.busy = true;
      this.tick(work)
        .catch((error: Error) => this.logger.warn(`sync relay: ${error.message}`))
        .finally(() => (this.busy = false));
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }
}

/** The relay's lease: one per deployment (REDIS_KEY_PREFIX). */
export const relayLeaseKey = (prefix: string) => `${prefix}sync:relay-lease`;
