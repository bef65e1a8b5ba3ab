/**
 * Leak check (CI and the publish path): no text of a non-public skill may appear anywhere in the
 * public card. "Non-public" = live (not removed) extended or internal skills, and previews of any
 * visibility. Checked texts: id (as a whole token), name, description, each example, each tag not
 * also used by a skill that is in the public card, each scope it requires that no public skill
 * requires, and each tenant it is limited to (as whole tokens); plus any tenant slug the caller
 * names (e.g. tenants opted in to previews). The haystack is every string of the public card:
 * the agent's own name, description, provider and URLs as much as its skills.
 *
 * Both sides are folded first (leak-text.ts: NFKC, invisible characters removed, confusable
 * letters mapped to Latin, lower case), so a copy disguised with a Cyrillic "е" or a zero-width
 * space is still a copy. Strings shorter than 4 characters are ignored: they match by accident.
 */
import type { AgentCard } from './card-types';
import { buildPublicCard } from './cards';
import type { EveryField } from './every-field';
import { foldLeakText } from './leak-text';
import type { CapabilityManifest, RegistrySnapshot, SkillBlock } from './types';

export const MIN_LEAK_TEXT = 4;

export interface Leak {
  /** The non-public skill whose text leaked; `*` for a registry-level name (a tenant given in `context`). */
  skillId: string;
  /** Which text leaked: `id`, `name`, `description`, `examples[2]`, `tags[0]`, `requires_scopes[0]`, `tenants[1]`, `tenant`. */
  field: string;
  text: string;
}

export interface LeakContext {
  /** Tenant slugs that must never appear in public text (e.g. tenants opted in to previews). */
  tenants?: readonly string[];
}

const isPublicSkill = (m: CapabilityManifest) => m.visibility === 'public' && (m.state === 'ga' || m.state === 'deprecated');
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A whole token: not inside a longer slug or dotted name (`invoice` must not leak through `invoice-lookup`). */
const token = (text: string) => new RegExp(`(?<![\\p{L}\\p{N}_.-])${escape(text)}(?![\\p{L}\\p{N}_-]|\\.[\\p{L}\\p{N}])`, 'u');

/** Every string value of the card (keys are the A2A schema's, never caller text), folded. */
function haystackOf(card: unknown): string {
  const parts: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') parts.push(foldLeakText(value));
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(card);
  return parts.join('\n');
}

/** A three-code-unit window of a string as one number (exact: 3 × 16 bits fit a double). */
const windowAt = (text: string, i: number) => text.charCodeAt(i) * 4_294_967_296 + text.charCodeAt(i + 1) * 65_536 + text.charCodeAt(i + 2);

/**
 * `haystack.includes`, answered from an index of where each three-character window of the
 * haystack starts: a text is looked for only at the places of its rarest window (none: it occurs
 * nowhere). Same answers as `includes`; at 10,000 manifests, 5,000 non-public skills each
 * searching the whole public card took over a second per change (ADR 0200).
 */
export function substringSearcher(haystack: string): (folded: string) => boolean {
  const starts = new Map<number, number[]>();
  for (let i = 0; i + 3 <= haystack.length; i++) {
    const w = windowAt(haystack, i);
    const list = starts.get(w);
    if (list) list.push(i);
    else starts.set(w, [i]);
  }
  const common = 64 + haystack.length / 64;
  return (folded) => {
    if (folded.length < 3) return haystack.includes(folded);
    let rarest: number[] = [];
    let offset = -1;
    for (let i = 0; i + 3 <= folded.length; i++) {
      const list = starts.get(windowAt(folded, i));
      if (!list) return false;
      if (offset === -1 || list.length < rarest.length) {
        rarest = list;
        offset = i;
      }
    }
    // Every window is everywhere (repetitive text): one scan is cheaper than that many probes.
    if (rarest.length > common) return haystack.includes(folded);
    for (const p of rarest) if (p >= offset && haystack.startsWith(folded, p - offset)) return true;
    return false;
  };
}

/**
 * What the check looks for per skill field, in report order: `text` (the field), `each` (each
 * entry, as `field[i]`), `eachUnlessPublic` (each entry no public skill also has: tags shared with
 * a public skill are public anyway), `public` (never secret: media types are a public vocabulary).
 * Complete by type (ADR 0213): a new skill field does not compile until it is classified here.
 */
