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

/** One capability × tenant count inside a usage window. */
export const usageCountSchema = z.object({
  capabilityId: name,
  tenant: name,
  count: z.number().int('must be an integer').min(0, 'must be ≥ 0').max(MAX_COUNT_PER_ENTRY, `must be at most ${MAX_COUNT_PER_ENTRY}`),
  lastCallAt: isoDateTime,
});

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
