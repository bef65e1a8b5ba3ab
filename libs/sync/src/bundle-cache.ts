import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Registry } from 'prom-client';
import type { NodeBundle, RegistrySnapshot } from '@cp/capabilities';
import {
  redisAway,
  currentTraceparent,
  inSpan,
  InjectConfig,
  InjectRedis,
  isRedisCluster,
  MetricsRegistryToken,
  serverHistogram,
  type AppConfig,
  type RedisClient,
} from '@cp/common';
import { RegistrySnapshotRepository } from '@cp/db';
import {
  catalogIdentity,
  nodeBundleEtag,
  parseBundleEtag,
  parseRevisionStamp,
  revisionAnnouncement,
  buildSignedNodeBundle,
  SignedCardMemo,
  syncKeys,
} from '@cp/node-protocol';
import type { RevisionReader } from './revision-reads';
import { SigningKeys } from './signing-keys';
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
  /** The key that signed it: a bundle signed by a key that is no longer active is signed again. */
  kid: string;
}

/** Lua: reads the revision stamp held at `key` ("rev|epoch", or a bare rev) into `cur` and `epoch` (-1 and '' when none). */
const READ_HELD_STAMP = (key: string) => `local held = redis.call('GET', ${key})
local cur, epoch = -1, ''
if held then
  local bar = string.find(held, '|', 1, true)
  if bar then cur = tonumber(string.sub(held, 1, bar - 1)); epoch = string.sub(held, bar + 1) else cur = tonumber(held) end
end`;

/**
 * The revision key holds `<revision>|<epoch>`. Raises it (never lowers it) within an epoch; a new
 * epoch (ARGV[3], the registry was recreated) replaces it whatever its revision; '' = same epoch.
 * When ARGV[2] is '1', announces the result, followed by `|<traceparent>` when ARGV[4] has one (ADR 0142):
 * PUBLISH, or on Redis Cluster (ARGV[5] 's') SPUBLISH to the agent's shard channel, which shares the
 * revision key's slot (ADR 0151). It is announced twice: on KEYS[2] as it is, then on KEYS[3] (the
 * changes channel, ADR 0199) followed by a newline and ARGV[6], the delta to ARGV[1], only when the
 * key now holds ARGV[1] (a newer revision raced past: the delta would not lead to it).
 * Returns the stamp held afterwards.
 */
const RAISE_REVISION = `
${READ_HELD_STAMP('KEYS[1]')}
local rev = tonumber(ARGV[1])
local newEpoch = ARGV[3] ~= '' and ARGV[3] ~= epoch
if rev > cur or newEpoch then
  cur = rev
  if ARGV[3] ~= '' then epoch = ARGV[3] end
  redis.call('SET', KEYS[1], tostring(cur) .. '|' .. epoch)
end
local stamp = tostring(cur) .. '|' .. epoch
if ARGV[2] == '1' then
  local message = stamp
  if ARGV[4] and ARGV[4] ~= '' then message = stamp .. '|' .. ARGV[4] end
  local publish = ARGV[5] == 's' and 'SPUBLISH' or 'PUBLISH'
  redis.call(publish, KEYS[2], message)
  if ARGV[6] and ARGV[6] ~= '' and cur == rev then message = message .. '\\n' .. ARGV[6] end
  redis.call(publish, KEYS[3], message)
end
return stamp`;

/**
 * Stores a revision's bundle unless one signed by the same key is already there, and returns the
 * one that is: card signatures are randomized (ECDSA), so two builds of one revision differ, and
 * every process must serve the first one stored (one ETag per revision across replicas).
 * KEYS[1] the bundle hash; ARGV body, etag, kid, ttl seconds. Returns {body, etag} when kept.
 */
const STORE_FIRST = `
if redis.call('HGET', KEYS[1], 'kid') == ARGV[3] then
  local kept = redis.call('HMGET', KEYS[1], 'body', 'etag')
  if kept[1] and kept[2] then return kept end
end
redis.call('HSET', KEYS[1], 'body', ARGV[1], 'etag', ARGV[2], 'kid', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return false`;

/**
 * The publisher's one round trip after a commit (ADR 0365): STORE_FIRST, then RAISE_REVISION with
 * its announcements, in one call. KEYS: [1] the bundle hash, [2] the revision key, [3] the
 * revisions channel, [4] the changes channel, [5] the delta key, [6] the base bundle hash.
 * ARGV: [1] body, [2] etag, [3] kid, [4] ttl seconds, [5] revision, [6] epoch, [7] traceparent,
 * [8] 's' on Redis Cluster, [9] the delta from the base (or ''), [10] the base's ETag, [11] its revision,
 * [12] 'store' when the delta is stored under the same conditions but not pushed (too long, ADR 0390).
 * The delta is stored and pushed only when it leads to what Redis now serves for the revision (this
 * body was stored, not another process's), starts from what the fleet was served (the base hash's
 * ETag is ARGV[10] and the key held the base revision of this epoch before), and the key now holds
 * this revision. Returns {stamp held afterwards, '1' when the delta was pushed, and when another
 * bundle of the revision was kept, its body and etag}.
 */
