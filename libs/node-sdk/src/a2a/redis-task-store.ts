/**
 * Tasks in Redis, shared by every replica of an agent's node and surviving restarts (`<h>`: a
 * hash of the owner; the braces are a Redis Cluster hash tag, so one owner's keys share a slot and
 * the save script and ListTasks' MGET stay single-slot, ADR 0151):
 *   <prefix>a2a:{<h>}:task:<id>   the record as JSON, expiring `retentionMs` after its last save
 *   <prefix>a2a:{<h>}:index       sorted set id → status time (ListTasks, newest first)
 *   <prefix>a2a:{<h>}:sizes       hash id → stored bytes
 *   <prefix>a2a:{<h>}:bytes       the owner's stored bytes (tasks and queued push bodies)
 *   <prefix>a2a:{<h>}:created     sorted set id → creation time (the anonymous pool only: eviction order)
 * A save is one Lua script, so the byte limits hold across replicas. The anonymous pool, full,
 * evicts its oldest tasks in that script instead of refusing (ADR 0201); named owners are refused. Expired tasks leave their
 * index entries behind; a save over the owner limit and ListTasks forget them. The script also
 * PUBLISHes the change when given one, so save and fan-out are one round trip and no replica can
 * see an event whose state is not stored (ADR 82). Scripts run by SHA (EVALSHA), loaded on NOSCRIPT.
 * With Redis away every call refuses at once with a retriable 503 (store-unavailable.ts, ADR 0240).
 */
import { createHash } from 'node:crypto';
import type { RedisClient } from '@cp/common/core';
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
} from './task-store';
import { onTaskStore } from './store-unavailable';

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

// KEYS task, index, sizes, bytes, created. ARGV 1 id, 2 json, 3 status time, 4 retention, 5 task limit,
// 6 owner limit, 7 the owner's key base, 8-9 channel and message, 10 '1' = evict (the anonymous
// pool), 11 now. Returns {0, bytes} saved, {1, bytes} task too large, {2, bytes} owner over its limit.
const SAVE = `
${EVICT_OLDEST_LUA}
local size = string.len(ARGV[2])
if size > tonumber(ARGV[5]) then return {1, size} end
local limit = tonumber(ARGV[6])
if size > limit then return {2, size} end
local old = tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '0')
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
  if ARGV[10] == '1' then
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
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('SET', KEYS[4], total, 'PX', ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
if ARGV[10] == '1' then
  -- Creation order, even for tasks created in the same millisecond (equal scores would order by
  -- id): a new task scores after the youngest one. Only the order is read, never the time.
  if not redis.call('ZSCORE', KEYS[5], ARGV[1]) then
    local score = tonumber(ARGV[11])
    local youngest = redis.call('ZRANGE', KEYS[5], -1, -1, 'WITHSCORES')
    if youngest[2] and tonumber(youngest[2]) >= score then score = tonumber(youngest[2]) + 1 end
    redis.call('ZADD', KEYS[5], score, ARGV[1])
  end
  redis.call('PEXPIRE', KEYS[5], ARGV[4])
end
if ARGV[8] ~= '' then redis.call('PUBLISH', ARGV[8], ARGV[9]) end
return {0, size}
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

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly limits: TaskStoreLimits = DEFAULT_TASK_LIMITS,
  ) {}

  /** Saves the record and, in the same script, publishes `publish` when the save succeeds. */
  async save(record: TaskRecord, publish?: PublishOnSave): Promise<void> {
    const o = this.ownerKeys(record.owner);
    const args = [
      o.task(record.task.id),
      o.index,
      o.sizes,
      o.bytes,
      o.created,
      record.task.id,
      JSON.stringify(record),
      String(record.updatedAt),
      String(this.limits.retentionMs),
      String(this.limits.maxTaskBytes),
      String(this.limits.maxOwnerBytes),
      o.base,
      publish?.channel ?? '',
      publish?.message ?? '',
      record.owner === ANONYMOUS_OWNER ? '1' : '0',
      String(Date.now()),
    ];
    const [code, bytes] = (await onTaskStore(this.redis, () => runScript(this.redis, SAVE, SAVE_SHA, 5, args))) as [number, number];
    if (code === 1) throw taskTooLarge(bytes, this.limits.maxTaskBytes);
    if (code === 2) throw ownerQuotaExceeded(this.limits.maxOwnerBytes);
  }

  async get(id: string, owner: string): Promise<TaskRecord | undefined> {
    // Keyed under the owner: another owner's task id finds nothing.
    const key = this.ownerKeys(owner).task(id);
    const json = await onTaskStore(this.redis, () => this.redis.get(key));
    if (json === null) return undefined;
    const record = JSON.parse(json) as TaskRecord;
    return record.owner === owner ? record : undefined;
  }

  async list(owner: string, query: TaskQuery): Promise<TaskPage> {
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
        else records.push(JSON.parse(json) as TaskRecord);
      });
    }
    if (gone.length > 0) await onTaskStore(this.redis, () => this.redis.eval(FORGET, 4, o.index, o.sizes, o.bytes, o.created, ...gone));
    const sorted = records
      .filter((r) => r.owner === owner && matches(r, query))
      .sort((a, b) => (before({ at: a.updatedAt, id: a.task.id }, { at: b.updatedAt, id: b.task.id }) ? -1 : 1));
    return pageOf(sorted, query);
  }

  /** The owner's stored bytes as the limit sees them (tests and metrics). */
  async bytesOf(owner: string): Promise<number> {
    return Number((await this.redis.get(this.ownerKeys(owner).bytes)) ?? 0);
  }

  private ownerKeys(owner: string): OwnerKeys {
    return ownerKeys(this.prefix, owner);
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
