import fc from 'fast-check';
import { batchIdRetentionCutoff, isPastBatchIdRetention } from './batch-retention';

const DAY = 86_400_000;
const instant = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2040, 0, 1) }).map((t) => new Date(t));

describe('batch-id retention cutoff', () => {
  it('is exactly retentionDays before now', () => {
    expect(batchIdRetentionCutoff(new Date('2026-11-30T12:00:00Z'), 35)).toEqual(new Date('2026-10-26T12:00:00Z'));
  });

  it('treats a window ending exactly at the cutoff as still retained', () => {
    const now = new Date('2026-11-30T00:00:00Z');
    expect(isPastBatchIdRetention(new Date(now.getTime() - 35 * DAY), now, 35)).toBe(false);
    expect(isPastBatchIdRetention(new Date(now.getTime() - 35 * DAY - 1), now, 35)).toBe(true);
  });

  it('never lets a retry be accepted after its id was pruned (exactly-once)', () => {
    fc.assert(
      fc.property(
        instant,
        fc.integer({ min: 2, max: 400 }),
        fc.integer({ min: 0, max: 500 * DAY }),
        fc.integer({ min: 0, max: 500 * DAY }),
        (windowEnd, days, pruneAfter, retryAfter) => {
          const pruneAt = new Date(windowEnd.getTime() + pruneAfter);
          const retryAt = new Date(pruneAt.getTime() + retryAfter);
          const pruned = isPastBatchIdRetention(windowEnd, pruneAt, days);
          const accepted = !isPastBatchIdRetention(windowEnd, retryAt, days);
          // A pruned id whose retry were still accepted would count the batch twice.
          expect(pruned && accepted).toBe(false);
        },
      ),
    );
  });
});
