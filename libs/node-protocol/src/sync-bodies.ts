import { z } from 'zod';
import { handlerInventorySchema, upstreamReportSchema } from '@cp/capabilities';
import { nodeIdSchema } from './node-id';
import { reportedText } from './text';

const revision = z.number().int().min(0).max(2_147_483_647);
const handlers = handlerInventorySchema.optional();
/** A gateway node's upstream report (ADR 0275): each upstream card it fetched; absent: not a gateway. */
const upstreams = upstreamReportSchema.optional();

/** POST /node/v1/register. `handlers`: the handlers this node's code has (absent from nodes older than the inventory). */
export const registerNodeBodySchema = z
  .object({ nodeId: nodeIdSchema, hostname: reportedText(255).optional(), handlers, upstreams })
  .strict();

/** POST /node/v1/heartbeat. `stopping`: sent once by a node shutting down gracefully. */
export const heartbeatBodySchema = z.object({ nodeId: nodeIdSchema, handlers, upstreams, stopping: z.boolean().optional() }).strict();

const unservable = z
  .array(
    z
      .string()
      .max(64)
      .regex(/^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/, 'must be a capability id'),
  )
  .max(5000);

/**
 * POST /node/v1/ack: the revision applied and the hash of what the node serves (with the
 * capabilities whose handler it lacks), or the revision refused and why.
 */
export const ackBodySchema = z.union([
  z
    .object({
      nodeId: nodeIdSchema,
      revision,
      servedHash: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 hex digits'),
      unservable: unservable.optional(),
    })
    .strict(),
  z.object({ nodeId: nodeIdSchema, revision, error: reportedText(2000) }).strict(),
]);

export type RegisterNodeBody = z.infer<typeof registerNodeBodySchema>;
export type HeartbeatBody = z.infer<typeof heartbeatBodySchema>;
export type AckBody = z.infer<typeof ackBodySchema>;
