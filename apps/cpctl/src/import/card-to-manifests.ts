/**
 * An existing A2A agent's card as manifests (issue 28 item 7, ADR 0276): every skill a preview,
 * extended capability (seen by no tenant until one opts in) whose `upstream` is the agent itself,
 * for a team to review, then plan and apply. Pure: the card is untrusted input, every field is
 * bounded or dropped, every produced document passes the core's validator or is reported skipped
 * with the reason.
 */
import {
  CAPABILITY_ID,
  CAPABILITY_ID_MAX,
  MEDIA_TYPE,
  UPSTREAM_SKILL_MAX,
  upstreamCardUrl,
  upstreamUrlProblem,
  validateManifest,
  type ManifestDocument,
  type UpstreamSpec,
} from '@cp/capabilities';

/** A card lists at most this many skills for one import (more is refused, never silently cut). */
export const MAX_IMPORTED_SKILLS = 500;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const clean = (v: unknown, max: number): string | undefined => {
  if (typeof v !== 'string') return undefined;
  const s = v
    .replace(/\p{Cc}+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, max)
    .trim();
  return s === '' ? undefined : s;
};
const strings = (v: unknown, max: number, count: number, keep: (s: string) => boolean = () => true): string[] =>
  Array.isArray(v) ? [...new Set(v.map((x) => clean(x, max)).filter((s): s is string => s !== undefined && keep(s)))].slice(0, count) : [];

export interface ImportedCapability {
  capabilityId: string;
  /** The skill id on the upstream's card. */
  skill: string;
  document: ManifestDocument;
}

export interface CardImport {
  /** The agent's name on its card (for messages). */
  agent: string;
  upstream: Pick<UpstreamSpec, 'url' | 'binding' | 'version'>;
  capabilities: ImportedCapability[];
  /** Skill ids that were renamed to be capability ids, and why. */
  renamed: { skill: string; capabilityId: string }[];
  skipped: { skill: string; reason: string }[];
}

const BINDINGS: Record<string, UpstreamSpec['binding']> = { JSONRPC: 'jsonrpc', 'HTTP+JSON': 'http+json' };

function versionOf(v: unknown): UpstreamSpec['version'] | undefined {
  if (typeof v !== 'string') return undefined;
  if (/^1\.\d+(\.\d+)?$/.test(v) || v === '1') return '1.0';
  if (/^0\.3(\.\d+)?$/.test(v)) return '0.3';
  return undefined;
}

/**
 * The interface the node forwards to: the first of `supportedInterfaces` (1.0, in the card's order
 * of preference) with a binding and version the node speaks, else the 0.3 card's `url` with its
 * `preferredTransport`, then its `additionalInterfaces`.
 */
export function upstreamOfCard(card: Json): Pick<UpstreamSpec, 'url' | 'binding' | 'version'> | { problem: string } {
  const candidates: { url: unknown; binding: unknown; version: unknown }[] = [];
  if (Array.isArray(card.supportedInterfaces))
    for (const i of card.supportedInterfaces.slice(0, 50))
      if (isObject(i)) candidates.push({ url: i.url, binding: i.protocolBinding, version: i.protocolVersion });
  if (typeof card.url === 'string') {
    candidates.push({ url: card.url, binding: card.preferredTransport ?? 'JSONRPC', version: card.protocolVersion ?? '0.3.0' });
    if (Array.isArray(card.additionalInterfaces))
      for (const i of card.additionalInterfaces.slice(0, 50))
        if (isObject(i)) candidates.push({ url: i.url, binding: i.transport, version: card.protocolVersion ?? '0.3.0' });
  }
  const problems: string[] = [];
  for (const c of candidates) {
    const binding = typeof c.binding === 'string' ? BINDINGS[c.binding.toUpperCase()] : undefined;
    const version = versionOf(c.version);
    if (!binding || !version || typeof c.url !== 'string') continue;
    const problem = upstreamUrlProblem(c.url);
    if (problem) {
      problems.push(`interface ${c.url.slice(0, 200)}: ${problem}`);
      continue;
    }
    return { url: c.url, binding, version };
  }
  return {
    problem: problems.length
      ? `no usable interface (${problems.join('; ')})`
      : 'the card lists no JSON-RPC or HTTP+JSON interface of A2A 1.0 or 0.3 (supportedInterfaces, or url/preferredTransport)',
  };
}

/** A capability id made from a skill id (lowercase kebab, starting with a letter, at most 64), or undefined when nothing is left. */
export function capabilityIdOf(skillId: string): string | undefined {
  let s = skillId
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (s === '') return undefined;
  if (!/^[a-z]/.test(s)) s = `skill-${s}`;
  return s.slice(0, CAPABILITY_ID_MAX).replace(/-+$/, '');
}

