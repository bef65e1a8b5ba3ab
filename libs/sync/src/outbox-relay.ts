import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { OutboxRepository } from './outbox.repository';
import { RevisionPublisher } from './revision-publisher';
import { SYNC_OPTIONS, type SyncPublisherOptions } from './sync.options';

/**
 * The safety nets on the publishing side: re-publishes outbox rows a failed publish left behind
 * (Redis down at commit time), and periodically re-announces every agent's current revision so a
 * message a node missed converges without waiting for its poll. Idempotent: several processes
 * may run it.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private timers: NodeJS.Timeout[] = [];
  private busy = false;

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly publisher: RevisionPublisher,
    @Inject(SYNC_OPTIONS) private readonly options: SyncPublisherOptions,
  ) {}

  onApplicationBootstrap(): void {
    if (this.options.outboxIntervalMs > 0) this.every(this.options.outboxIntervalMs, () => this.republishOutbox());
    if (this.options.reannounceIntervalMs > 0) this.every(this.options.reannounceIntervalMs, () => this.reannounce());
  }

  onApplicationShutdown(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
  }

  /** Publishes the latest unpublished revision of each agent; returns how many were published. */
  async republishOutbox(): Promise<number> {
    let published = 0;
    for (const { agentId, revision } of await this.outbox.unpublished(this.options.outboxGraceMs)) {
      await this.publisher.publish(agentId, revision);
      published++;
    }
    if (published > 0) this.logger.log(`re-published ${published} revision(s) from the outbox`);
    return published;
  }

  async reannounce(): Promise<number> {
    const agents = await this.outbox.currentRevisions();
    for (const { agentId, revision } of agents) await this.publisher.publish(agentId, revision);
    return agents.length;
  }

  private every(ms: number, work: () => Promise<unknown>): void {
    const timer = setInterval(() => {
      if (this.busy) return;
      this.busy = true;
      work()
        .catch((error: Error) => this.logger.warn(`sync relay: ${error.message}`))
        .finally(() => (this.busy = false));
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }
}
