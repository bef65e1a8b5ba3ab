/**
 * Which choices a clarification offers when a second ranking is at hand (issue 31, ADR 0361): the
 * router has already decided to ask (the lexical classifier's verdict, unchanged), and a semantic
 * ranking of the same candidates (the embeddings endpoint a team plugged in) helps choose and
 * order the at most three choices. Pure; only ids among `candidates` come out, whatever either
 * ranking names.
 */
import type { RouterEntry } from '../router-index';
import type { ClassifierResult } from './classifier';
import { MAX_CHOICES } from './clarification';

export interface ChoiceFusion {
  /** The lexical best guess stays the first choice (when the lexical classifier ranked anything). */
  keepLexicalFirst: boolean;
  /** Reciprocal-rank fusion constant: score = Σ weight / (k + rank), rank from 1. */
  k: number;
  /** Weight of the semantic ranking's term (the lexical one weighs 1). */
  semanticWeight: number;
}

/** Chosen on the tuning half of the labelled set (ADR 0361). */
export const DEFAULT_CHOICE_FUSION: ChoiceFusion = { keepLexicalFirst: true, k: 5, semanticWeight: 2 };

/**
 * The order the router would offer from a classifier's result alone (route.ts `choices`): its
 * plausible set, then the rest of its ranking that scored.
 */
export function lexicalChoiceOrder(result: ClassifierResult): string[] {
  return [...new Set([...(result.plausible ?? []), ...(result.ranking ?? []).filter((r) => r.score > 0).map((r) => r.id)])];
}

/**
 * At most MAX_CHOICES candidate ids, best first: the lexical order (its first choice kept when
 * `keepLexicalFirst`), then the rest by reciprocal-rank fusion of the lexical and semantic orders.
 * Ids not among `candidates`, and repeats, are dropped from both orders first.
 */
export function fuseChoices(
  lexical: readonly string[],
  semantic: readonly string[],
  candidates: readonly RouterEntry[],
  fusion: ChoiceFusion = DEFAULT_CHOICE_FUSION,
): string[] {
  const known = new Set(candidates.map((c) => c.id));
  const clean = (ids: readonly string[]) => [...new Set(ids.filter((id) => typeof id === 'string' && known.has(id)))];
  const lex = clean(lexical);
  const sem = clean(semantic);
  const score = new Map<string, number>();
  const add = (ids: string[], weight: number) => ids.forEach((id, i) => score.set(id, (score.get(id) ?? 0) + weight / (fusion.k + i + 1)));
  add(lex, 1);
  add(sem, fusion.semanticWeight);
  const first = fusion.keepLexicalFirst && lex.length > 0 ? [lex[0]] : [];
  // Ties: lexical order first, then semantic order (both deterministic).
  const position = (id: string) => {
    const l = lex.indexOf(id);
    return l >= 0 ? l : lex.length + sem.indexOf(id);
  };
  const rest = [...score.keys()]
    .filter((id) => !first.includes(id))
    .sort((a, b) => (score.get(b) as number) - (score.get(a) as number) || position(a) - position(b));
  return [...first, ...rest].slice(0, MAX_CHOICES);
}

/** When a semantic ranking may turn a route into a clarification (issue 31, ADR 0362). */
export interface SecondOpinion {
  /** Veto when the semantic ranking's best cosine exceeds the routed capability's by more than this. */
  margin: number;
}

/** Chosen on the tuning half of the labelled set (ADR 0362): the middle of the 0.12–0.25 plateau. */
export const DEFAULT_SECOND_OPINION: SecondOpinion = { margin: 0.2 };

/**
 * Whether a semantic ranking vetoes routing to `routed`: among the entries that name one of
 * `candidates` with a finite score, the best exceeds the routed capability's by more than
 * `margin`. A ranking that does not score the routed capability (garbage, a partial answer) does
 * not veto: the lexical route stands. Pure.
 */
export function secondOpinionVetoes(
  routed: string,
  semantic: readonly unknown[],
  candidates: readonly RouterEntry[],
  opinion: SecondOpinion = DEFAULT_SECOND_OPINION,
): boolean {
  const known = new Set(candidates.map((c) => c.id));
  const scored = semantic.filter(
    (s): s is { id: string; score: number } =>
      s !== null &&
      typeof s === 'object' &&
      typeof (s as { id?: unknown }).id === 'string' &&
      known.has((s as { id: string }).id) &&
      typeof (s as { score?: unknown }).score === 'number' &&
      Number.isFinite((s as { score: number }).score),
  );
  const mine = scored.find((s) => s.id === routed);
  if (mine === undefined) return false;
  const best = Math.max(...scored.map((s) => s.score));
  return best - mine.score > opinion.margin;
}

/**
 * The second opinion applied to a classifier's routing verdict `r` (ADR 0362): null when the
 * ranking does not veto (the route stands), else the same verdict turned into a question: the
 * same best guess, confidence 0, and the fused choices with the routed capability first. Never
 * names a capability outside `candidates`, never a different route.
 */
export function applySecondOpinion(
  r: ClassifierResult,
  semantic: unknown,
  candidates: readonly RouterEntry[],
  opinion: SecondOpinion = DEFAULT_SECOND_OPINION,
  fusion: ChoiceFusion = DEFAULT_CHOICE_FUSION,
): ClassifierResult | null {
  const routed = r.id;
  if (routed === null || !Array.isArray(semantic)) return null;
  if (!secondOpinionVetoes(routed, semantic, candidates, opinion)) return null;
  const known = new Set(candidates.map((c) => c.id));
  const ranked = (semantic as unknown[]).filter(
    (s): s is { id: string; score: number } =>
      s !== null && typeof s === 'object' && known.has((s as { id: string }).id) && Number.isFinite((s as { score: number }).score),
  );
  const best = ranked.reduce((a, b) => (b.score > a.score ? b : a));
  const mine = ranked.find((s) => s.id === routed) as { id: string; score: number };
  return {
    ...r,
    confidence: 0,
    plausible: fuseChoices(
      [routed, ...lexicalChoiceOrder(r)],
      ranked.map((s) => s.id),
      candidates,
      { ...fusion, keepLexicalFirst: true },
    ),
    reason:
      `${r.reason ?? `"${routed}" would be routed`} (lexical confidence ${r.confidence.toFixed(2)}); the embeddings ranking puts ` +
      `"${best.id}" ahead of it by ${(best.score - mine.score).toFixed(3)} (more than ${opinion.margin}), so it asks instead`,
  };
}