function unique(base: string, taken: Set<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const id = `${base.slice(0, CAPABILITY_ID_MAX - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (!taken.has(id)) return id;
  }
}

export interface CardImportOptions {
  owner: string;
  /** The URL the card was fetched from (kept as upstream.card when it is not the default location). */
  source: string;
  /** Capability ids already used (other cards of the same import). */
  taken: Set<string>;
}

export function cardToManifests(card: unknown, options: CardImportOptions): CardImport | { problem: string } {
  if (!isObject(card)) return { problem: 'the card is not a JSON object' };
  const agent = clean(card.name, 200) ?? '(unnamed agent)';
  if (!Array.isArray(card.skills)) return { problem: `the card of "${agent}" has no skills list` };
  if (card.skills.length > MAX_IMPORTED_SKILLS)
    return { problem: `the card of "${agent}" lists ${card.skills.length} skills; one import takes at most ${MAX_IMPORTED_SKILLS}` };
  const upstream = upstreamOfCard(card);
  if ('problem' in upstream) return { problem: `the card of "${agent}": ${upstream.problem}` };
  const out: CardImport = { agent, upstream, capabilities: [], renamed: [], skipped: [] };
  const seenSkills = new Set<string>();
  const inputDefault = strings(card.defaultInputModes, 255, 20, (s) => MEDIA_TYPE.test(s));
  const outputDefault = strings(card.defaultOutputModes, 255, 20, (s) => MEDIA_TYPE.test(s));
  for (const [i, raw] of card.skills.entries()) {
    const label = isObject(raw) && typeof raw.id === 'string' ? raw.id.slice(0, 100) : `skills[${i}]`;
    if (!isObject(raw) || typeof raw.id !== 'string' || raw.id.trim() === '') {
      out.skipped.push({ skill: label, reason: 'has no id' });
      continue;
    }
    const skill = raw.id;
    if (skill.length > UPSTREAM_SKILL_MAX || /\p{Cc}/u.test(skill)) {
      out.skipped.push({ skill: label, reason: `its id is longer than ${UPSTREAM_SKILL_MAX} characters or holds control characters` });
      continue;
    }
    if (seenSkills.has(skill)) {
      out.skipped.push({ skill: label, reason: 'the card lists this skill id twice (the first is imported)' });
      continue;
    }
    seenSkills.add(skill);
    const base = capabilityIdOf(skill);
    if (!base) {
      out.skipped.push({ skill: label, reason: 'no capability id can be made from its id' });
      continue;
    }
    const capabilityId = unique(base, options.taken);
    const spec: UpstreamSpec = { ...upstream };
    if (upstreamCardUrl(spec) !== options.source) spec.card = options.source;
    if (capabilityId !== skill) spec.skill = skill;
    const name = clean(raw.name, 200) ?? clean(skill, 200)!;
    const tags = strings(raw.tags, 64, 20);
    const examples = strings(raw.examples, 1000, 10);
    const inputModes = raw.inputModes === undefined ? inputDefault : strings(raw.inputModes, 255, 20, (s) => MEDIA_TYPE.test(s));
    const outputModes = raw.outputModes === undefined ? outputDefault : strings(raw.outputModes, 255, 20, (s) => MEDIA_TYPE.test(s));
    const document = {
      id: capabilityId,
      state: 'preview',
      visibility: 'extended',
      skill: {
        name,
        description: clean(raw.description, 4000) ?? clean(card.description, 4000) ?? name,
        tags: tags.length ? tags : ['imported'],
        ...(examples.length ? { examples } : {}),
        ...(inputModes.length ? { inputModes } : {}),
        ...(outputModes.length ? { outputModes } : {}),
      },
      requires_scopes: [],
      tenants: '*',
      handler: `gateway.${capabilityId.replace(/-/g, '_')}`,
      limits: {},
      owner: options.owner,
      upstream: spec,
    };
    const valid = validateManifest(document);
    if (!valid.ok) {
      out.skipped.push({ skill: label, reason: valid.errors.map((e) => `${e.path}: ${e.message}`).join('; ') });
      continue;
    }
    options.taken.add(capabilityId);
    if (capabilityId !== skill) out.renamed.push({ skill, capabilityId });
    out.capabilities.push({ capabilityId, skill, document: document as ManifestDocument });
  }
  return out;
}

/** Deepest nesting of a JSON text, without parsing it (a deep document is refused before anything recursive reads it). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}

export const isValidCapabilityId = (id: string) => CAPABILITY_ID.test(id) && id.length <= CAPABILITY_ID_MAX;
