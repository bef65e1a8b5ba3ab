/**
 * Classifies every change between two cards (release review in CI, the seed's "diff the public
 * card against the previous release"). Breaking = a client that worked against `prev` may fail
 * against `next`.
 */
import { canonicalJson } from './canonical-json';
import type { AgentCard, AgentSkill } from './card-types';
import type { EveryField } from './every-field';

export type CardChangeKind =
  | 'skill-added'
  | 'skill-removed'
  | 'name-changed'
  | 'description-changed'
  | 'examples-changed'
  | 'tags-changed'
  | 'input-modes-narrowed'
  | 'input-modes-widened'
  | 'output-modes-narrowed'
  | 'output-modes-widened'
  | 'extension-added'
  | 'extension-removed'
  | 'extension-made-required'
  | 'extension-made-optional'
  | 'extension-changed'
  | 'capability-enabled'
  | 'capability-disabled'
  | 'interface-added'
  | 'interface-removed'
  | 'security-changed'
  | 'agent-metadata-changed';

export interface CardChange {
  kind: CardChangeKind;
  skillId?: string;
  extensionUri?: string;
  breaking: boolean;
  detail: string;
}

const same = (a: unknown, b: unknown) => canonicalJson(a ?? null) === canonicalJson(b ?? null);
const list = (xs: readonly string[]) => xs.map((x) => JSON.stringify(x)).join(', ');

/** Effective modes: a skill without its own modes takes the card's defaults. */
function modes(direction: 'input' | 'output', skill: AgentSkill, card: AgentCard): string[] {
  return direction === 'input' ? (skill.inputModes ?? card.defaultInputModes) : (skill.outputModes ?? card.defaultOutputModes);
}

function modeChanges(direction: 'input' | 'output', id: string, before: string[], after: string[], out: CardChange[]): void {
  const lost = before.filter((m) => !after.includes(m));
  const gained = after.filter((m) => !before.includes(m));
  if (lost.length > 0)
    out.push({
      kind: `${direction}-modes-narrowed`,
      skillId: id,
      breaking: true,
      detail: `${id} no longer accepts/produces ${list(lost)}`,
    });
  if (gained.length > 0)
    out.push({ kind: `${direction}-modes-widened`, skillId: id, breaking: false, detail: `${id} now also supports ${list(gained)}` });
}

interface SkillPair {
  id: string;
  b: AgentSkill;
  a: AgentSkill;
  prev: AgentCard;
  next: AgentCard;
}

/**
 * How a change of each skill field is reported, in report order. Complete by type (ADR 0213): a
 * new skill field does not compile until the release review knows what its change means.
 */
const SKILL_FIELD_CHANGES = {
  // The key skills are matched by: a new id is a skill added and another removed.
  id: () => undefined,
  name: ({ id, b, a }: SkillPair, out: CardChange[]) => {
    if (a.name !== b.name)
      out.push({
        kind: 'name-changed',
        skillId: id,
        breaking: false,
        detail: `${id} name ${JSON.stringify(b.name)} → ${JSON.stringify(a.name)}`,
      });
  },
  description: ({ id, b, a }: SkillPair, out: CardChange[]) => {
    if (a.description !== b.description)
      out.push({ kind: 'description-changed', skillId: id, breaking: false, detail: `${id} description changed` });
  },
  examples: ({ id, b, a }: SkillPair, out: CardChange[]) => {
    if (!same(b.examples ?? [], a.examples ?? []))
      out.push({ kind: 'examples-changed', skillId: id, breaking: false, detail: `${id} examples changed` });
  },
  tags: ({ id, b, a }: SkillPair, out: CardChange[]) => {
    if (!same([...b.tags].sort(), [...a.tags].sort()))
      out.push({ kind: 'tags-changed', skillId: id, breaking: false, detail: `${id} tags ${list(b.tags)} → ${list(a.tags)}` });
  },
  inputModes: ({ id, b, a, prev, next }: SkillPair, out: CardChange[]) =>
    modeChanges('input', id, modes('input', b, prev), modes('input', a, next), out),
  outputModes: ({ id, b, a, prev, next }: SkillPair, out: CardChange[]) =>
    modeChanges('output', id, modes('output', b, prev), modes('output', a, next), out),
} satisfies EveryField<AgentSkill, (pair: SkillPair, out: CardChange[]) => void>;
const SKILL_FIELD_ORDER = Object.keys(SKILL_FIELD_CHANGES) as (keyof typeof SKILL_FIELD_CHANGES)[];

