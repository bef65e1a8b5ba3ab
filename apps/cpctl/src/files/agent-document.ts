/**
 * agent.yaml: the agent's card base (everything in the public card that is not a skill) and its
 * protocol switches, in the A2A card's own camelCase field names, since each is copied into the
 * card as written. `id` names the agent in the control plane (defaults --agent).
 */
import { z } from 'zod';
import {
  protocolVersionsSchema,
  webhookAllowSchema,
  type AgentBase,
  type AssertTrue,
  type SameKeys,
  type ValidationIssue,
} from '@cp/capabilities';

const text = z.string().trim().min(1, 'must not be empty');
const mediaType = z.string().regex(/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/i, 'must be a media type type/subtype, e.g. text/plain');

export const agentDocumentSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/, 'must be an agent slug: lowercase letters, digits and single dashes')
    .optional(),
  name: text,
  description: text,
  version: text,
  provider: z.strictObject({ organization: text, url: z.url() }).optional(),
  documentationUrl: z.url().optional(),
  iconUrl: z.url().optional(),
  supportedInterfaces: z
    .array(
      z.strictObject({
        url: z.url(),
        protocolBinding: text,
        protocolVersion: z.string().regex(/^\d+\.\d+$/, 'must be MAJOR.MINOR, e.g. 1.0'),
        tenant: z.string().optional(),
      }),
    )
    .min(1, 'must list at least one interface'),
  securitySchemes: z.record(z.string(), z.unknown()).optional(),
  securityRequirements: z.array(z.unknown()).optional(),
  defaultInputModes: z.array(mediaType).min(1, 'must list at least one media type'),
  defaultOutputModes: z.array(mediaType).min(1, 'must list at least one media type'),
  protocol: z
    .strictObject({
      streaming: z.boolean().default(false),
      pushNotifications: z.boolean().default(false),
      extendedAgentCard: z.boolean().default(true),
      /** A2A versions the nodes serve: "1.0", and "0.3" beside it (ADRs 0160, 0165). */
      versions: protocolVersionsSchema.default(['1.0']),
      /** Private hosts, *.domains, IPs or CIDRs push webhooks may reach (ADRs 0162, 0211: the admin API's rule). */
      webhookAllow: webhookAllowSchema.default([]),
      /** Private hosts upstream agents may be reached at (ADR 0230); widening needs a platform admin. */
      upstreamAllow: webhookAllowSchema.default([]),
    })
    .default({
      streaming: false,
      pushNotifications: false,
      extendedAgentCard: true,
      versions: ['1.0'],
      webhookAllow: [],
      upstreamAllow: [],
    }),
  extensions: z
    .array(
      z.strictObject({
        uri: text,
        description: z.string().optional(),
        required: z.boolean().optional(),
        params: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .default([]),
  /**
   * Tenants opted in to this agent's previews. Only decides whether the generated public card
   * declares capabilities.extendedAgentCard when previews are the only non-public skills.
   */
  previewTenants: z.array(z.string()).default([]),
});

export type AgentDocument = z.infer<typeof agentDocumentSchema>;
/** agent.yaml holds every field of the card base (a new AgentBase field must be readable from it), plus id and previewTenants. */
export type AgentDocumentIsComplete = AssertTrue<SameKeys<Omit<AgentDocument, 'id' | 'previewTenants'>, AgentBase>>;

export interface AgentFile {
  id?: string;
  base: AgentBase;
  previewTenants: string[];
}

function valueAt(doc: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = doc;
  for (const seg of path) v = typeof v === 'object' && v !== null ? (v as Record<PropertyKey, unknown>)[seg] : undefined;
  return v;
}

function pathOf(segments: readonly PropertyKey[]): string {
  return segments.reduce<string>((p, s) => (typeof s === 'number' ? `${p}[${s}]` : `${p}.${String(s)}`), '$');
}

export function parseAgentDocument(doc: unknown): { ok: true; agent: AgentFile } | { ok: false; errors: ValidationIssue[] } {
  const r = agentDocumentSchema.safeParse(doc);
  if (!r.success) {
    const errors: ValidationIssue[] = [];
    for (const i of r.error.issues) {
      if (i.code === 'unrecognized_keys') for (const k of i.keys) errors.push({ path: pathOf([...i.path, k]), message: 'unknown field' });
      else
        errors.push({
          path: pathOf(i.path),
          message: i.code === 'invalid_type' && valueAt(doc, i.path) === undefined ? 'is required' : i.message,
        });
    }
    return { ok: false, errors };
  }
  const { id, previewTenants, ...rest } = r.data;
  const base: AgentBase = { ...rest };
  // Absent optional fields stay absent: the card omits them (proto field presence).
  for (const key of Object.keys(base) as (keyof AgentBase)[]) if (base[key] === undefined) delete base[key];
  return { ok: true, agent: { id, base, previewTenants } };
}

/** AgentBase → agent.yaml content (export). */
export function toAgentDocument(id: string, base: AgentBase, previewTenants: readonly string[] = []): AgentDocument {
  const copy = structuredClone(base);
  const protocol = {
    ...copy.protocol,
    versions: (copy.protocol.versions ?? ['1.0']) as AgentDocument['protocol']['versions'],
    webhookAllow: copy.protocol.webhookAllow ?? [],
    upstreamAllow: copy.protocol.upstreamAllow ?? [],
  };
  const doc: AgentDocument = { id, ...copy, protocol, previewTenants: [...previewTenants] };
  if (doc.previewTenants.length === 0) delete (doc as Partial<AgentDocument>).previewTenants;
  return doc;
}
