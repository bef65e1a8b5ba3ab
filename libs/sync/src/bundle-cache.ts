import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { buildNodeBundle } from '@cp/capabilities';
import { InjectConfig, InjectRedis, type AppConfig } from '@cp/common';
import { RegistrySnapshotRepository } from '@cp/db';
import { nodeBundleEtag, syncKeys } from '@cp/node-sdk';
import { SyncError, SyncErrorCode } from './sync.errors';
import { SYNC_OPTIONS, type SyncPublisherOptions } from './sync.options';

export interface CachedBundle {
  agentId: string;
  revision: number;
  etag: string;
  /** The exact JSON text served. */
  body: string;
}

/** Raises the revision key (never lowers it) and, when ARGV[2] is '1', announces the result. */
const RAISE_REVISION = `
local cur = tonumber(redis.call('GET', KEYS[1]) or '-1')
local rev = tonumber(ARGV[1])
if rev > cur then
  redis.call('SET', KEYS[1], ARGV[1])
  cur = rev
end
if ARGV[2] == '1' then redis.call('PUBLISH', KEYS[2], tostring(cur)) end
return cur`;

const RELEASE_LOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

const MEMO_LIMIT = 512;
const LOCK_TTL_MS = 10_000;
const WAIT_STEP_MS = 3;
const WAIT_LIMIT_MS = 10_000;

/**
 * Node bundles, computed once per (agent, revision) across every control-plane process: Redis
 * holds the agent's current revision (raised by the publisher) and each revision's bundle; a
 * SET NX lock makes one process compute while the others wait for its result. The process keeps
 * a small memo too, so a warm revalidation costs one Redis GET and no PostgreSQL query.
 */
@Injectable()
export class BundleCache {
  private readonly memo = new Map<string, CachedBundle>();
  private readonly computing = new Map<string, Promise<CachedBundle | null>>();
  private readonly prefix: string;
  /** PostgreSQL reads made (cold cache only): exposed for tests and benchmarks. */
  readonly stats = { postgresReads: 0, builds: 0 };

  constructor(
    @InjectRedis() private readonly redis: Redis,
    @InjectConfig() config: AppConfig,
    private readonly snapshots: RegistrySnapshotRepository,
    @Inject(SYNC_OPTIONS) private readonly options: SyncPublisherOptions,
  ) {
    this.prefix = config.REDIS_KEY_PREFIX;
  }

  /** Whether Redis is connected now (commands would otherwise wait for a reconnection). */
  connected(): boolean {
    return this.redis.status === 'ready';
  }

  keys(agentId: string) {
    return syncKeys(this.prefix, agentId);
  }

  /** The bundle of the agent's current revision; null when the agent does not exist. */
  async current(agentId: string): Promise<CachedBundle | null> {
    const raw = await this.redis.get(this.keys(agentId).revision);
    let revision = raw === null ? null : Number(raw);
    if (revision === null) {
      // Cold (Redis restarted or never announced): PostgreSQL knows the revision.
      this.stats.postgresReads++;
      revision = await this.snapshots.revision(agentId);
      if (revision === null) return null;
      revision = await this.raise(agentId, revision, false);
    }
    return this.memo.get(memoKey(agentId, revision)) ?? this.ensure(agentId, revision);
  }

  /** The bundle of this revision (or a newer one, if the registry moved on meanwhile). */
  ensure(agentId: string, revision: number): Promise<CachedBundle | null> {
    const hit = this.memo.get(memoKey(agentId, revision));
    if (hit) return Promise.resolve(hit);
    const key = memoKey(agentId, revision);
    let pending = this.computing.get(key);
    if (!pending) {
      pending = this.fetchOrCompute(agentId, revision).finally(() => this.computing.delete(key));
      this.computing.set(key, pending);
    }
    return pending;
  }

  /** Raises the agent's revision key and optionally announces it; returns the key's value. */
  async raise(agentId: string, revision: number, announce: boolean): Promise<number> {
    const keys = this.keys(agentId);
    const result = await this.redis.eval(RAISE_REVISION, 2, keys.revision, keys.channel, String(revision), announce ? '1' : '0');
    return Number(result);
  }

  private async fetchOrCompute(agentId: string, revision: number): Promise<CachedBundle | null> {
    const keys = this.keys(agentId);
    const deadline = Date.now() + WAIT_LIMIT_MS;
    for (;;) {
      const cached = await this.readCached(agentId, revision);
      if (cached) return cached;
      const token = randomBytes(8).toString('hex');
      if ((await this.redis.set(keys.lock(revision), token, 'PX', LOCK_TTL_MS, 'NX')) === 'OK') {
        try {
          return await this.compute(agentId);
        } finally {
          await this.redis.eval(RELEASE_LOCK, 1, keys.lock(revision), token).catch(() => undefined);
        }
      }
      if (Date.now() > deadline) {
        throw new SyncError(
          SyncErrorCode.BundleUnavailable,
          `the bundle of ${agentId}@${revision} was not computed within ${WAIT_LIMIT_MS} ms`,
        );
      }
      await sleep(WAIT_STEP_MS);
      // The holder may have built a newer revision than asked (the registry moved on): follow it.
      const now = Number((await this.redis.get(keys.revision)) ?? revision);
      if (now > revision) revision = now;
    }
  }

  private async readCached(agentId: string, revision: number): Promise<CachedBundle | null> {
    const [body, etag] = await this.redis.hmget(this.keys(agentId).bundle(revision), 'body', 'etag');
    if (body === null || etag === null) return null;
    return this.remember({ agentId, revision, etag, body });
  }

  private async compute(agentId: string): Promise<CachedBundle | null> {
    this.stats.postgresReads++;
    const snapshot = await this.snapshots.snapshot(agentId);
    if (!snapshot) return null;
    this.stats.builds++;
    const bundle = buildNodeBundle(snapshot);
    const entry: CachedBundle = {
      agentId,
      revision: snapshot.revision,
      etag: nodeBundleEtag(snapshot.revision, bundle.contentHash),
      body: JSON.stringify(bundle),
    };
    const key = this.keys(agentId).bundle(snapshot.revision);
    await this.redis.multi().hset(key, 'body', entry.body, 'etag', entry.etag).expire(key, this.options.bundleTtlSeconds).exec();
    await this.raise(agentId, snapshot.revision, false);
    return this.remember(entry);
  }

  private remember(entry: CachedBundle): CachedBundle {
    const key = memoKey(entry.agentId, entry.revision);
    this.memo.delete(key);
    this.memo.set(key, entry);
    if (this.memo.size > MEMO_LIMIT) this.memo.delete(this.memo.keys().next().value!);
    return entry;
  }
}

const memoKey = (agentId: string, revision: number) => `${agentId}@${revision}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
