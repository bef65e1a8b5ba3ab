/**
 * Leak check (CI and the publish path): no text of a non-public skill may appear anywhere in the
 * public card. "Non-public" = live (not removed) extended or internal skills, and previews of any
 * visibility. Checked texts: id (as a whole token), name, description, each example, and each tag not also used by a
 * skill that is in the public card. Match = case-insensitive substring of the public card's JSON
 * text. Strings shorter than 4 characters are ignored: they match by accident (tags like "ai").
 */
import { canonicalJson } from './canonical-json';
import type { AgentCard } from './card-types';
import type { CapabilityManifest } from './types';

export const MIN_LEAK_TEXT = 4;

export interface Leak {
  skillId: string;
  /** Which text leaked: `id`, `name`, `description`, `examples[2]`, `tags[0]`. */
  field: string;
  text: string;
}

const isPublicSkill = (m: CapabilityManifest) => m.visibility === 'public' && (m.state === 'ga' || m.state === 'deprecated');

export function findLeaks(publicCard: AgentCard, manifests: readonly CapabilityManifest[]): Leak[] {
  const haystack = canonicalJson(publicCard).toLowerCase();
  const publicTags = new Set(manifests.filter(isPublicSkill).flatMap((m) => m.skill.tags.map((t) => t.toLowerCase())));
  const leaks: Leak[] = [];
  for (const m of manifests) {
    if (m.state === 'removed' || isPublicSkill(m)) continue;
    // An id is matched as a whole token: `invoice` must not leak through `invoice-lookup`.
    const idPattern = new RegExp(`(?<![a-z0-9-])${m.id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![a-z0-9-])`);
    if (m.id.length >= MIN_LEAK_TEXT && idPattern.test(haystack)) leaks.push({ skillId: m.id, field: 'id', text: m.id });
    const texts: [string, string][] = [
      ['name', m.skill.name],
      ['description', m.skill.description],
      ...(m.skill.examples ?? []).map((e, i) => [`examples[${i}]`, e] as [string, string]),
      ...m.skill.tags.map((t, i) => [`tags[${i}]`, t] as [string, string]).filter(([, t]) => !publicTags.has(t.toLowerCase())),
    ];
    for (const [field, text] of texts) {
      if (text.trim().length < MIN_LEAK_TEXT) continue;
      // Compare against the JSON-escaped form: that is how the text would sit in the card body.
      if (haystack.includes(JSON.stringify(text).slice(1, -1).toLowerCase())) leaks.push({ skillId: m.id, field, text });
    }
  }
  return leaks;
}
