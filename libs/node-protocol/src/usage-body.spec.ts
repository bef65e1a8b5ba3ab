import { LATENCY_BUCKETS, MAX_CALLS_PER_BATCH, MAX_COUNT_PER_ENTRY, usageBatchSchema, usageCountSchema } from './usage-body';

const entry = (over: Record<string, unknown> = {}) => ({
  capabilityId: 'invoice-lookup',
  tenant: 'acme',
  count: 2,
  lastCallAt: '2026-12-01T10:00:00.000Z',
  outcomes: { completed: 1, failed: 1, refused: 1 },
  latencyMs: [1, 1, ...new Array<number>(LATENCY_BUCKETS - 2).fill(0)],
  ...over,
});
const issues = (value: unknown) => {
  const r = usageCountSchema.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('the usage wire body with outcomes and latency (ADR 0310)', () => {
  it('accepts an entry with outcomes and latency, and an older entry with neither', () => {
    expect(issues(entry())).toEqual([]);
    expect(issues({ capabilityId: 'a', tenant: 'b', count: 1, lastCallAt: '2026-12-01T10:00:00.000Z' })).toEqual([]);
  });

  it.each([
    ['an unknown outcome', { outcomes: { completed: 2, exploded: 1 } }, 'outcomes: unknown outcome'],
    ['a negative outcome', { outcomes: { completed: -1 } }, 'outcomes.completed: must be ≥ 0'],
    ['a fractional outcome', { outcomes: { completed: 0.5 } }, 'outcomes.completed: must be an integer'],
    ['a huge outcome', { outcomes: { completed: MAX_COUNT_PER_ENTRY + 1 } }, 'outcomes.completed: must be at most'],
    ['a null (NaN in JSON) bucket', { latencyMs: [null, ...new Array<number>(LATENCY_BUCKETS - 1).fill(0)] }, 'latencyMs.0:'],
    ['too many buckets', { latencyMs: new Array<number>(1_000).fill(0) }, `latencyMs: must have exactly ${LATENCY_BUCKETS} buckets`],
    ['too few buckets', { latencyMs: [2] }, `latencyMs: must have exactly ${LATENCY_BUCKETS} buckets`],
    ['a negative bucket', { latencyMs: [3, -1, ...new Array<number>(LATENCY_BUCKETS - 2).fill(0)] }, 'latencyMs.1: must be ≥ 0'],
    [
      'buckets that do not add up to the timed outcomes',
      { latencyMs: [5, ...new Array<number>(LATENCY_BUCKETS - 1).fill(0)] },
      'latencyMs: must count every call whose handler ran once (5 in the buckets, 2 outcomes other than refused)',
    ],
    ['latency without outcomes', { outcomes: undefined }, 'latencyMs: needs outcomes'],
    ['outcomes that are not an object', { outcomes: [1, 2] }, 'outcomes:'],
  ])('refuses %s, naming the field', (_what, over, expected) => {
    expect(issues(entry(over)).join('\n')).toContain(expected);
  });

  it('bounds the outcomes of a whole batch', () => {
    const big = { ...entry({ outcomes: { refused: MAX_COUNT_PER_ENTRY }, latencyMs: undefined, count: 0 }) };
    const counts = Array.from({ length: MAX_CALLS_PER_BATCH / MAX_COUNT_PER_ENTRY + 1 }, (_, i) => ({ ...big, capabilityId: `c${i}` }));
    const r = usageBatchSchema.safeParse({
      nodeId: 'node-1',
      batchId: crypto.randomUUID(),
      windowStart: '2026-12-01T10:00:00.000Z',
      windowEnd: '2026-12-01T10:01:00.000Z',
      counts,
    });
    expect(r.success ? [] : r.error.issues.map((i) => i.message)).toContain(
      `the outcomes of one batch must sum to at most ${MAX_CALLS_PER_BATCH}`,
    );
  });
});
