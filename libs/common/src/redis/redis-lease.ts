import { randomBytes } from 'node:crypto';
import type { RedisClient } from './redis-client';

/** Renews the lease when this holder has it, takes it when nobody does; 1 = held by us. */
const HOLD = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0`;

const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * A lease on one Redis key: among the processes that share a Redis, at most one holds it at a
 * time (ADR 0150). The holder renews it on every tick of its periodic work; a holder that dies
 * stops renewing and another process takes over once `ttlMs` has passed. One key, so it works
 * the same on Redis Cluster.
 */
export class RedisLease {
  /** This holder's token (random per process and lease). */
  readonly token = randomBytes(12).toString('hex');

  constructor(
    private readonly redis: RedisClient,
    readonly key: string,
    private readonly ttlMs: number,
  ) {}

  /** true when this process holds the lease now (taken or renewed for another `ttlMs`). */
  async hold(): Promise<boolean> {
    return Number(await this.redis.eval(HOLD, 1, this.key, this.token, String(this.ttlMs))) === 1;
  }

  /** Gives the lease up at once (a graceful shutdown), so another process need not wait for it to expire. */
  async release(): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.key, this.token);
  }
}