const PUBLISH_BUILT = `
local kept = false
if redis.call('HGET', KEYS[1], 'kid') == ARGV[3] then
  local stored = redis.call('HMGET', KEYS[1], 'body', 'etag')
  if stored[1] and stored[2] then kept = stored end
end
if not kept then
  redis.call('HSET', KEYS[1], 'body', ARGV[1], 'etag', ARGV[2], 'kid', ARGV[3])
  redis.call('EXPIRE', KEYS[1], ARGV[4])
end
${READ_HELD_STAMP('KEYS[2]')}
local delta = ''
if not kept and ARGV[9] ~= '' and cur == tonumber(ARGV[11]) and epoch == ARGV[6] and redis.call('HGET', KEYS[6], 'etag') == ARGV[10] then
  delta = ARGV[9]
  redis.call('SET', KEYS[5], delta, 'EX', ARGV[4])
end
local rev = tonumber(ARGV[5])
if rev > cur or (ARGV[6] ~= '' and ARGV[6] ~= epoch) then
  cur = rev
  if ARGV[6] ~= '' then epoch = ARGV[6] end
  redis.call('SET', KEYS[2], tostring(cur) .. '|' .. epoch)
end
local stamp = tostring(cur) .. '|' .. epoch
local message = stamp
if ARGV[7] ~= '' then message = stamp .. '|' .. ARGV[7] end
local publish = ARGV[8] == 's' and 'SPUBLISH' or 'PUBLISH'
redis.call(publish, KEYS[3], message)
local pushed = '0'
if delta ~= '' and cur == rev and ARGV[12] ~= 'store' then message = message .. '\\n' .. delta; pushed = '1' end
redis.call(publish, KEYS[4], message)
if kept then return {stamp, pushed, kept[1], kept[2]} end
return {stamp, pushed}`;

