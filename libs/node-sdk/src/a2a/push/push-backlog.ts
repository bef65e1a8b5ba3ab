/**
 * Undelivered push notifications, bounded (issue 27, ADR 0202). Each update's body is stored ONCE
 * under its task's owner, whatever the number of configs that receive it; the queued jobs only
 * name it. A body counts in the owner's byte budget (the task store's `sizes`/`bytes`, so tasks
 * and notifications share one limit) and in four bounds: queued jobs and bytes per task and per
 * owner. A body is dropped when the last job naming it is settled (delivered, final failure,
 * config deleted), and expires with the task retention regardless.
 *
 * Redis, beside the owner's task keys (one hash slot per owner, ADR 0151):
 *   <base>push:<id>   hash b (the body), r (jobs still naming it), t (its task id)
 *   <base>pushq       hash j / b (the owner's queued jobs / bytes), j:<task> / b:<task> (the task's)
 */
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '@cp/common/core';
import { EVICT_OLDEST_LUA, ownerKeys, runScript, scriptSha } from '../redis-task-store';
import { ANONYMOUS_OWNER } from '../task-store';

export interface PushBacklogLimits {
  /** Undelivered notifications (one per update and config) of one task, and of one owner. */
  maxTaskJobs: number;
  maxOwnerJobs: number;
  /** Bytes of one task's, and one owner's, queued bodies (each body counted once). */
  maxTaskBytes: number;
  maxOwnerBytes: number;
}

export const DEFAULT_PUSH_BACKLOG_LIMITS: PushBacklogLimits = {
  maxTaskJobs: 100,
  maxOwnerJobs: 1000,
  maxTaskBytes: 2_097_152,
  maxOwnerBytes: 8_388_608,
};

export type HoldResult = { ok: true; id: string } | { ok: false; reason: string };

export interface PushBacklog {
  /** Stores `body` once for `jobs` deliveries of the task's update; refused (nothing stored) past a bound. */
  hold(owner: string, taskId: string, body: string, jobs: number): Promise<HoldResult>;
  /** The body, or undefined once settled, expired or evicted with its owner's pool. */
  read(owner: string, id: string): Promise<string | undefined>;
  /** One job naming the body is settled; the last one frees it. Idempotent per job is the caller's part. */
  release(owner: string, id: string): Promise<void>;
  /** Why the task cannot take one more config now (its or its owner's backlog is full), or undefined. */
  full(owner: string, taskId: string): Promise<string | undefined>;
}

const reasons = (l: PushBacklogLimits, taskId: string, code: number, n: number): string =>
  [
    '',
    `task ${taskId} already has ${n} undelivered push notifications queued (at most ${l.maxTaskJobs})`,
    `task ${taskId} already has ${n} bytes of undelivered push notifications queued (at most ${l.maxTaskBytes})`,
    `your tasks already have ${n} undelivered push notifications queued (at most ${l.maxOwnerJobs})`,
    `your tasks already have ${n} bytes of undelivered push notifications queued (at most ${l.maxOwnerBytes})`,
    `your tasks and queued notifications would exceed your stored-bytes budget (${n} bytes)`,
  ][code];

// KEYS body, sizes, bytes, pushq, created, index. ARGV 1 field (push:<id>), 2 body, 3 jobs, 4 task id,
// 5 retention, 6 owner budget, 7-10 task jobs, task bytes, owner jobs, owner bytes, 11 owner base,
// 12 '1' = the anonymous pool (evicts its oldest tasks rather than drop the notification).
// Returns {0, size} held, or {code, count} refused (codes as in `reasons`).
const HOLD = `
${EVICT_OLDEST_LUA}
local size = string.len(ARGV[2])
local jobs = tonumber(ARGV[3])
local function count(f) return tonumber(redis.call('HGET', KEYS[4], f) or '0') end
local tj, tb, oj, ob = count('j:' .. ARGV[4]), count('b:' .. ARGV[4]), count('j'), count('b')
if tj + jobs > tonumber(ARGV[7]) then return {1, tj} end
if tb + size > tonumber(ARGV[8]) then return {2, tb} end
if oj + jobs > tonumber(ARGV[9]) then return {3, oj} end
if ob + size > tonumber(ARGV[10]) then return {4, ob} end
local limit = tonumber(ARGV[6])
local total = tonumber(redis.call('GET', KEYS[3]) or '0') + size
if total > limit and ARGV[12] == '1' then total = evictOldest(KEYS[5], KEYS[2], KEYS[6], ARGV[11], ARGV[4], total, limit) end
if total > limit then return {5, total} end
redis.call('HSET', KEYS[1], 'b', ARGV[2], 'r', jobs, 't', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('HSET', KEYS[2], ARGV[1], size)
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('SET', KEYS[3], total, 'PX', ARGV[5])
redis.call('HINCRBY', KEYS[4], 'j:' .. ARGV[4], jobs)
redis.call('HINCRBY', KEYS[4], 'b:' .. ARGV[4], size)
redis.call('HINCRBY', KEYS[4], 'j', jobs)
redis.call('HINCRBY', KEYS[4], 'b', size)
redis.call('PEXPIRE', KEYS[4], ARGV[5])
return {0, size}
`;

