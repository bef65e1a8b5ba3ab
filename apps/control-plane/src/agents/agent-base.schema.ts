import { z } from 'zod';
import { protocolVersionsSchema, webhookAllowSchema, type AgentBase, type AssertTrue, type SameKeys } from '@cp/capabilities';

/** Slug rule shared with config's AGENT_ID and the team ids the seed uses. */
export const SLUG = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
const mimeType = z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a media type like text/plain');

/** The complete card base an agent must have after a create or an update (the GraphQL input merged over what is stored). */
export const agentBaseSchema = z.object({
  name: z.string().trim().min(1, 'is required').max(200),
  description: z.string().trim().min(1, 'is required').max(4000),
  version: z.string().regex(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/, 'must be a semantic version like 1.2.3'),
  provider: z.object({ organization: z.string().min(1, 'is required'), url: httpUrl }).optional(),
  documentationUrl: httpUrl.optional(),
  iconUrl: httpUrl.optional(),
  supportedInterfaces: z
    .array(
      z.object({
        url: httpUrl,
        // The card must declare exactly what agent nodes serve: node-sdk serves JSON-RPC and HTTP+JSON.
        protocolBinding: z.enum(['JSONRPC', 'HTTP+JSON'], { error: 'must be JSONRPC or HTTP+JSON (the bindings agent nodes serve)' }),
        // 0.3 interfaces are derived from protocol.versions (ADR 0160), never listed by hand.
        protocolVersion: z.literal('1.0', { error: 'must be "1.0" (0.3 interfaces come from protocol.versions)' }),
        tenant: z.string().min(1).optional(),
      }),
    )
    .min(1, 'at least one interface is required'),
  securitySchemes: z.record(z.string(), z.unknown()).optional(),
  securityRequirements: z.array(z.unknown()).optional(),
  defaultInputModes: z.array(mimeType).min(1, 'at least one mode is required'),
  defaultOutputModes: z.array(mimeType).min(1, 'at least one mode is required'),
  // The card must declare exactly what agent nodes serve: node-sdk serves streaming (SSE on both
  // bindings) and push notifications (the four config operations, webhook delivery) when the
  // switch is on and refuses them when off; 0.3 beside 1.0 on JSON-RPC and HTTP+JSON (ADRs 0160,
  // 0162, 0165).
  protocol: z.object({
    streaming: z.boolean(),
    pushNotifications: z.boolean(),
    extendedAgentCard: z.boolean(),
    versions: protocolVersionsSchema.optional(),
    // Private hosts push webhooks may reach; never the whole internet or the metadata service (ADR 0211).
    webhookAllow: webhookAllowSchema.optional(),
    // Private hosts upstream agents may be reached at (ADR 0230): the same rule, platform admins only.
    upstreamAllow: webhookAllowSchema.optional(),
  }),
  extensions: z
    .array(
      z.object({
        uri: z.url({ error: 'must be a URI' }),
        description: z.string().optional(),
        required: z.boolean().optional(),
        params: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .refine((list) => new Set(list.map((e) => e.uri)).size === list.length, 'extension URIs must be unique'),
}) satisfies z.ZodType<AgentBase>;
/** `satisfies` above lets an optional AgentBase field go missing; this does not (ADR 0213). */
export type AgentBaseSchemaIsComplete = AssertTrue<SameKeys<z.infer<typeof agentBaseSchema>, AgentBase>>;