/** A bundle built and signed from a snapshot the caller holds (ADR 0365), with its parsed document. */
export interface BuiltBundle {
  entry: CachedBundle;
  bundle: NodeBundle;
}

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
  /** Cards signed for earlier revisions: an unchanged card keeps its signature and ETag (ADR 0390). */
  private readonly signedCards = new SignedCardMemo();
  private readonly prefix: string;
  /** Redis Cluster: announce on the agent's shard channel (SPUBLISH) rather than to every node. */
  private readonly sharded: boolean;
  /** The host and publisher every node catalog names (CATALOG_HOST_NAME, CATALOG_PUBLISHER; ADR 0315). */
  private readonly catalog: ReturnType<typeof catalogIdentity>;
  /** PostgreSQL reads made (cold cache only): exposed for tests and benchmarks. */
  readonly stats = { postgresReads: 0, builds: 0 };

  constructor(
    @InjectRedis() private readonly redis: RedisClient,
    @InjectConfig() config: AppConfig,
    private readonly snapshots: RegistrySnapshotRepository,
    @Inject(SYNC_OPTIONS) private readonly options: SyncPublisherOptions,
    private readonly signing: SigningKeys,
    @Optional() @Inject(MetricsRegistryToken) private readonly metrics?: Registry,
  ) {
    this.prefix = config.REDIS_KEY_PREFIX;
    this.sharded = isRedisCluster(config);
    this.catalog = catalogIdentity(config);
  }

  /** Whether Redis is connected now (commands would otherwise wait for a reconnection). */
  connected(): boolean {
    return !redisAway(this.redis);
  }

  keys(agentId: string) {
    return syncKeys(this.prefix, agentId);
  }

  /**
   * The bundle of the agent's current revision; null when the agent does not exist. `reads`: what
   * reads the revision key (the node bundle route's RevisionReads, ADR 0195); this connection if none.
   */
  async current(agentId: string, reads: RevisionReader = this.redis): Promise<CachedBundle | null> {
    const raw = await reads.get(this.keys(agentId).revision);
    let stamp = raw === null ? undefined : parseRevisionStamp(raw);
    if (!stamp) {
      // Cold (Redis restarted or never announced): PostgreSQL knows the revision.
      this.stats.postgresReads++;
      const known = await this.snapshots.stamp(agentId);
      if (known === null) return null;
      stamp = await this.raiseStamp(agentId, known.revision, false, known.epoch);
    }
    return this.memo.get(this.memoKey(agentId, stamp.revision, stamp.epoch)) ?? this.ensure(agentId, stamp.revision, stamp.epoch);
  }

  /**
   * The bundle of this revision (or a newer one, if the registry moved on meanwhile). With the
   * epoch unknown (the publisher, told only the revision) it is computed from PostgreSQL.
   */
  ensure(agentId: string, revision: number, epoch?: string): Promise<CachedBundle | null> {
    const key = this.memoKey(agentId, revision, epoch ?? '?');
    const hit = this.memo.get(key);
    if (hit) return Promise.resolve(hit);
    let pending = this.computing.get(key);
    if (!pending) {
      pending = this.fetchOrCompute(agentId, revision, epoch).finally(() => this.computing.delete(key));
      this.computing.set(key, pending);
    }
    return pending;
  }

  /**
   * Raises the agent's revision key and optionally announces it; returns the revision it holds.
   * `delta`: pushed with the announcement on the changes channel when the key ends at `revision`.
   */
  async raise(agentId: string, revision: number, announce: boolean, epoch = '', delta?: string | null): Promise<number> {
    return (await this.raiseStamp(agentId, revision, announce, epoch, delta)).revision;
  }

  /** The stamp the revision key holds now (undefined: none, or not one). */
  async heldStamp(agentId: string): Promise<{ revision: number; epoch: string } | undefined> {
    const raw = await this.redis.get(this.keys(agentId).revision);
    return raw === null ? undefined : parseRevisionStamp(raw);
  }

  private async raiseStamp(
    agentId: string,
    revision: number,
    announce: boolean,
    epoch: string,
    delta?: string | null,
  ): Promise<{ revision: number; epoch: string }> {
    const keys = this.keys(agentId);
    // Only a well-formed traceparent is appended (revisionAnnouncement checks it); '' otherwise.
    const traceparent = announce ? revisionAnnouncement('', currentTraceparent()).slice(1) : '';
    const held = String(
      await this.redis.eval(
        RAISE_REVISION,
        3,
        keys.revision,
        keys.channel,
        keys.changes,
        String(revision),
        announce ? '1' : '0',
        epoch,
        traceparent,
        this.sharded ? 's' : '',
        announce && delta ? delta : '',
      ),
    );
    return parseRevisionStamp(held) ?? { revision, epoch };
  }

  private async fetchOrCompute(agentId: string, revision: number, epoch: string | undefined): Promise<CachedBundle | null> {
    const keys = this.keys(agentId);
    const deadline = Date.now() + WAIT_LIMIT_MS;
    if (epoch === undefined) {
      // Told only the revision (the publisher): when Redis holds it, its epoch names the stored bundle.
      const held = parseRevisionStamp((await this.redis.get(keys.revision)) ?? '');
      if (held && held.revision === revision) epoch = held.epoch;
    }
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
    const [body, etag, kid] = await this.redis.hmget(this.keys(agentId).bundle(revision, epoch), 'body', 'etag', 'kid');
    if (body === null || etag === null) return null;
    // Signed by a key that is no longer the active one (a rotation): sign it again.
    if (kid !== this.signing.active().kid) return null;
    return this.remember({ agentId, revision, epoch, etag, body, kid });
  }

  /** In a span, timed (cp_bundle_build_duration_seconds): the snapshot read and the build. */
  private compute(agentId: string): Promise<CachedBundle | null> {
    const started = performance.now();
    return inSpan('bundle.build', { 'cp.agent.id': agentId }, async (span) => {
      const built = await this.build(agentId);
      span?.setAttribute('cp.revision', built?.revision ?? -1);
      if (this.metrics) serverHistogram(this.metrics, 'bundleBuild').observe((performance.now() - started) / 1000);
      return built;
    });
  }

  private async build(agentId: string): Promise<CachedBundle | null> {
    this.stats.postgresReads++;
    const snapshot = await this.snapshots.snapshot(agentId);
    if (!snapshot) return null;
    const { entry } = await this.buildFrom(snapshot);
    const redisKey = this.keys(agentId).bundle(entry.revision, entry.epoch);
    // Another process may have stored this revision meanwhile (the lock is per revision asked, and
    // expires): serve the stored one, never a second build of the same revision.
    const kept = (await this.redis.eval(
      STORE_FIRST,
      1,
      redisKey,
      entry.body,
      entry.etag,
      entry.kid,
      String(this.options.bundleTtlSeconds),
    )) as [string, string] | null;
    if (kept) {
      entry.body = kept[0];
      entry.etag = kept[1];
    }
    await this.raiseStamp(agentId, entry.revision, false, entry.epoch);
    return this.remember(entry);
  }

  /**
   * The bundle of `snapshot`, built and signed, stored nowhere yet. Every card, the node's anonymous
   * catalog and the bundle are signed here, once per (agent, revision), never per request. The
   * catalog names this control plane's host and publisher (ADR 0315).
   */
  async buildFrom(snapshot: RegistrySnapshot): Promise<BuiltBundle> {
    this.stats.builds++;
    const key = this.signing.active();
    // Built, signed and written in one pass; unchanged cards keep their signatures (ADR 0390).
    const { bundle, body } = await buildSignedNodeBundle(snapshot, key, { catalog: this.catalog, memo: this.signedCards });
    const entry: CachedBundle = {
      agentId: snapshot.agentId,
      revision: snapshot.revision,
      epoch: snapshot.epoch ?? '',
      etag: nodeBundleEtag(snapshot.revision, bundle.contentHash),
      body,
      kid: key.kid,
    };
    return { entry, bundle };
  }

  /** buildFrom in a span, timed (cp_bundle_build_duration_seconds), as `compute` is. */
  buildSnapshot(snapshot: RegistrySnapshot): Promise<BuiltBundle> {
    const started = performance.now();
    return inSpan('bundle.build', { 'cp.agent.id': snapshot.agentId, 'cp.revision': snapshot.revision }, async () => {
      const built = await this.buildFrom(snapshot);
      if (this.metrics) serverHistogram(this.metrics, 'bundleBuild').observe((performance.now() - started) / 1000);
      return built;
    });
  }

  /**
   * Publishes a bundle built from the committed revision's snapshot in ONE Redis call (ADR 0365):
   * stores it unless a bundle of the revision signed by the same key is already there (then that
   * one is served, and `entry` is changed to it), raises the revision key and announces; `delta`
   * (from `base`, the bundle Redis holds for the revision announced before) rides the changes
   * channel only when it leads from what the fleet was served to what is stored (and is stored for
   * the nodes' fetch then; with `base.push` false it is only stored, ADR 0390). Returns the
   * revision announced and whether the delta was pushed.
   */
  async publishBuilt(
    entry: CachedBundle,
    base?: { revision: number; etag: string; delta: string; push?: boolean },
  ): Promise<{ announced: number; pushed: boolean; stored: boolean }> {
    const keys = this.keys(entry.agentId);
    const traceparent = revisionAnnouncement('', currentTraceparent()).slice(1);
    const baseHash = base ? (parseBundleEtag(base.etag)?.contentHash ?? '') : '';
    const reply = (await this.redis.eval(
      PUBLISH_BUILT,
      6,
      keys.bundle(entry.revision, entry.epoch),
      keys.revision,
      keys.channel,
      keys.changes,
      base ? keys.delta(base.revision, baseHash, entry.revision, entry.epoch) : keys.delta(-1, '', entry.revision, entry.epoch),
      base ? keys.bundle(base.revision, entry.epoch) : keys.bundle(-1, entry.epoch),
      entry.body,
      entry.etag,
      entry.kid,
      String(this.options.bundleTtlSeconds),
      String(entry.revision),
      entry.epoch,
      traceparent,
      this.sharded ? 's' : '',
      base?.delta ?? '',
      base?.etag ?? '',
      String(base?.revision ?? -1),
      base?.push === false ? 'store' : '',
    )) as [string, string, string?, string?];
    const stored = reply.length === 2;
    if (!stored) {
      entry.body = reply[2]!;
      entry.etag = reply[3]!;
    }
    this.remember(entry);
    const held = parseRevisionStamp(reply[0]) ?? { revision: entry.revision, epoch: entry.epoch };
    return { announced: held.revision, pushed: reply[1] === '1', stored };
  }

  /** The body and ETag Redis holds for a revision of an epoch (null when none). */
  async stored(agentId: string, revision: number, epoch: string): Promise<{ body: string; etag: string } | null> {
    const [body, etag] = await this.redis.hmget(this.keys(agentId).bundle(revision, epoch), 'body', 'etag');
    return body === null || etag === null ? null : { body, etag };
  }

  /** Memo entries are per signing key too: after a rotation the old ones are never hit again. */
  private memoKey(agentId: string, revision: number, epoch: string, kid = this.signing.active().kid): string {
    return `${agentId}@${revision}|${epoch}#${kid}`;
  }

  private remember(entry: CachedBundle): CachedBundle {
    const key = this.memoKey(entry.agentId, entry.revision, entry.epoch, entry.kid);
    this.memo.delete(key);
    this.memo.set(key, entry);
    if (this.memo.size > MEMO_LIMIT) this.memo.delete(this.memo.keys().next().value!);
    return entry;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
