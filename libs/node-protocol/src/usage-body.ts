import { z } from 'zod';
import { nodeIdSchema } from './node-id';
import { reportedText } from './text';

/** The tenant a node counts calls of anonymous callers under (not a tenant of the registry). */
export const ANONYMOUS_TENANT = 'anonymous';

const name = reportedText(200);
const isoDateTime = z.iso.datetime({ offset: true, message: 'must be an ISO-8601 date-time' });

/**
 * Bounds on what one report can claim (ADR 0071). A node counts the calls it routed in one
 * window (a minute by default), so these are far above any real traffic and far below what
 * could overflow a sum: 10,000 entries × 10^9 stays an exact JavaScript integer.
 */
export const MAX_COUNT_PER_ENTRY = 1_000_000_000;
export const MAX_CALLS_PER_BATCH = 100_000_000_000;
export const MAX_ENTRIES_PER_BATCH = 10_000;

const entryCount = z
  .number()
  .int('must be an integer')
  .min(0, 'must be ≥ 0')
  .max(MAX_COUNT_PER_ENTRY, `must be at most ${MAX_COUNT_PER_ENTRY}`);

/**
 * How a call ended (ADR 0310): the terminal task state, or `refused` when an execution limit
 * refused it before its handler ran, or `inputRequired` when the handler asked the caller for more.
 */
export const CALL_OUTCOMES = ['completed', 'failed', 'rejected', 'canceled', 'refused', 'inputRequired'] as const;
export type CallOutcome = (typeof CALL_OUTCOMES)[number];

/**
 * Upper bounds (milliseconds, inclusive) of the latency buckets a node counts handler durations
 * in; one more bucket holds everything above the last bound. Fixed for the wire (ADR 0310):
 * changing them is a new field, never a new meaning of `latencyMs`.
 */
export const LATENCY_BOUNDS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000] as const;
export const LATENCY_BUCKETS = LATENCY_BOUNDS_MS.length + 1;

/** Outcomes whose handler ran, so that they have a latency (a refusal by a limit has none). */
export const TIMED_OUTCOMES: readonly CallOutcome[] = ['completed', 'failed', 'rejected', 'canceled', 'inputRequired'];

const outcomesSchema = z.strictObject(
  Object.fromEntries(CALL_OUTCOMES.map((o) => [o, entryCount.optional()])) as Record<CallOutcome, z.ZodOptional<typeof entryCount>>,
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown outcome: expected ${CALL_OUTCOMES.join(', ')}` : undefined) },
);

/**
 * One capability × tenant count inside a usage window, and (since issue 32, optional: an older
 * node's batch has neither) how the calls that ENDED in the window ended and how long their
 * handlers ran. A call counted in one window may end in the next: an entry may have outcomes and
 * a count of 0.
 */
export const usageCountSchema = z
  .object({
    capabilityId: name,
    tenant: name,
    count: entryCount,
    lastCallAt: isoDateTime,
    outcomes: outcomesSchema.optional(),
    /** Calls per latency bucket (LATENCY_BOUNDS_MS, then one above the last), not cumulative. */
    latencyMs: z.array(entryCount).length(LATENCY_BUCKETS, `must have exactly ${LATENCY_BUCKETS} buckets`).optional(),
  })
  .superRefine((entry, ctx) => {
    if (entry.latencyMs === undefined) return;
    if (entry.outcomes === undefined) {
      ctx.addIssue({ code: 'custom', path: ['latencyMs'], message: 'needs outcomes: latency is counted per call that ended' });
      return;
    }
    const timed = TIMED_OUTCOMES.reduce((sum, o) => sum + (entry.outcomes![o] ?? 0), 0);
    const bucketed = entry.latencyMs.reduce((sum, n) => sum + n, 0);
    if (bucketed !== timed)
      ctx.addIssue({
        code: 'custom',
        path: ['latencyMs'],
        message: `must count every call whose handler ran once (${bucketed} in the buckets, ${timed} outcomes other than refused)`,
      });
  });

/** Outcomes an entry reports (0 for those it leaves out). */
export const outcomeTotal = (outcomes: Partial<Record<CallOutcome, number>> | undefined): number =>
  outcomes ? CALL_OUTCOMES.reduce((sum, o) => sum + (outcomes[o] ?? 0), 0) : 0;

/**
 * The body of POST /node/v1/usage: a node's counts for one window. A node sends one for EVERY
 * window, empty or not, so the control plane knows up to when its usage is known.
 */
export const usageBatchSchema = z.object({
  nodeId: nodeIdSchema,
  batchId: z.uuid('must be a UUID (the idempotency key)'),
  windowStart: isoDateTime,
  windowEnd: isoDateTime,
  counts: z
    .array(usageCountSchema)
    .max(MAX_ENTRIES_PER_BATCH, `at most ${MAX_ENTRIES_PER_BATCH} counts per batch`)
    .refine((counts) => counts.reduce((sum, c) => sum + c.count, 0) <= MAX_CALLS_PER_BATCH, {
      message: `the counts of one batch must sum to at most ${MAX_CALLS_PER_BATCH}`,
    })
    .refine((counts) => counts.reduce((sum, c) => sum + outcomeTotal(c.outcomes), 0) <= MAX_CALLS_PER_BATCH, {
      message: `the outcomes of one batch must sum to at most ${MAX_CALLS_PER_BATCH}`,
    }),
  /** Optional: the node's last batch before a clean shutdown (it serves nothing after windowEnd). */
  final: z.boolean().optional(),
});

export type UsageBatchBody = z.infer<typeof usageBatchSchema>;
/** What POST /node/v1/usage answers (202). */
export interface UsageIngestResult {
  accepted: true;
  duplicate: boolean;
}
