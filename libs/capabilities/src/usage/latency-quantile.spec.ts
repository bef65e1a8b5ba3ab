import fc from 'fast-check';
import { latencyQuantile } from './latency-quantile';

const BOUNDS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000];
const counts = fc.array(fc.nat({ max: 1_000_000 }), { minLength: BOUNDS.length + 1, maxLength: BOUNDS.length + 1 });

describe('latencyQuantile', () => {
  it('interpolates linearly inside the bucket the rank falls in (as histogram_quantile)', () => {
    const b = new Array<number>(BOUNDS.length + 1).fill(0);
    b[0] = 50; // ≤ 5 ms
    b[4] = 50; // (50, 100] ms
    expect(latencyQuantile(b, BOUNDS, 0.5)).toBe(5);
    expect(latencyQuantile(b, BOUNDS, 0.25)).toBe(2.5);
    expect(latencyQuantile(b, BOUNDS, 0.95)).toBe(95);
    expect(latencyQuantile(b, BOUNDS, 1)).toBe(100);
  });

  it('answers the last bound for ranks above it, and nothing without calls', () => {
    const b = new Array<number>(BOUNDS.length + 1).fill(0);
    b[BOUNDS.length] = 3;
    expect(latencyQuantile(b, BOUNDS, 0.5)).toBe(60_000);
    expect(latencyQuantile(new Array<number>(BOUNDS.length + 1).fill(0), BOUNDS, 0.5)).toBeUndefined();
  });

  it('refuses buckets that do not match the bounds and quantiles outside [0, 1]', () => {
    expect(() => latencyQuantile([1], BOUNDS, 0.5)).toThrow(RangeError);
    expect(() => latencyQuantile(new Array<number>(BOUNDS.length + 1).fill(1), BOUNDS, Number.NaN)).toThrow(RangeError);
  });

  it('is monotone in q and lies within the bounds of the buckets that hold calls', () => {
    fc.assert(
      fc.property(counts, fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (b, q1, q2) => {
        const [lo, hi] = q1 <= q2 ? [q1, q2] : [q2, q1];
        const a = latencyQuantile(b, BOUNDS, lo);
        const c = latencyQuantile(b, BOUNDS, hi);
        if (b.every((n) => n === 0)) return a === undefined && c === undefined;
        const first = b.findIndex((n) => n > 0);
        const last = b.length - 1 - [...b].reverse().findIndex((n) => n > 0);
        const min = first === 0 ? 0 : BOUNDS[Math.min(first, BOUNDS.length) - 1];
        const max = BOUNDS[Math.min(last, BOUNDS.length - 1)];
        return a! <= c! + 1e-9 && a! >= min - 1e-9 && c! <= max + 1e-9;
      }),
    );
  });
});
