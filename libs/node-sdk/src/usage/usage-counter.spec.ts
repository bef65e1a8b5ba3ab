import { LATENCY_BOUNDS_MS, LATENCY_BUCKETS, usageCountSchema } from '@cp/node-protocol';
import { latencyBucket, UsageCounter } from './usage-counter';

describe('UsageCounter', () => {
  it('puts a duration in the first bucket whose bound it does not exceed, and above the last in the last', () => {
    expect(latencyBucket(0)).toBe(0);
    expect(latencyBucket(5)).toBe(0);
    expect(latencyBucket(5.01)).toBe(1);
    expect(latencyBucket(60_000)).toBe(LATENCY_BOUNDS_MS.length - 1);
    expect(latencyBucket(60_001)).toBe(LATENCY_BUCKETS - 1);
  });

  it('counts outcomes and latency per capability and tenant beside the calls, in a shape the wire accepts', () => {
    const c = new UsageCounter();
    c.record('b', 't1', 1000);
    c.record('a', 't2', 1000);
    c.record('a', 't1', 1001);
    c.outcome('a', 't1', 'completed', 3, 1002);
    c.outcome('a', 't1', 'failed', 700, 1003);
    c.outcome('a', 't1', 'refused', 0, 1003);
    const drained = c.drain();
    expect(drained.map((e) => `${e.capabilityId}/${e.tenant}`)).toEqual(['a/t1', 'a/t2', 'b/t1']);
    const [a1, a2] = drained;
    expect(a1.outcomes).toEqual({ completed: 1, failed: 1, rejected: 0, canceled: 0, refused: 1, inputRequired: 0 });
    expect(a1.latencyMs![0]).toBe(1);
    expect(a1.latencyMs![latencyBucket(700)]).toBe(1);
    expect(a1.latencyMs!.reduce((s, n) => s + n, 0)).toBe(2);
    // No outcome in the window: the older shape, without the new fields.
    expect(a2).toEqual({ capabilityId: 'a', tenant: 't2', count: 1, lastCallAt: new Date(1000).toISOString() });
    for (const e of drained) expect(usageCountSchema.safeParse(e).success).toBe(true);
    expect(c.drain()).toEqual([]);
  });

  it('a call that ends in a later window is an entry with a count of 0, dated at its outcome', () => {
    const c = new UsageCounter();
    c.outcome('a', 't', 'canceled', 20, 5000);
    const [e] = c.drain();
    expect([e.count, e.lastCallAt, e.outcomes?.canceled]).toEqual([0, new Date(5000).toISOString(), 1]);
    expect(usageCountSchema.safeParse(e).success).toBe(true);
  });
});
