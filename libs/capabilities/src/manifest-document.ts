/**
 * The manifest DOCUMENT format (files, GraphQL JSON input, export): the seed's shape, snake_case
 * at the top level, A2A camelCase inside `skill`. toManifest/toManifestDocument are exact inverses.
 */
import type { CapabilityManifest, CapabilityState, ManifestLimits, SkillBlock, Visibility } from './types';

export interface ManifestDocument {
  id: string;
  state: CapabilityState;
  visibility: Visibility;
  skill: SkillBlock;
  requires_scopes: string[];
  tenants: '*' | string[];
  handler: string;
  tools?: string[];
  limits: ManifestLimits;
  owner: string;
  replaced_by?: string | null;
  deprecation_reason?: string | null;
  /** The announced removal date (ISO 8601 date or date-time); stored and exported as UTC date-time. */
  sunset_at?: string | null;
  /** Routing-only hints; absent when there are none. */
  routing?: { terms?: string[]; negative_terms?: string[] };
}

function copySkill(s: SkillBlock): SkillBlock {
  const out: SkillBlock = { name: s.name, description: s.description, tags: [...s.tags] };
  if (s.examples !== undefined) out.examples = [...s.examples];
  if (s.inputModes !== undefined) out.inputModes = [...s.inputModes];
  if (s.outputModes !== undefined) out.outputModes = [...s.outputModes];
  return out;
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
  return m;
}
