/**
 * Tasks in Redis, shared by every replica of an agent's node and surviving restarts (`<h>`: a
 * hash of the owner; the braces are a Redis Cluster hash tag, so one owner's keys share a slot and
 * the save script and ListTasks' MGET stay single-slot, ADR 0151):
 *   <prefix>a2a:{<h>}:task:<id>   the record as JSON, expiring `retentionMs` after its last save
 *   <prefix>a2a:{<h>}:index       sorted set id → status time (ListTasks, newest first; named owners only)
 *   <prefix>a2a:{<h>}:sizes       hash id → stored bytes
 *   <prefix>a2a:{<h>}:bytes       the owner's stored bytes (tasks and queued push bodies)
 *   <prefix>a2a:{<h>}:created     sorted set id → creation time (the anonymous pool only: eviction order)
 * A save is one Lua script, so the byte limits hold across replicas. The anonymous pool, full,
 * evicts its oldest tasks in that script instead of refusing (ADR 0201); named owners are refused. Expired tasks leave their
 * index entries behind; a save over the owner limit and ListTasks forget them. The script also
 * PUBLISHes the changes it is given, so save and fan-out are one round trip and no replica can
 * see an event whose state is not stored (ADR 82); several updates of one task share that round
 * trip, and a save may refuse to overwrite a terminal task (ADR 0285). Scripts run by SHA (EVALSHA), loaded on NOSCRIPT.
 * With Redis away every call refuses at once with a retriable 503 (store-unavailable.ts, ADR 0240).
 */
import { createHash } from 'node:crypto';
import { redisAway, type RedisClient } from '@cp/common/core';
import {
  ANONYMOUS_OWNER,
  before,
  DEFAULT_TASK_LIMITS,
  matches,
  ownerQuotaExceeded,
  pageOf,
  taskTooLarge,
  type TaskPage,
  type TaskQuery,
  type TaskRecord,
  type TaskStore,
  type TaskStoreLimits,
  type PublishOnSave,
  type SaveOptions,
  parseRecord,
  recordBytes,
  serializeRecord,
  surelyFits,
} from './task-store';
import { onTaskStore } from './store-unavailable';
import { TERMINAL_STATES } from './wire-types';

/** Keeps one save's script short on a pool of tiny tasks; the rest is evicted by the next saves. */
const MAX_EVICTIONS_PER_SAVE = 1000;

/**
 * The anonymous pool makes room (ADR 0201): its oldest tasks by creation go first, expired or
 * not, never `keep` (the task being saved or notified about); an evicted id answers TaskNotFound,
 * as after expiry. At most MAX_EVICTIONS_PER_SAVE per call; the next call goes on. Returns the
 * owner's bytes after eviction. Shared by the save script and the push backlog's (push-backlog.ts).
 */
export const EVICT_OLDEST_LUA = `
local function evictOldest(created, sizes, index, base, keep, total, limit)
  local evicted = 0
  while total > limit and evicted < ${MAX_EVICTIONS_PER_SAVE} do
    local oldest = redis.call('ZRANGE', created, 0, 1)
    local victim = oldest[1]
    if victim == keep then victim = oldest[2] end
    if not victim then break end
    total = total - tonumber(redis.call('HGET', sizes, victim) or '0')
    redis.call('HDEL', sizes, victim)
    redis.call('ZREM', index, victim)
    redis.call('ZREM', created, victim)
    redis.call('DEL', base .. 'task:' .. victim)
    evicted = evicted + 1
  end
  return total
end
`;

/** Lua: the script's `state` is one of TERMINAL_STATES. */
const LUA_TERMINAL = [...TERMINAL_STATES].map((t) => `state == '${t}'`).join(' or ');