// KEYS body, sizes, bytes, pushq. ARGV field. Counters drop fields that reach zero.
const RELEASE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local t = redis.call('HGET', KEYS[1], 't')
local function dec(f, n) if redis.call('HINCRBY', KEYS[4], f, -n) <= 0 then redis.call('HDEL', KEYS[4], f) end end
dec('j:' .. t, 1)
dec('j', 1)
if redis.call('HINCRBY', KEYS[1], 'r', -1) > 0 then return 1 end
local size = redis.call('HSTRLEN', KEYS[1], 'b')
redis.call('DEL', KEYS[1])
if redis.call('HDEL', KEYS[2], ARGV[1]) == 1 and redis.call('EXISTS', KEYS[3]) == 1 then redis.call('DECRBY', KEYS[3], size) end
dec('b:' .. t, size)
dec('b', size)
return 2
`;

const HOLD_SHA = scriptSha(HOLD);
const RELEASE_SHA = scriptSha(RELEASE);

export class RedisPushBacklog implements PushBacklog {
  constructor(
    private readonly redis: RedisClient,
    /** The task store's prefix: bodies count in the same owner budget. */
    private readonly prefix: string,
    private readonly ownerBudget: { maxOwnerBytes: number; retentionMs: number },
    private readonly limits: PushBacklogLimits = DEFAULT_PUSH_BACKLOG_LIMITS,
  ) {}

  private keys(owner: string, id: string) {
    const o = ownerKeys(this.prefix, owner);
    return { ...o, field: `push:${id}`, body: `${o.base}push:${id}`, pushq: `${o.base}pushq` };
  }

  async hold(owner: string, taskId: string, body: string, jobs: number): Promise<HoldResult> {
    const id = randomUUID();
    const k = this.keys(owner, id);
    const l = this.limits;
    const [code, n] = (await runScript(this.redis, HOLD, HOLD_SHA, 6, [
      k.body,
      k.sizes,
      k.bytes,
      k.pushq,
      k.created,
      k.index,
      k.field,
      body,
      String(jobs),
      taskId,
      String(this.ownerBudget.retentionMs),
      String(this.ownerBudget.maxOwnerBytes),
      String(l.maxTaskJobs),
      String(l.maxTaskBytes),
      String(l.maxOwnerJobs),
      String(l.maxOwnerBytes),
      k.base,
      owner === ANONYMOUS_OWNER ? '1' : '0',
    ])) as [number, number];
    return code === 0 ? { ok: true, id } : { ok: false, reason: reasons(l, taskId, code, n) };
  }

  async read(owner: string, id: string): Promise<string | undefined> {
    return (await this.redis.hget(this.keys(owner, id).body, 'b')) ?? undefined;
  }

  async release(owner: string, id: string): Promise<void> {
    const k = this.keys(owner, id);
    await runScript(this.redis, RELEASE, RELEASE_SHA, 4, [k.body, k.sizes, k.bytes, k.pushq, k.field]);
  }

  async full(owner: string, taskId: string): Promise<string | undefined> {
    const [tj, tb, oj, ob] = (await this.redis.hmget(this.keys(owner, '').pushq, `j:${taskId}`, `b:${taskId}`, 'j', 'b')).map(Number);
    return fullReason(this.limits, taskId, tj, tb, oj, ob);
  }
}

function fullReason(l: PushBacklogLimits, taskId: string, tj: number, tb: number, oj: number, ob: number): string | undefined {
  if (tj >= l.maxTaskJobs) return reasons(l, taskId, 1, tj);
  if (tb >= l.maxTaskBytes) return reasons(l, taskId, 2, tb);
  if (oj >= l.maxOwnerJobs) return reasons(l, taskId, 3, oj);
  if (ob >= l.maxOwnerBytes) return reasons(l, taskId, 4, ob);
  return undefined;
}

/** For unit tests: the same bounds, no owner budget (the in-memory task store keeps its own). */
export class InMemoryPushBacklog implements PushBacklog {
  private readonly bodies = new Map<string, { owner: string; taskId: string; body: string; jobs: number }>();

  constructor(private readonly limits: PushBacklogLimits = DEFAULT_PUSH_BACKLOG_LIMITS) {}

  private sums(owner: string, taskId: string): [number, number, number, number] {
    let [tj, tb, oj, ob] = [0, 0, 0, 0];
    for (const b of this.bodies.values()) {
      if (b.owner !== owner) continue;
      oj += b.jobs;
      ob += b.body.length;
      if (b.taskId === taskId) [tj, tb] = [tj + b.jobs, tb + b.body.length];
    }
    return [tj, tb, oj, ob];
  }

  async hold(owner: string, taskId: string, body: string, jobs: number): Promise<HoldResult> {
    const [tj, tb, oj, ob] = this.sums(owner, taskId);
    const l = this.limits;
    const code =
      tj + jobs > l.maxTaskJobs
        ? 1
        : tb + body.length > l.maxTaskBytes
          ? 2
          : oj + jobs > l.maxOwnerJobs
            ? 3
            : ob + body.length > l.maxOwnerBytes
              ? 4
              : 0;
    if (code !== 0) return { ok: false, reason: reasons(l, taskId, code, [tj, tb, oj, ob][code - 1]) };
    const id = randomUUID();
    this.bodies.set(id, { owner, taskId, body, jobs });
    return { ok: true, id };
  }

  async read(owner: string, id: string): Promise<string | undefined> {
    const b = this.bodies.get(id);
    return b && b.owner === owner ? b.body : undefined;
  }

  async release(owner: string, id: string): Promise<void> {
    const b = this.bodies.get(id);
    if (!b || b.owner !== owner) return;
    if (--b.jobs <= 0) this.bodies.delete(id);
  }

  async full(owner: string, taskId: string): Promise<string | undefined> {
    return fullReason(this.limits, taskId, ...this.sums(owner, taskId));
  }

  /** Bodies still held (tests). */
  get size(): number {
    return this.bodies.size;
  }
}
