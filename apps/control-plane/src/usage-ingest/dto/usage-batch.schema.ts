import { z } from 'zod';

const isoDateTime = z.iso.datetime({ offset: true, message: 'must be an ISO-8601 date-time' });

/** One capability × tenant count inside a usage window. */
export const usageCountSchema = z.object({
  capabilityId: z.string().min(1).max(200),
  tenant: z.string().min(1).max(200),
  count: z.number().int('must be an integer').min(0, 'must be ≥ 0').max(Number.MAX_SAFE_INTEGER),
  lastCallAt: isoDateTime,
});

/**
 * The body of POST /node/v1/usage: a node's counts for one window. A node sends one for EVERY
 * window, empty or not, so the control plane knows up to when its usage is known.
 */
export const usageBatchSchema = z.object({
  nodeId: z.string().min(1).max(200),
  batchId: z.uuid('must be a UUID (the idempotency key)'),
  windowStart: isoDateTime,
  windowEnd: isoDateTime,
  counts: z.array(usageCountSchema).max(10_000, 'at most 10000 counts per batch'),
  /** Optional: the node's last batch before a clean shutdown (it serves nothing after windowEnd). */
  final: z.boolean().optional(),
});

export type UsageBatchBody = z.infer<typeof usageBatchSchema>;
