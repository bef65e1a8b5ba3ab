import { Redis } from 'ioredis';
import { RedisLease } from './redis-lease';

/** The relay's lease (ADR 150) against the real Redis: at most one holder, renewal, hand-over. */
describe('RedisLease', () => {
  const redis = new Redis('redis://127.0.0.1:6379');
  const key = `test:lease:${process.pid}:${Date.now()}`;
  afterAll(async () => {
    await redis.del(key);
    redis.disconnect();
  });
  const until = async (done: () => Promise<boolean>) => {
    while (!(await done())) await new Promise((r) => setTimeout(r, 50));
  };

  it('lets one of several contenders hold it; the holder renews, the others keep being refused', async () => {
    const leases = Array.from({ length: 5 }, () => new RedisLease(redis, key, 10_000));
    const first = await Promise.all(leases.map((l) => l.hold()));
    expect(first.filter(Boolean)).toHaveLength(1);
    const holder = leases[first.indexOf(true)];
    for (let i = 0; i < 3; i++) {
      // Nearly expired: holding again renews it to the full lifetime; nobody else gets it.
      await redis.pexpire(key, 500);
      expect(await holder.hold()).toBe(true);
      expect(await redis.pttl(key)).toBeGreaterThan(5_000);
      for (const other of leases.filter((l) => l !== holder)) expect(await other.hold()).toBe(false);
    }
    expect(await redis.get(key)).toBe(holder.token);
    await holder.release();
    expect(await redis.get(key)).toBeNull();
  });

  it('passes to another process once the holder stops renewing; a late release by the old holder frees nothing', async () => {
    // a lives 200 ms; b, once it holds, long enough to outlast the slowest machine.
    const [a, b] = [new RedisLease(redis, key, 200), new RedisLease(redis, key, 10_000)];
    expect(await a.hold()).toBe(true);
    expect(await b.hold()).toBe(false);
    // a stops renewing (dead or paused): once the lifetime has passed, b takes over.
    await until(async () => (await redis.exists(key)) === 0);
    expect(await b.hold()).toBe(true);
    // a comes back: it is refused, and its release does not delete b's lease.
    expect(await a.hold()).toBe(false);
    await a.release();
    expect(await redis.get(key)).toBe(b.token);
    await b.release();
  });
});