function skillChanges(prev: AgentCard, next: AgentCard, out: CardChange[]): void {
  const before = new Map(prev.skills.map((s) => [s.id, s] as const));
  const after = new Map(next.skills.map((s) => [s.id, s] as const));
  for (const [id, a] of after)
    if (!before.has(id)) out.push({ kind: 'skill-added', skillId: id, breaking: false, detail: `skill ${id} (${a.name}) added` });
  for (const [id, b] of before) {
    const a = after.get(id);
    if (!a) {
      out.push({ kind: 'skill-removed', skillId: id, breaking: true, detail: `skill ${id} (${b.name}) removed` });
      continue;
    }
    for (const field of SKILL_FIELD_ORDER) SKILL_FIELD_CHANGES[field]({ id, b, a, prev, next }, out);
  }
}

function extensionChanges(prev: AgentCard, next: AgentCard, out: CardChange[]): void {
  const before = new Map(prev.capabilities.extensions.map((e) => [e.uri, e] as const));
  const after = new Map(next.capabilities.extensions.map((e) => [e.uri, e] as const));
  for (const [uri, a] of after) {
    const b = before.get(uri);
    if (!b) {
      out.push({
        kind: 'extension-added',
        extensionUri: uri,
        breaking: a.required === true,
        detail: `extension ${uri} added${a.required ? ' as required' : ''}`,
      });
      continue;
    }
    if (!b.required && a.required)
      out.push({ kind: 'extension-made-required', extensionUri: uri, breaking: true, detail: `extension ${uri} is now required` });
    if (b.required && !a.required)
      out.push({ kind: 'extension-made-optional', extensionUri: uri, breaking: false, detail: `extension ${uri} is no longer required` });
    if (b.description !== a.description || !same(b.params, a.params)) {
      out.push({
        kind: 'extension-changed',
        extensionUri: uri,
        breaking: false,
        detail: `extension ${uri} description or params changed (a breaking change needs a new URI)`,
      });
    }
  }
  for (const uri of before.keys())
    if (!after.has(uri)) out.push({ kind: 'extension-removed', extensionUri: uri, breaking: true, detail: `extension ${uri} removed` });
}

function agentChanges(prev: AgentCard, next: AgentCard, out: CardChange[]): void {
  for (const flag of ['streaming', 'pushNotifications', 'extendedAgentCard'] as const) {
    const b = prev.capabilities[flag] === true;
    const a = next.capabilities[flag] === true;
    if (b && !a) out.push({ kind: 'capability-disabled', breaking: true, detail: `capabilities.${flag} turned off` });
    if (!b && a) out.push({ kind: 'capability-enabled', breaking: false, detail: `capabilities.${flag} turned on` });
  }
  const ifaceKey = (i: AgentCard['supportedInterfaces'][number]) => canonicalJson(i);
  const bi = new Set(prev.supportedInterfaces.map(ifaceKey));
  const ai = new Set(next.supportedInterfaces.map(ifaceKey));
  for (const k of ai) if (!bi.has(k)) out.push({ kind: 'interface-added', breaking: false, detail: `interface ${k} added` });
  for (const k of bi) if (!ai.has(k)) out.push({ kind: 'interface-removed', breaking: true, detail: `interface ${k} removed` });
  if (!same(prev.securitySchemes, next.securitySchemes) || !same(prev.securityRequirements, next.securityRequirements)) {
    out.push({
      kind: 'security-changed',
      breaking: true,
      detail: 'security schemes or requirements changed: clients may no longer authenticate',
    });
  }
  for (const f of ['name', 'description', 'provider', 'documentationUrl', 'iconUrl'] as const) {
    if (!same(prev[f], next[f])) out.push({ kind: 'agent-metadata-changed', breaking: false, detail: `${f} changed` });
  }
}

/** Every change, in a stable order: agent-level, extensions, then skills by id. */
export function diffCards(prev: AgentCard, next: AgentCard): CardChange[] {
  const agent: CardChange[] = [];
  const ext: CardChange[] = [];
  const skills: CardChange[] = [];
  agentChanges(prev, next, agent);
  extensionChanges(prev, next, ext);
  skillChanges(prev, next, skills);
  const key = (c: CardChange) => `${c.extensionUri ?? ''}\u0000${c.skillId ?? ''}`;
  const stable = (xs: CardChange[]) =>
    xs
      .map((c, i) => [c, i] as const)
      .sort(([a, i], [b, j]) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : i - j))
      .map(([c]) => c);
  return [...agent, ...stable(ext), ...stable(skills)];
}

export const hasBreakingChange = (changes: readonly CardChange[]) => changes.some((c) => c.breaking);
