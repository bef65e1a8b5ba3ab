/**
 * The manifest DOCUMENT format (files, GraphQL JSON input, export): the seed's shape, snake_case
 * at the top level, A2A camelCase inside `skill`. toManifest/toManifestDocument are exact inverses.
 */
import type { z } from 'zod';
import { SKILL_FIELDS, type manifestDocumentSchema } from './manifest-schema';
import type { CapabilityManifest, ManifestLimits, SkillBlock } from './types';

/**
 * A validated document: what manifestDocumentSchema accepts (ADR 0213), with the two fields the
 * schema leaves to manifest-rules.ts (`tenants`) or types loosely (`limits`) narrowed.
 * `sunset_at` is an ISO 8601 date or date-time, stored and exported as a UTC date-time.
 */
export type ManifestDocument = Omit<z.infer<typeof manifestDocumentSchema>, 'tenants' | 'limits'> & {
  tenants: '*' | string[];
  limits: ManifestLimits;
};

/**
 * A copy of every field of the skill block (the schema's fields, in its order), lists copied: a
 * field added to the schema is carried by documents and cards without another edit here.
 */
export function copySkill(s: SkillBlock): SkillBlock {
  const out: Partial<Record<keyof SkillBlock, unknown>> = {};
  for (const key of SKILL_FIELDS) {
    const value: unknown = s[key];
    if (value === undefined) continue;
    out[key] = Array.isArray(value) ? [...(value as unknown[])] : typeof value === 'object' ? structuredClone(value) : value;
  }
  return out as SkillBlock;
}

/** Domain → document. Optional keys absent in the manifest stay absent (null stays null). */
export function toManifestDocument(m: CapabilityManifest): ManifestDocument {
  const doc: ManifestDocument = {
    id: m.id,
    state: m.state,
    visibility: m.visibility,
    skill: copySkill(m.skill),
    requires_scopes: [...m.requiresScopes],
    tenants: m.tenants === '*' ? '*' : [...m.tenants],
    handler: m.handler,
    limits: { ...m.limits },
    owner: m.owner,
  };
  if (m.tools?.length) doc.tools = [...m.tools];
  if (m.replacedBy !== undefined) doc.replaced_by = m.replacedBy;
  if (m.deprecationReason !== undefined) doc.deprecation_reason = m.deprecationReason;
  if (m.sunsetAt !== undefined) doc.sunset_at = m.sunsetAt;
  if (m.routing) {
    doc.routing = {};
    if (m.routing.terms.length > 0) doc.routing.terms = [...m.routing.terms];
    if (m.routing.negativeTerms.length > 0) doc.routing.negative_terms = [...m.routing.negativeTerms];
  }
  if (m.upstream) doc.upstream = structuredClone(m.upstream);
  return doc;
}

/** Document → domain, for an already validated document. */
export function fromManifestDocument(doc: ManifestDocument): CapabilityManifest {
  const m: CapabilityManifest = {
    id: doc.id,
    state: doc.state,
    visibility: doc.visibility,
    skill: copySkill(doc.skill),
    requiresScopes: [...doc.requires_scopes],
    tenants: doc.tenants === '*' ? '*' : [...doc.tenants],
    handler: doc.handler,
    limits: { ...doc.limits },
    owner: doc.owner,
  };
  if (doc.tools?.length) m.tools = [...doc.tools];
  if (doc.replaced_by !== undefined) m.replacedBy = doc.replaced_by;
  if (doc.deprecation_reason !== undefined) m.deprecationReason = doc.deprecation_reason;
  // One form (UTC date-time, milliseconds) whatever the file wrote, so diffs and hashes agree.
  if (doc.sunset_at !== undefined) m.sunsetAt = doc.sunset_at === null ? null : new Date(doc.sunset_at).toISOString();
  const terms = doc.routing?.terms ?? [];
  const negativeTerms = doc.routing?.negative_terms ?? [];
  // No hints and an empty block are the same manifest: keep one form so diffs and hashes agree.
  if (terms.length + negativeTerms.length > 0) m.routing = { terms: [...terms], negativeTerms: [...negativeTerms] };
  if (doc.upstream) m.upstream = structuredClone(doc.upstream);
  return m;
}
