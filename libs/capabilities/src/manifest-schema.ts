/**
 * zod schema of the manifest document's shape and formats. Closed objects: an unknown key is an
 * error, so a typo such as `input_modes` cannot be silently ignored. Cross-field rules (deprecation
 * info, public capabilities being open, uniqueness) live in manifest-rules.ts, because zod skips
 * refinements once a field has failed and we want every problem at once.
 */
import { z } from 'zod';
import {
  CAPABILITY_ID,
  CAPABILITY_ID_MAX,
  HANDLER,
  HANDLER_MAX,
  MEDIA_TYPE,
  SCOPE,
  SLUG,
  SLUG_MAX,
  TOOL_NAME,
  TOOL_NAME_MAX,
  TOOLS_MAX,
} from './formats';
import { CAPABILITY_STATES, COST_CLASSES, VISIBILITIES } from './vocabulary';
import { upstreamSchema } from './upstream';

const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

export const capabilityId = z
  .string()
  .max(CAPABILITY_ID_MAX, `must be at most ${CAPABILITY_ID_MAX} characters`)
  .regex(CAPABILITY_ID, 'must be lowercase kebab-case starting with a letter, e.g. reconcile-invoice');

const mediaType = z.string().regex(MEDIA_TYPE, 'must be a media type type/subtype, e.g. application/pdf');
const slug = (what: string) =>
  z
    .string()
    .max(SLUG_MAX, `must be at most ${SLUG_MAX} characters`)
    .regex(SLUG, `must be a ${what} slug: lowercase letters, digits and single dashes`);

/**
 * The skill block: the A2A AgentSkill minus its id, and the ONE declaration of a skill field
 * (ADR 0213). SkillBlock, AgentSkill and the field lists below are derived from it; the tables
 * that must decide something per field (leak check, signing payload, card conformance, the
 * GraphQL Skill type) are typed against it and stop compiling when a field is added here.
 */
export const skillBlockSchema = z.strictObject({
  name: text(200),
  description: text(4000),
  tags: z.array(text(64)).min(1, 'must list at least one tag'),
  examples: z.array(text(1000)).optional(),
  inputModes: z.array(mediaType).optional(),
  outputModes: z.array(mediaType).optional(),
});
export type SkillBlock = z.infer<typeof skillBlockSchema>;

/** Every field of a skill block, in the schema's order (documents are written in this order). */
export const SKILL_FIELDS = Object.keys(skillBlockSchema.shape) as (keyof SkillBlock)[];

const isList = (s: z.ZodType): boolean => (s instanceof z.ZodOptional ? isList(s.unwrap() as z.ZodType) : s instanceof z.ZodArray);
/** The skill fields that hold lists (each checked for duplicate entries). */
export const SKILL_LIST_FIELDS = SKILL_FIELDS.filter((k) => isList(skillBlockSchema.shape[k]));

export const limitsSchema = z
  .object({ cost_class: z.enum(COST_CLASSES).optional() })
  .catchall(z.number().min(0, 'must be a non-negative number'));

/** Routing-only hints (ADR 0091): never in a card. Bounded so a manifest cannot bloat every router index. */
export const MAX_ROUTING_TERMS = 50;
export const routingHintsSchema = z.strictObject({
  terms: z.array(text(100)).max(MAX_ROUTING_TERMS, `must list at most ${MAX_ROUTING_TERMS} terms`).optional(),
  negative_terms: z.array(text(100)).max(MAX_ROUTING_TERMS, `must list at most ${MAX_ROUTING_TERMS} terms`).optional(),
});

/**
 * An announced removal date: an ISO 8601 date (midnight UTC) or date-time with an offset, between
 * 2000 and 9999 (a year outside that cannot be written as an HTTP-date in a Sunset header).
 */
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;
export const sunsetAt = z.string().superRefine((v, ctx) => {
  // One message per value: the first rule it breaks.
  if (v.length > 40 || !(ISO_DAY.test(v) || z.iso.datetime({ offset: true }).safeParse(v).success)) {
    ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 date (2027-03-01) or date-time with offset (2027-03-01T00:00:00Z)' });
    return;
  }
  const t = Date.parse(ISO_DAY.test(v) ? `${v}T00:00:00Z` : v);
  const iso = Number.isNaN(t) ? '' : new Date(t).toISOString();
  // Date.parse accepts 2027-02-31 (as March 3): only a date that reads back the same exists.
  if (iso < '2000' || iso >= '9999' || (ISO_DAY.test(v) && iso.slice(0, 10) !== v))
    ctx.addIssue({ code: 'custom', message: 'is not a valid date between 2000 and 9999' });
});

export const manifestDocumentSchema = z.strictObject({
  id: capabilityId,
  state: z.enum(CAPABILITY_STATES),
  visibility: z.enum(VISIBILITIES),
  skill: skillBlockSchema,
  requires_scopes: z.array(z.string().regex(SCOPE, 'must be a scope such as recon.run')),
  // Checked in manifest-rules.ts: a union here would hide which element is wrong.
  tenants: z.unknown(),
  handler: z
    .string()
    .max(HANDLER_MAX, `must be at most ${HANDLER_MAX} characters`)
    .regex(HANDLER, 'must be dotted lowercase identifiers, e.g. recon.v3.reconcile'),
  tools: z
    .array(
      z
        .string()
        .max(TOOL_NAME_MAX, `must be at most ${TOOL_NAME_MAX} characters`)
        .regex(TOOL_NAME, 'must be a tool name: lowercase letters, digits, ".", "_" and "-", starting with a letter'),
    )
    .max(TOOLS_MAX, `must list at most ${TOOLS_MAX} tools`)
    .optional(),
  limits: limitsSchema,
  owner: slug('team'),
  replaced_by: capabilityId.nullable().optional(),
  deprecation_reason: text(1000).nullable().optional(),
  sunset_at: sunsetAt.nullable().optional(),
  routing: routingHintsSchema.optional(),
  // Server-side only (ADR 0230): the A2A agent the node forwards to; never in a card.
  upstream: upstreamSchema.optional(),
});

export const tenantSlug = slug('tenant');
