import { z } from 'zod';
import { handlerInventorySchema } from '@cp/capabilities';
import { NODE_ID_PATTERN, type AckBody, type HeartbeatBody, type RegisterNodeBody } from '@cp/node-sdk';
import { NodeApiError, NodeApiErrorCode } from '../node-api.errors';

const nodeId = z.string().regex(NODE_ID_PATTERN, 'must be 1-128 characters of letters, digits, ".", "_", ":" or "-"');
const revision = z.number().int().min(0).max(2_147_483_647);
/** Free text a node reports: no control characters (PostgreSQL text cannot hold NUL, logs must not take CR/LF). */
const text = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[^\p{Cc}]*$/u, 'must not contain control characters');

const handlers = handlerInventorySchema.optional();
const registerSchema = z.object({ nodeId, hostname: text(255).optional(), handlers }).strict();
const heartbeatSchema = z.object({ nodeId, handlers, stopping: z.boolean().optional() }).strict();
const unservable = z
  .array(
    z
      .string()
      .max(64)
      .regex(/^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/, 'must be a capability id'),
  )
  .max(5000);
const ackSchema = z.union([
  z
    .object({
      nodeId,
      revision,
      servedHash: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 hex digits'),
      unservable: unservable.optional(),
    })
    .strict(),
  z.object({ nodeId, revision, error: text(2000) }).strict(),
]);

function parse<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue.path.length > 0 ? `$.${issue.path.join('.')}` : '$';
  throw new NodeApiError(NodeApiErrorCode.InvalidRequest, `invalid ${what}: ${path} ${issue.message}`);
}

export const parseRegister = (body: unknown): RegisterNodeBody => parse(registerSchema, body, 'register body');
export const parseHeartbeat = (body: unknown): HeartbeatBody => parse(heartbeatSchema, body, 'heartbeat body');
export const parseAck = (body: unknown): AckBody => parse(ackSchema, body, 'ack body');
