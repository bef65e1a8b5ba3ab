import fc from 'fast-check';
import { mergeCoverage, unknownUsage, type NodeUsageState, type UsageCoverage } from './coverage';

const t = (minutes: number) => new Date(Date.UTC(2026, 10, 1) + minutes * 60_000);
const win = (from: number, to: number, final = false) => ({ windowStart: t(from), windowEnd: t(to), final });

describe('mergeCoverage', () => {
  it('chains contiguous windows into one span', () => {
    let c: UsageCoverage | null = null;
    for (let i = 0; i < 5; i++) c = mergeCoverage(c, win(i, i + 1));
    expect(c).toEqual({ coveredFrom: t(0), coveredUntil: t(5), closed: false });
  });

  it('restarts the span after a gap (the gap is unknown)', () => {
    const c = mergeCoverage(mergeCoverage(null, win(0, 1)), win(3, 4));
    expect(c).toEqual({ coveredFrom: t(3), coveredUntil: t(4), closed: false });
  });

  it('bridges a gap after a final batch (the node was down, serving nothing) and reopens', () => {
    const closed = mergeCoverage(null, win(0, 1, true));
    expect(closed.closed).toBe(true);
    expect(mergeCoverage(closed, win(10, 11))).toEqual({ coveredFrom: t(0), coveredUntil: t(11), closed: false });
  });

  it('extends backwards with a late older window and ignores a stale disjoint one', () => {
    const c = mergeCoverage(null, win(5, 6));
    expect(mergeCoverage(c, win(4, 5))).toEqual({ coveredFrom: t(4), coveredUntil: t(6), closed: false });
    expect(mergeCoverage(c, win(1, 2))).toBe(c);
  });

  it('property: windows reported in order without gaps always cover exactly [first start, last end]', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 30 }), { minLength: 1, maxLength: 40 }), fc.boolean(), (lengths, finalLast) => {
        let c: UsageCoverage | null = null;
        let at = 0;
        lengths.forEach((len, i) => {
          c = mergeCoverage(c, win(at, at + len, finalLast && i === lengths.length - 1));
          at += len;
        });
        expect(c).toEqual({ coveredFrom: t(0), coveredUntil: t(at), closed: finalLast });
      }),
    );
  });

  it('property: the span never claims a moment no reported window covered', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 20 })), { minLength: 1, maxLength: 30 }),
        (windows) => {
          let c: UsageCoverage | null = null;
          for (const [start, len] of windows) c = mergeCoverage(c, win(start, start + len));
          const span = c as unknown as UsageCoverage;
          // Every minute inside the span is inside some reported window (no final batches here).
          for (let m = span.coveredFrom.getTime(); m < span.coveredUntil.getTime(); m += 60_000) {
            expect(windows.some(([s, len]) => t(s).getTime() <= m && m < t(s + len).getTime())).toBe(true);
          }
        },
      ),
    );
  });
});

describe('unknownUsage', () => {
  const now = t(60 * 24 * 40);
  const since = t(60 * 24 * 10);
  const grace = 10 * 60_000;
  const node = (over: Partial<NodeUsageState>): NodeUsageState => ({
    nodeId: 'n1',
    registeredAt: t(0),
    lastSeenAt: now,
    coverage: { coveredFrom: t(0), coveredUntil: now, closed: false },
    usedInWindow: false,
    ...over,
  });

  it('is null when the node covered the whole window up to now - grace', () => {
    expect(
      unknownUsage(
        node({ coverage: { coveredFrom: t(0), coveredUntil: new Date(now.getTime() - grace), closed: false } }),
        since,
        now,
        grace,
      ),
    ).toBeNull();
  });

  it('names the tail a node has not reported yet', () => {
    const until = t(60 * 24 * 39);
    expect(unknownUsage(node({ coverage: { coveredFrom: t(0), coveredUntil: until, closed: false } }), since, now, grace)).toEqual({
      nodeId: 'n1',
      from: until,
      until: now,
    });
  });

  it('names the start of the window when coverage begins late (a gap restarted it)', () => {
    const from = t(60 * 24 * 20);
    expect(unknownUsage(node({ coverage: { coveredFrom: from, coveredUntil: now, closed: false } }), since, now, grace)).toEqual({
      nodeId: 'n1',
      from: since,
      until: from,
    });
  });

  it('only requires coverage from registration for a node registered inside the window', () => {
    const registeredAt = t(60 * 24 * 30);
    expect(
      unknownUsage(
        node({ registeredAt, coverage: { coveredFrom: new Date(registeredAt.getTime() + 1000), coveredUntil: now, closed: false } }),
        since,
        now,
        grace,
      ),
    ).toBeNull();
  });

  it('treats a node that never reported as unknown from its registration (or the window start)', () => {
    expect(unknownUsage(node({ coverage: null }), since, now, grace)).toEqual({ nodeId: 'n1', from: since, until: now });
  });

  it('accepts a closed span ending before now (the node shut down cleanly)', () => {
    expect(
      unknownUsage(
        node({ lastSeenAt: t(60 * 24 * 20), coverage: { coveredFrom: t(0), coveredUntil: t(60 * 24 * 20), closed: true } }),
        since,
        now,
        grace,
      ),
    ).toBeNull();
  });

  it('ignores a node that did not serve inside the window', () => {
    expect(
      unknownUsage(node({ lastSeenAt: t(60), coverage: { coveredFrom: t(0), coveredUntil: t(60), closed: false } }), since, now, grace),
    ).toBeNull();
    expect(
      unknownUsage(
        node({ lastSeenAt: t(60), usedInWindow: true, coverage: { coveredFrom: t(0), coveredUntil: t(60), closed: false } }),
        since,
        now,
        grace,
      ),
    ).not.toBeNull();
  });
});
