/** Field-level comparison of two manifests (null and absent optional fields are the same). */
import { canonicalJson } from './canonical-json';
import type { EveryField } from './every-field';
import { SKILL_FIELDS } from './manifest-schema';
import type { CapabilityManifest } from './types';

/**
 * How each manifest field is compared, in report order: `compare` (its own name), `skill` (field
 * by field, every field of the skill schema), `derived` (set by the registry from its lifecycle,
 * not part of a document: never a change of its own). Complete by type: a new manifest field does
 * not compile until it is placed here.
 */
const FIELDS = {
  id: 'compare',
  state: 'compare',
  visibility: 'compare',
  requiresScopes: 'compare',
  tenants: 'compare',
  handler: 'compare',
  tools: 'compare',
  limits: 'compare',
  owner: 'compare',
  replacedBy: 'compare',
  deprecationReason: 'compare',
  sunsetAt: 'compare',
  routing: 'compare',
  upstream: 'compare',
  skill: 'skill',
  deprecatedAt: 'derived',
  removedFromPreview: 'derived',
} as const satisfies EveryField<CapabilityManifest, 'compare' | 'skill' | 'derived'>;

const TOP = (Object.keys(FIELDS) as (keyof typeof FIELDS)[]).filter((k) => FIELDS[k] === 'compare');

const norm = (v: unknown) => canonicalJson(v ?? null);

/** Changed fields as `state`, `skill.inputModes`, … (domain names). */
export function changedFields(a: CapabilityManifest, b: CapabilityManifest): string[] {
  const out: string[] = [];
  for (const k of TOP) if (norm(a[k]) !== norm(b[k])) out.push(k);
  for (const k of SKILL_FIELDS) if (norm(a.skill[k]) !== norm(b.skill[k])) out.push(`skill.${k}`);
  return out;
}

/**
 * The value of one field as changedFields names it (`handler`, `skill.description`), undefined
 * when the manifest does not set it. Used to show a change's old and new values side by side.
 */
export function fieldValue(m: CapabilityManifest, field: string): unknown {
  if (field.startsWith('skill.')) return (m.skill as unknown as Record<string, unknown>)[field.slice('skill.'.length)];
  return (m as unknown as Record<string, unknown>)[field];
}

export const sameManifest = (a: CapabilityManifest, b: CapabilityManifest) => changedFields(a, b).length === 0;

/** Modes compared as sets: reordering is not a change of meaning. */
export function sameModes(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return norm([...new Set(a)].sort()) === norm([...new Set(b)].sort());
}
