/** Manifest → A2A AgentSkill. Only the skill block (plus the id) ever reaches a card. */
import type { AgentSkill } from './card-types';
import { copySkill } from './manifest-document';
import type { CapabilityManifest } from './types';

/**
 * Deprecated skills keep their place, and the description says so, because client agents and
 * registries read descriptions. The replacement id is named only when it is in the same card:
 * naming an extended-only replacement in the public card would leak it.
 */
export function describe(m: CapabilityManifest, idsInCard: ReadonlySet<string>): string {
  if (m.state !== 'deprecated') return m.skill.description;
  const parts = [m.replacedBy && idsInCard.has(m.replacedBy) ? `Deprecated: use ${m.replacedBy} instead.` : 'Deprecated.'];
  if (m.deprecationReason) parts.push(m.deprecationReason);
  return `${m.skill.description} (${parts.join(' ')})`;
}

/** Every field of the skill block (copySkill: a new schema field reaches the card as is), the description annotated. */
export function projectSkill(m: CapabilityManifest, idsInCard: ReadonlySet<string>): AgentSkill {
  return { id: m.id, ...copySkill(m.skill), description: describe(m, idsInCard) };
}

/** Skills of a card, in the given (id) order. */
export function projectSkills(ordered: readonly CapabilityManifest[]): AgentSkill[] {
  const ids = new Set(ordered.map((m) => m.id));
  return ordered.map((m) => projectSkill(m, ids));
}
