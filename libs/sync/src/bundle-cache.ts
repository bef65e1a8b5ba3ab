import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { buildNodeBundle } from '@cp/capabilities';
import { InjectConfig, InjectRedis, isRedisCluster, type AppConfig, type RedisClient } from '@cp/common';
import { RegistrySnapshotRepository } from '@cp/db';
import { nodeBundleEtag, parseRevisionStamp, syncKeys } from '@cp/node-protocol';
import { SyncError, SyncErrorCode } from './sync.errors';
import { SYNC_OPTIONS, type SyncPublisherOptions } from './sync.options';

export interface CachedBundle {
  agentId: string;
  revision: number;
  /** Registry epoch (RegistrySnapshot.epoch; '' when unknown). */
  epoch: string;
  etag: string;
  /** The exact JSON text served. */
  body: string;
}

/**
 * The revision key holds `<revision>|<epoch>`. Raises it (never lowers it) within an epoch; a new
 * epoch (ARGV[3], the registry was recreated) replaces it whatever its revision; '' = same epoch.
 * When ARGV[2] is '1', announces the result: PUBLISH, or on Redis Cluster (ARGV[4] 's') SPUBLISH
 * to the agent's shard channel, which shares the revision key's slot (ADR 0151). Returns the stamp
 * held afterwards.
 */
const RAISE_REVISION = `
local held = redis.call('GET', KEYS[1])
local cur, epoch = -1, ''
if held then
  local bar = string.find(held, '|', 1, true)
  if bar then cur = tonumber(string.sub(held, 1, bar - 1)); epoch = string.sub(held, bar + 1) else cur = tonumber(held) end
end
local rev = tonumber(ARGV[1])
local newEpoch = ARGV[3] ~= '' and ARGV[3] ~= epoch
if rev > cur or newEpoch then
  cur = rev
  if ARGV[3] ~= '' then epoch = ARGV[3] end
  redis.call('SET', KEYS[1], tostring(cur) .. '|' .. epoch)
end
local stamp = tostring(cur) .. '|' .. epoch
if ARGV[2] == '1' then redis.call(ARGV[4] == 's' and 'SPUBLISH' or 'PUBLISH', KEYS[2], stamp) end
return stamp`;

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
  /** Redis Cluster: announce on the agent's shard channel (SPUBLISH) rather than to every node. */
  private readonly sharded: boolean;
  /** PostgreSQL reads made (cold cache only): exposed for tests and benchmarks. */
  readonly stats = { postgresReads: 0, builds: 0 };

  constructor(
    @InjectRedis() private readonly redis: RedisClient,
    @InjectConfig() config: AppConfig,
    private readonly snapshots: RegistrySnapshotRepository,
    @Inject(SYNC_OPTIONS) private readonly options: SyncPublisherOptions,
  ) {
    this.prefix = config.REDIS_KEY_PREFIX;
    this.sharded = isRedisCluster(config);
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
    let stamp = raw === null ? undefined : parseRevisionStamp(raw);
    if (!stamp) {
      // Cold (Redis restarted or never announced): PostgreSQL knows the revision.
      this.stats.postgresReads++;
      const known = await this.snapshots.stamp(agentId);
      if (known === null) return null;
      stamp = await this.raiseStamp(agentId, known.revision, false, known.epoch);
    }
    return this.memo.get(memoKey(agentId, stamp.revision, stamp.epoch)) ?? this.ensure(agentId, stamp.revision, stamp.epoch);
  }

  /**
   * The bundle of this revision (or a newer one, if the registry moved on meanwhile). With the
   * epoch unknown (the publisher, told only the revision) it is computed from PostgreSQL.
   */
  ensure(agentId: string, revision: number, epoch?: string): Promise<CachedBundle | null> {
    const key = memoKey(agentId, revision, epoch ?? '?');
    const hit = this.memo.get(key);
    if (hit) return Promise.resolve(hit);
    let pending = this.computing.get(key);
    if (!pending) {
      pending = this.fetchOrCompute(agentId, revision, epoch).finally(() => this.computing.delete(key));
      this.computing.set(key, pending);
    }
    return pending;
  }

  /** Raises the agent's revision key and optionally announces it; returns the revision it holds. */
  async raise(agentId: string, revision: number, announce: boolean, epoch = ''): Promise<number> {
    return (await this.raiseStamp(agentId, revision, announce, epoch)).revision;
  }

  private async raiseStamp(
    agentId: string,
    revision: number,
    announce: boolean,
    epoch: string,
  ): Promise<{ revision: number; epoch: string }> {
    const keys = this.keys(agentId);
    const held = String(
      await this.redis.eval(
        RAISE_REVISION,
        2,
        keys.revision,
        keys.channel,
        String(revision),
        announce ? '1' : '0',
        epoch,
        this.sharded ? 's' : '',
      ),
    );
    return parseRevisionStamp(held) ?? { revision, epoch };
  }

  private async fetchOrCompute(agentId: string, revision: number, epoch: string | undefined): Promise<CachedBundle | null> {
    const keys = this.keys(agentId);
    const deadline = Date.now() + WAIT_LIMIT_MS;
    for (;;) {
      const cached = epoch === undefined ? null : await this.readCached(agentId, revision, epoch);
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
      const now = parseRevisionStamp((await this.redis.get(keys.revision)) ?? '');
      if (now && (now.revision > revision || (epoch !== undefined && now.epoch !== epoch))) ({ revision, epoch } = now);
      else if (now && epoch === undefined && now.revision === revision) epoch = now.epoch;
    }
  }

  private async readCached(agentId: string, revision: number, epoch: string): Promise<CachedBundle | null> {
    const [body, etag] = await this.redis.hmget(this.keys(agentId).bundle(revision, epoch), 'body', 'etag');
    if (body === null || etag === null) return null;
    return this.remember({ agentId, revision, epoch, etag, body });
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
      epoch: snapshot.epoch ?? '',
      etag: nodeBundleEtag(snapshot.revision, bundle.contentHash),
      body: JSON.stringify(bundle),
    };
    const key = this.keys(agentId).bundle(entry.revision, entry.epoch);
    await this.redis.multi().hset(key, 'body', entry.body, 'etag', entry.etag).expire(key, this.options.bundleTtlSeconds).exec();
    await this.raiseStamp(agentId, entry.revision, false, entry.epoch);
    return this.remember(entry);
  }

  private remember(entry: CachedBundle): CachedBundle {
    const key = memoKey(entry.agentId, entry.revision, entry.epoch);
    this.memo.delete(key);
    this.memo.set(key, entry);
    if (this.memo.size > MEMO_LIMIT) this.memo.delete(this.memo.keys().next().value!);
    return entry;
  }
}

const memoKey = (agentId: string, revision: number, epoch: string) => `${agentId}@${revision}|${epoch}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
