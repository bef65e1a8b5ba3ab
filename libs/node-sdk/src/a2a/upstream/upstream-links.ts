/**
 * Node task → upstream task (ADR 0230), kept while the upstream task can still be continued
 * (input-required) or canceled. Two stores: in memory (bounded, one process; the oldest links go
 * first when full), and Redis (ADR 0232) under the agent's prefix, so a continuation or a cancel
 * that reaches another replica than the one that ran the task finds the same upstream task.
 */
import type { RedisClient } from '@cp/common/core';

export interface UpstreamLink {
  taskId: string;
  contextId: string;
}

export interface UpstreamLinkStore {
  get(nodeTaskId: string): Promise<UpstreamLink | undefined>;
  set(nodeTaskId: string, link: UpstreamLink): Promise<void>;
  delete(nodeTaskId: string): Promise<void>;
}

export class UpstreamLinks implements UpstreamLinkStore {
  private readonly links = new Map<string, UpstreamLink>();

  constructor(private readonly max = 10_000) {}

  async get(nodeTaskId: string): Promise<UpstreamLink | undefined> {
    return this.links.get(nodeTaskId);
  }

  async set(nodeTaskId: string, link: UpstreamLink): Promise<void> {
    this.links.delete(nodeTaskId);
    this.links.set(nodeTaskId, link);
    if (this.links.size > this.max) this.links.delete(this.links.keys().next().value!);
  }

  async delete(nodeTaskId: string): Promise<void> {
    this.links.delete(nodeTaskId);
  }

  get size(): number {
    return this.links.size;
  }
}

/** Ids the gateway stores are ≤ 200 characters (checked when the upstream sent them). */
const MAX_ID = 200;

/**
 * Links in Redis, one small string per node task, expiring with the task's retention: every
 * replica of the agent reads the same link. A value that is not a link (a corrupted key) reads as
 * no link: the continuation then starts a new upstream task, as without a store.
 */
export class RedisUpstreamLinks implements UpstreamLinkStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly retentionMs: number,
  ) {}

  private key(nodeTaskId: string): string {
    return `${this.prefix}upstream-link:${nodeTaskId}`;
  }

  async get(nodeTaskId: string): Promise<UpstreamLink | undefined> {
    const raw = await this.redis.get(this.key(nodeTaskId));
    if (!raw) return undefined;
    try {
      const v = JSON.parse(raw) as Partial<UpstreamLink>;
      const ok = (s: unknown) => typeof s === 'string' && s !== '' && s.length <= MAX_ID;
      return ok(v.taskId) && ok(v.contextId) ? { taskId: v.taskId!, contextId: v.contextId! } : undefined;
    } catch {
      return undefined;
    }
  }

  async set(nodeTaskId: string, link: UpstreamLink): Promise<void> {
    await this.redis.set(this.key(nodeTaskId), JSON.stringify({ taskId: link.taskId, contextId: link.contextId }), 'PX', this.retentionMs);
  }

  async delete(nodeTaskId: string): Promise<void> {
    await this.redis.del(this.key(nodeTaskId));
  }
}
