/** Manifest → A2A AgentSkill. Only the skill block (plus the id) ever reaches a card. */
import type { AgentSkill } from './card-types';
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

export function projectSkill(m: CapabilityManifest, idsInCard: ReadonlySet<string>): AgentSkill {
  const s = m.skill;
  const skill: AgentSkill = { id: m.id, name: s.name, description: describe(m, idsInCard), tags: [...s.tags] };
  if (s.examples !== undefined) skill.examples = [...s.examples];
  if (s.inputModes !== undefined) skill.inputModes = [...s.inputModes];
  if (s.outputModes !== undefined) skill.outputModes = [...s.outputModes];
  return skill;
}

/** Skills of a card, in the given (id) order. */
export function projectSkills(ordered: readonly CapabilityManifest[]): AgentSkill[] {
  const ids = new Set(ordered.map((m) => m.id));
  return ordered.map((m) => projectSkill(m, ids));
}
