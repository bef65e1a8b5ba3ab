import { z } from 'zod';
import { NODE_ID_PATTERN } from '@cp/node-sdk';

/** A name a node echoes from the registry: no control characters (PostgreSQL text cannot hold NUL). */
const name = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\p{Cc}]*$/u, 'must not contain control characters');
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
  nodeId: z.string().regex(NODE_ID_PATTERN, 'must be 1-128 characters of letters, digits, ".", "_", ":" or "-"'),
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
