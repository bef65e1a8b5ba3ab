import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { NodeBundle } from '@cp/capabilities';
import { InjectConfig, InjectRedis, type AppConfig } from '@cp/common';
import { diffNodeBundles, parseBundleEtag, syncKeys } from '@cp/node-protocol';
import type { CachedBundle } from './bundle-cache';
import { SYNC_OPTIONS, type SyncPublisherOptions } from './sync.options';

const MEMO_LIMIT = 1024;

/**
 * Deltas between two bundles of one agent (ADR 0155), computed once per (base, target) pair: a
 * fleet that served the same revision asks for the same delta, so the first request computes it
 * (from the base bundle still cached in Redis) and the others find it in this process's memo or
 * in Redis. Null means "send the full bundle": the base is gone from Redis (expired, another
 * epoch, never built), names another content than the node's ETag, or the delta is not smaller.
 */
@Injectable()
export class BundleDeltas {
  private readonly memo = new Map<string, string | null>();
  private readonly computing = new Map<string, Promise<string | null>>();
  private readonly prefix: string;
  /** Exposed for tests and benchmarks. */
  readonly stats = { computed: 0, unavailable: 0, larger: 0 };

  constructor(
    @InjectRedis() private readonly redis: Redis,
    @InjectConfig() config: AppConfig,
    @Inject(SYNC_OPTIONS) private readonly options: SyncPublisherOptions,
  ) {
    this.prefix = config.REDIS_KEY_PREFIX;
  }

  /** The delta (JSON text) from the bundle whose ETag is `baseEtag` to `target`, or null. */
  from(baseEtag: string, target: CachedBundle): Promise<string | null> {
    const base = parseBundleEtag(baseEtag);
    if (!base || base.revision >= target.revision) return Promise.resolve(null);
    const key = syncKeys(this.prefix, target.agentId).delta(base.revision, base.contentHash, target.revision, target.epoch);
    if (this.memo.has(key)) return Promise.resolve(this.memo.get(key)!);
    let pending = this.computing.get(key);
    if (!pending) {
      pending = this.fetchOrCompute(key, base.revision, baseEtag, target)
        .then((delta) => this.remember(key, delta))
        .finally(() => this.computing.delete(key));
      this.computing.set(key, pending);
    }
    return pending;
  }

  /**
   * The delta to `target` from the bundle of an earlier revision of the same epoch, as Redis holds
   * it (the publisher's base: the revision announced before, ADR 0199); null as for `from`.
   */
  async fromRevision(base: { revision: number; epoch: string }, target: CachedBundle): Promise<string | null> {
    if (base.epoch !== target.epoch || base.revision >= target.revision) return null;
    const etag = await this.redis.hget(syncKeys(this.prefix, target.agentId).bundle(base.revision, base.epoch), 'etag');
    if (etag === null) {
      this.stats.unavailable++;
      return null;
    }
    return this.from(etag, target);
  }

  private async fetchOrCompute(key: string, baseRevision: number, baseEtag: string, target: CachedBundle): Promise<string | null> {
    const stored = await this.redis.get(key);
    if (stored !== null) return stored === '' ? null : stored;
    const keys = syncKeys(this.prefix, target.agentId);
    const [body, etag] = await this.redis.hmget(keys.bundle(baseRevision, target.epoch), 'body', 'etag');
    if (body === null || etag !== baseEtag) {
      this.stats.unavailable++;
      return null;
    }
    this.stats.computed++;
    const delta = JSON.stringify(diffNodeBundles(JSON.parse(body) as NodeBundle, JSON.parse(target.body) as NodeBundle));
    const answer = delta.length < target.body.length ? delta : null;
    if (answer === null) this.stats.larger++;
    await this.redis.set(key, answer ?? '', 'EX', this.options.bundleTtlSeconds);
    return answer;
  }

  private remember(key: string, delta: string | null): string | null {
    this.memo.set(key, delta);
    if (this.memo.size > MEMO_LIMIT) this.memo.delete(this.memo.keys().next().value!);
    return delta;
  }
}