const SKILL_LEAK_RULES = {
  name: 'text',
  description: 'text',
  examples: 'each',
  tags: 'eachUnlessPublic',
  inputModes: 'public',
  outputModes: 'public',
} as const satisfies EveryField<SkillBlock, 'text' | 'each' | 'eachUnlessPublic' | 'public'>;
const SKILL_LEAK_FIELDS = Object.keys(SKILL_LEAK_RULES) as (keyof typeof SKILL_LEAK_RULES)[];

/** The [field, text] pairs of one non-public skill the public card must not contain. */
function skillTexts(skill: SkillBlock, publicValues: (field: keyof SkillBlock) => ReadonlySet<string>): [string, string][] {
  const out: [string, string][] = [];
  for (const field of SKILL_LEAK_FIELDS) {
    const rule = SKILL_LEAK_RULES[field];
    const value = skill[field];
    if (rule === 'public' || value === undefined) continue;
    // A `text` field holds a string, an `each` field a list of strings (the schema's types).
    if (rule === 'text') out.push([field, value as string]);
    else {
      const shared = rule === 'eachUnlessPublic' ? publicValues(field) : undefined;
      (value as readonly string[]).forEach((v, i) => {
        if (!shared?.has(foldLeakText(v))) out.push([`${field}[${i}]`, v]);
      });
    }
  }
  return out;
}

export function findLeaks(publicCard: AgentCard, manifests: readonly CapabilityManifest[], context: LeakContext = {}): Leak[] {
  const haystack = haystackOf(publicCard);
  const occurs = substringSearcher(haystack);
  const publicSkills = manifests.filter(isPublicSkill);
  const publicValues = new Map<keyof SkillBlock, Set<string>>();
  const publicOf = (field: keyof SkillBlock) => {
    let set = publicValues.get(field);
    if (!set) {
      set = new Set(publicSkills.flatMap((m) => ((m.skill[field] ?? []) as readonly string[]).map(foldLeakText)));
      publicValues.set(field, set);
    }
    return set;
  };
  const publicScopes = new Set(publicSkills.flatMap((m) => m.requiresScopes.map(foldLeakText)));
  const leaks: Leak[] = [];
  const tokenLeaks = (skillId: string, field: string, text: string) => {
    const folded = foldLeakText(text).trim();
    // A whole-token occurrence is an occurrence: the regular expression runs only where the text is.
    if (folded.length >= MIN_LEAK_TEXT && occurs(folded) && token(folded).test(haystack)) leaks.push({ skillId, field, text });
  };
  for (const m of manifests) {
    if (m.state === 'removed' || isPublicSkill(m)) continue;
    tokenLeaks(m.id, 'id', m.id);
    for (const [field, text] of skillTexts(m.skill, publicOf)) {
      const folded = foldLeakText(text).trim();
      if (folded.length >= MIN_LEAK_TEXT && occurs(folded)) leaks.push({ skillId: m.id, field, text });
    }
    m.requiresScopes.forEach((s, i) => !publicScopes.has(foldLeakText(s)) && tokenLeaks(m.id, `requires_scopes[${i}]`, s));
    if (m.tenants !== '*') m.tenants.forEach((t, i) => tokenLeaks(m.id, `tenants[${i}]`, t));
  }
  const named = new Set(leaks.filter((l) => l.field.startsWith('tenants[')).map((l) => foldLeakText(l.text)));
  for (const t of new Set(context.tenants ?? [])) if (!named.has(foldLeakText(t))) tokenLeaks('*', 'tenant', t);
  return leaks;
}

/** What identifies a leak across two registries: the skill, the field without its index (an example list may shift), the folded text. */
const leakKey = (l: Leak) => `${l.skillId}\u0000${l.field.replace(/\[\d+\]$/, '')}\u0000${foldLeakText(l.text).trim()}`;

/**
 * The leaks of `after` that `before` did not have: what a change would newly show (ADR 0335). A
 * change is judged on what it adds to the public card: text already shown before it is not shown
 * by it, and refusing every change while any leak remains would refuse the changes that remove
 * leaks one at a time as much as unrelated ones.
 */
export function addedLeaks(before: readonly Leak[], after: readonly Leak[]): Leak[] {
  const had = new Set(before.map(leakKey));
  return after.filter((l) => !had.has(leakKey(l)));
}

/**
 * The leaks the public card of `next` shows that the public card of `previous` did not (ADR 0335):
 * what changing the registry from one to the other would newly show.
 */
export function publicCardLeaksAdded(previous: RegistrySnapshot, next: RegistrySnapshot): Leak[] {
  const context = { tenants: next.previewTenants };
  return addedLeaks(
    findLeaks(buildPublicCard(previous), previous.manifests, context),
    findLeaks(buildPublicCard(next), next.manifests, context),
  );
}
