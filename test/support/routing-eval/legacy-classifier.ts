/**
 * The router's classifier before issue 13 (the ADR 0031 lexical scorer), kept verbatim as the
 * "today" column of the routing evaluation and benchmark. Not product code.
 */
import type { Classifier, ClassifierResult, RouterEntry } from '@cp/capabilities';

// Words that say nothing about which capability is meant.
const STOPWORDS = new Set(
  'a an and are as at be by can could do does for from give have i in is it its me my of on or our please show tell that the their this to us we what when where which who will with would you your'.split(
    ' ',
  ),
);

/** Crude suffix stripping: enough for invoices/invoice, reconciling/reconcile, matched/match. */
export function stem(word: string): string {
  for (const suffix of ['ations', 'ation', 'ings', 'ing', 'ies', 'es', 'ed', 's', 'e']) {
    // status, class, analysis keep their s.
    if (suffix === 's' && /(ss|us|is)$/.test(word)) continue;
    if (word.endsWith(suffix) && word.length - suffix.length >= 4) return word.slice(0, -suffix.length);
  }
  return word;
}

/**
 * Lowercased stems of the alphanumeric runs, stopwords and pure numbers dropped (an invoice
 * number identifies an instance, never a capability).
 */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.toLowerCase().split(/[^a-z0-9]+/)) {
    if (raw.length < 2 || STOPWORDS.has(raw) || /^\d+$/.test(raw)) continue;
    out.push(stem(raw));
  }
  return out;
}

/** Where a term appears in a skill decides how much it says: id and name most, prose least. */
const FIELD_WEIGHTS = { id: 3, name: 3, tags: 2, examples: 1.5, description: 1 } as const;

type TermWeights = ReadonlyMap<string, number>;

function compile(entry: RouterEntry): TermWeights {
  const weights = new Map<string, number>();
  const add = (text: string, weight: number) => {
    for (const t of terms(text)) weights.set(t, Math.max(weights.get(t) ?? 0, weight));
  };
  add(entry.id, FIELD_WEIGHTS.id);
  add(entry.skill.name, FIELD_WEIGHTS.name);
  for (const tag of entry.skill.tags) add(tag, FIELD_WEIGHTS.tags);
  for (const example of entry.skill.examples) add(example, FIELD_WEIGHTS.examples);
  add(entry.skill.description, FIELD_WEIGHTS.description);
  return weights;
}

/**
 * Scores each candidate as Σ over the query's distinct terms of (field weight × idf), idf taken
 * over the candidate set so words every candidate shares count for little.
 * confidence = share × coverage, where share = s1² / (s1² + s2²) (best against runner-up: a tie
 * gives 0.5, a lone match 1) and coverage = 0.5 + 0.5 × (fraction of the query's terms the best
 * candidate knows). Ties break by id, so the answer never depends on candidate order.
 */
export class LegacyLexicalClassifier implements Classifier {
  // Router entries are frozen per (revision, entitlement class): compile each once.
  private readonly compiled = new WeakMap<RouterEntry, TermWeights>();

  classify(text: string, candidates: readonly RouterEntry[]): ClassifierResult {
    const query = [...new Set(terms(text))];
    if (query.length === 0 || candidates.length === 0) return { id: null, confidence: 0 };
    const vectors = candidates.map((c) => this.vector(c));
    const idf = query.map((t) => {
      let df = 0;
      for (const v of vectors) if (v.has(t)) df++;
      return df === 0 ? 0 : Math.log((candidates.length + 1) / df);
    });
    let best = -1;
    let bestScore = 0;
    let bestMatched = 0;
    let second = 0;
    for (let i = 0; i < candidates.length; i++) {
      const v = vectors[i];
      let score = 0;
      let matched = 0;
      for (let q = 0; q < query.length; q++) {
        const w = v.get(query[q]);
        if (w !== undefined) {
          score += w * idf[q];
          matched++;
        }
      }
      if (score <= 0) continue;
      const better = score > bestScore || (score === bestScore && best >= 0 && candidates[i].id < candidates[best].id);
      if (better) {
        second = Math.max(second, bestScore);
        best = i;
        bestScore = score;
        bestMatched = matched;
      } else {
        second = Math.max(second, score);
      }
    }
    if (best < 0) return { id: null, confidence: 0 };
    const share = bestScore ** 2 / (bestScore ** 2 + second ** 2);
    const coverage = 0.5 + (0.5 * bestMatched) / query.length;
    return { id: candidates[best].id, confidence: round(share * coverage) };
  }

  private vector(entry: RouterEntry): TermWeights {
    let v = this.compiled.get(entry);
    if (!v) {
      v = compile(entry);
      this.compiled.set(entry, v);
    }
    return v;
  }
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;
