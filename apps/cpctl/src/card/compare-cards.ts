/**
 * The gate's comparison: the core's classified diff, plus any other byte-level difference the
 * classification does not name (version, default modes, unknown fields), so that ANY change to
 * the public card stops the pipeline until someone approves it.
 */
import { canonicalJson, diffCards, type AgentCard, type CardChange } from '@cp/capabilities';

/** Card fields whose every change diffCards already reports. */
const CLASSIFIED = new Set([
  'name',
  'description',
  'provider',
  'documentationUrl',
  'iconUrl',
  'supportedInterfaces',
  'securitySchemes',
  'securityRequirements',
  'capabilities',
  'skills',
]);

export type GateChange = Omit<CardChange, 'kind'> & { kind: CardChange['kind'] | 'card-field-changed' | 'card-changed' };

const show = (v: unknown) => (v === undefined ? '(absent)' : canonicalJson(v));

export function compareCards(released: AgentCard, next: AgentCard): GateChange[] {
  const changes: GateChange[] = diffCards(released, next);
  const prev = released as unknown as Record<string, unknown>;
  const cur = next as unknown as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(prev), ...Object.keys(cur)])].filter((k) => !CLASSIFIED.has(k)).sort();
  for (const key of keys) {
    if (canonicalJson(prev[key] ?? null) === canonicalJson(cur[key] ?? null)) continue;
    changes.push({ kind: 'card-field-changed', breaking: false, detail: `${key} ${show(prev[key])} → ${show(cur[key])}` });
  }
  // Whatever the classification cannot name (skill order, a field inside a classified object).
  if (changes.length === 0 && canonicalJson(released) !== canonicalJson(next)) {
    changes.push({
      kind: 'card-changed',
      breaking: false,
      detail: 'the card bytes differ in a way no rule names (e.g. order or an unknown field)',
    });
  }
  return changes;
}