// KEYS task, index, sizes, bytes, created. ARGV 1 id, 2 json, 3 status time, 4 retention, 5 task limit,
// 6 owner limit, 7 the owner's key base, 8 '1' = evict (the anonymous pool), 9 now, 10 '1' = refuse
// when the stored task is terminal, 11 channel, 12… messages published in order. Returns {0, bytes,
// the owner's bytes} saved, {1, bytes} task too large, {2, bytes} owner over its limit, {3, stored
// json} the stored task is terminal (nothing written; ADR 0285). A node reads only the first two
// members of {0, …}, so an older one reads this script's answer as before.
const SAVE = `
${EVICT_OLDEST_LUA}
if ARGV[10] == '1' then
  -- The state is the record's first member (serialize()): read from its first bytes, never from
  -- caller text. A record written without it (an older node) is decoded.
  local head = redis.call('GETRANGE', KEYS[1], 0, 63)
  local state = string.match(head, '^{"state":"([A-Z_]+)"')
  if state == nil and head ~= '' then
    local ok, old = pcall(cjson.decode, redis.call('GET', KEYS[1]))
    if ok and type(old) == 'table' and type(old.task) == 'table' and type(old.task.status) == 'table' then state = old.task.status.state end
  end
  if ${LUA_TERMINAL} then return {3, redis.call('GET', KEYS[1])} end
end
local size = string.len(ARGV[2])
if size > tonumber(ARGV[5]) then return {1, size} end
local limit = tonumber(ARGV[6])
if size > limit then return {2, size} end
-- No size yet: the task is new to the store (or was evicted or forgotten since).
local stored = redis.call('HGET', KEYS[3], ARGV[1])
local old = tonumber(stored or '0')
local total = tonumber(redis.call('GET', KEYS[4]) or '0') - old + size
-- A sizes field names a task (its id) or a queued push body (push:<id>, push-backlog.ts).
local function keyOf(field)
  if string.sub(field, 1, 5) == 'push:' then return ARGV[7] .. field end
  return ARGV[7] .. 'task:' .. field
end
local function forget(field)
  total = total - tonumber(redis.call('HGET', KEYS[3], field) or '0')
  redis.call('HDEL', KEYS[3], field)
  redis.call('ZREM', KEYS[2], field)
end
if total > limit then
  if ARGV[8] == '1' then
    total = evictOldest(KEYS[5], KEYS[3], KEYS[2], ARGV[7], ARGV[1], total, limit)
  else
    local all = redis.call('HGETALL', KEYS[3])
    for i = 1, #all, 2 do
      if all[i] ~= ARGV[1] and redis.call('EXISTS', keyOf(all[i])) == 0 then forget(all[i]) end
    end
  end
  if total > limit then
    redis.call('SET', KEYS[4], total - size + old, 'KEEPTTL')
    return {2, total}
  end
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[4])
redis.call('HSET', KEYS[3], ARGV[1], size)
redis.call('SET', KEYS[4], total, 'PX', ARGV[4])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
if ARGV[8] == '1' then
  -- The anonymous pool is never listed (ADR 80): no index. Creation order instead, even for tasks
  -- created in the same millisecond (equal scores would order by id): a new task scores after the
  -- youngest one. Only the order is read, never the time. A task has a size exactly when it has a
  -- creation entry (both are written here and removed together), so the size read above tells.
  if not stored then
    local score = tonumber(ARGV[9])
    local youngest = redis.call('ZRANGE', KEYS[5], -1, -1, 'WITHSCORES')
    if youngest[2] and tonumber(youngest[2]) >= score then score = tonumber(youngest[2]) + 1 end
    redis.call('ZADD', KEYS[5], 'NX', score, ARGV[1])
  end
  redis.call('PEXPIRE', KEYS[5], ARGV[4])
else
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
end
for i = 12, #ARGV do redis.call('PUBLISH', ARGV[11], ARGV[i]) end
return {0, size, total}
`;

// Forgets index entries whose task expired: KEYS index, sizes, bytes, created; ARGV ids.
const FORGET = `
local freed = 0
for i = 1, #ARGV do
  freed = freed + tonumber(redis.call('HGET', KEYS[2], ARGV[i]) or '0')
  redis.call('HDEL', KEYS[2], ARGV[i])
  redis.call('ZREM', KEYS[1], ARGV[i])
  redis.call('ZREM', KEYS[4], ARGV[i])
end
if freed > 0 and redis.call('EXISTS', KEYS[3]) == 1 then redis.call('DECRBY', KEYS[3], freed) end
return freed
`;

