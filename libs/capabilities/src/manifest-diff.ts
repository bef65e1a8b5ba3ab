/** Field-level comparison of two manifests (null and absent optional fields are the same). */
import { canonicalJson } from './canonical-json';
import type { CapabilityManifest } from './types';

const TOP = [
  'state',
  'visibility',
  'requiresScopes',
  'tenants',
  'handler',
  'tools',
  'limits',
  'owner',
  'replacedBy',
  'deprecationReason',
  'sunsetAt',
  'routing',
] as const;
const SKILL = ['name', 'description', 'tags', 'examples', 'inputModes', 'outputModes'] as const;

const norm = (v: unknown) => canonicalJson(v ?? null);

/** Changed fields as `state`, `skill.inputModes`, … (domain names). */
export function changedFields(a: CapabilityManifest, b: CapabilityManifest): string[] {
  const out: string[] = [];
  if (a.id !== b.id) out.push('id');
  for (const k of TOP) if (norm(a[k]) !== norm(b[k])) out.push(k);
  for (const k of SKILL) if (norm(a.skill[k]) !== norm(b.skill[k])) out.push(`skill.${k}`);
  return out;
}

export const sameManifest = (a: CapabilityManifest, b: CapabilityManifest) => changedFields(a, b).length === 0;

/** Modes compared as sets: reordering is not a change of meaning. */
export function sameModes(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return norm([...new Set(a)].sort()) === norm([...new Set(b)].sort());
}