const CHUNK = 200;

/** Owners whose key names are remembered (each a few hundred bytes). */
const OWNER_KEYS_CACHED = 10_000;

const sha1 = (script: string) => createHash('sha1').update(script).digest('hex');
const SAVE_SHA = sha1(SAVE);

/** Runs a script by SHA (EVALSHA), sending its text only when Redis does not know it (NOSCRIPT; ADR 82). */
export async function runScript(redis: RedisClient, script: string, sha: string, keys: number, args: string[]): Promise<unknown> {
  try {
    return await redis.evalsha(sha, keys, ...args);
  } catch (error) {
    if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error;
    return redis.eval(script, keys, ...args);
  }
}

export const scriptSha = sha1;

export class RedisTaskStore implements TaskStore {
  readonly publishesOnSave = true;

  private readonly retention: string;
  private readonly maxTaskBytes: string;
  private readonly maxOwnerBytes: string;
  /** Owner → its keys: the hash is computed once per owner, not on every call (bounded). */
  private readonly keysByOwner = new Map<string, OwnerKeys & { stored?: number }>();

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly limits: TaskStoreLimits = DEFAULT_TASK_LIMITS,
  ) {
    this.retention = String(limits.retentionMs);
    this.maxTaskBytes = String(limits.maxTaskBytes);
    this.maxOwnerBytes = String(limits.maxOwnerBytes);
  }

  /**
   * Saves the record and, in the same script, publishes `publish` (one message or several, in
   * order) when the save succeeds. `unlessTerminal`: nothing is written when the stored task is
   * already terminal (a cancel from any replica); that stored record is returned instead (ADR 0285).
   */
  async save(
    record: TaskRecord,
    publish?: PublishOnSave | readonly PublishOnSave[],
    options?: SaveOptions,
  ): Promise<TaskRecord | undefined> {
    const o = this.ownerKeys(record.owner);
    const list = publish === undefined ? [] : 'channel' in publish ? [publish] : publish;
    const args = [
      o.task(record.task.id),
      o.index,
      o.sizes,
      o.bytes,
      o.created,
      record.task.id,
      this.jsonOf(record),
      String(record.updatedAt),
      this.retention,
      this.maxTaskBytes,
      this.maxOwnerBytes,
      o.base,
      record.owner === ANONYMOUS_OWNER ? '1' : '0',
      String(Date.now()),
      options?.unlessTerminal ? '1' : '0',
      list[0]?.channel ?? '',
    ];
    for (const p of list) args.push(p.message);
    const [code, value, total] = (await onTaskStore(this.redis, () => runScript(this.redis, SAVE, SAVE_SHA, 5, args))) as [
      number,
      number | string,
      number?,
    ];
    // What the owner holds, as this node last saw it (surelyAccepts); a refusal forgets it.
    o.stored = code === 0 ? total : undefined;
    if (code === 1) throw taskTooLarge(value as number, this.limits.maxTaskBytes);
    if (code === 2) throw ownerQuotaExceeded(this.limits.maxOwnerBytes);
    if (code === 3) return parseRecord(value as string);
    return undefined;
  }

  async get(id: string, owner: string): Promise<TaskRecord | undefined> {
    // Keyed under the owner: another owner's task id finds nothing.
    const key = this.ownerKeys(owner).task(id);
    const json = await onTaskStore(this.redis, () => this.redis.get(key));
    if (json === null) return undefined;
    const record = parseRecord(json);
    return record.owner === owner ? record : undefined;
  }

  async list(owner: string, query: TaskQuery): Promise<TaskPage> {
    // Never listed, so never indexed (ADR 0399).
    if (owner === ANONYMOUS_OWNER) return { records: [], total: 0 };
    const o = this.ownerKeys(owner);
    const min = query.after === undefined ? '-inf' : `(${query.after}`;
    const ids = await onTaskStore(this.redis, () => this.redis.zrevrangebyscore(o.index, '+inf', min));
    const records: TaskRecord[] = [];
    const gone: string[] = [];
    for (let i = 0; i < ids.length; i += CHUNK) {
      const slice = ids.slice(i, i + CHUNK);
      const jsons = await onTaskStore(this.redis, () => this.redis.mget(slice.map((id) => o.task(id))));
      jsons.forEach((json, j) => {
        if (json === null) gone.push(slice[j]);
        else records.push(parseRecord(json));
      });
    }
    if (gone.length > 0) await onTaskStore(this.redis, () => this.redis.eval(FORGET, 4, o.index, o.sizes, o.bytes, o.created, ...gone));
    const sorted = records
      .filter((r) => r.owner === owner && matches(r, query))
      .sort((a, b) => (before({ at: a.updatedAt, id: a.task.id }, { at: b.updatedAt, id: b.task.id }) ? -1 : 1));
    return pageOf(sorted, query);
  }

  surelyAccepts(record: TaskRecord): boolean {
    if (redisAway(this.redis)) return false;
    const json = serializeRecord(record);
    // The save that follows reuses these bytes (the record it gets is built anew around the same task).
    this.serialized.set(record.task, { record, json });
    return surelyFits(this.limits, record, this.ownerKeys(record.owner).stored, recordBytes(json));
  }

  /** Records serialized by surelyAccepts, by their task object, until their save (or the task's collection). */
  private readonly serialized = new WeakMap<TaskRecord['task'], { record: TaskRecord; json: string }>();

  /** `record` as JSON: the bytes surelyAccepts made for a record with the same content, or new ones. */
  private jsonOf(record: TaskRecord): string {
    const known = this.serialized.get(record.task);
    if (known) {
      this.serialized.delete(record.task);
      const k = known.record;
      const same =
        k.seq === record.seq &&
        k.updatedAt === record.updatedAt &&
        k.owner === record.owner &&
        k.tenant === record.tenant &&
        k.capabilityId === record.capabilityId &&
        k.upstream === record.upstream;
      if (same) return known.json;
    }
    return serializeRecord(record);
  }

  /** The owner's stored bytes as the limit sees them (tests and metrics). */
  async bytesOf(owner: string): Promise<number> {
    return Number((await this.redis.get(this.ownerKeys(owner).bytes)) ?? 0);
  }

  private ownerKeys(owner: string): OwnerKeys & { stored?: number } {
    let keys: (OwnerKeys & { stored?: number }) | undefined = this.keysByOwner.get(owner);
    if (keys) return keys;
    keys = ownerKeys(this.prefix, owner);
    // Owners are callers: forget them all past the bound rather than keep an LRU's bookkeeping.
    if (this.keysByOwner.size >= OWNER_KEYS_CACHED) this.keysByOwner.clear();
    this.keysByOwner.set(owner, keys);
    return keys;
  }
}

export interface OwnerKeys {
  /** `<prefix>a2a:{<h>}:`: every key of the owner starts with it (one hash slot). */
  base: string;
  task: (id: string) => string;
  index: string;
  sizes: string;
  bytes: string;
  created: string;
}

/** The owner's keys; the push backlog keeps its bodies and counters beside them (push-backlog.ts). */
export function ownerKeys(prefix: string, owner: string): OwnerKeys {
  // Hashed: owner keys hold caller-controlled text; the hash keeps Redis keys short and plain
  // (and free of braces, which would move the hash tag).
  const h = createHash('sha256').update(owner).digest('base64url').slice(0, 32);
  const base = `${prefix}a2a:{${h}}:`;
  return {
    base,
    task: (id) => `${base}task:${id}`,
    index: `${base}index`,
    sizes: `${base}sizes`,
    bytes: `${base}bytes`,
    created: `${base}created`,
  };
}
