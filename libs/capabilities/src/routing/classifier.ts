/**
 * The text classifier layer. `Classifier` is the seam another router implements (the node SDK's
 * embeddings router does); the default is a deterministic lexical ranker (no model download, the
 * same answer on every machine). ADR 0090.
 */
import type { RouterEntry } from '../router-index';
import { asksAboutState, bigrams, describesAction, terms, tokens, withoutNames } from './text';

export interface RankedCandidate {
  id: string;
  /** The classifier's own scale (BM25F score, cosine similarity): comparable within one decision. */
  score: number;
}

export interface ClassifierResult {
  /** A candidate's id, or null when nothing in the text points anywhere. */
  id: string | null;
  /** 0..1. The router asks the caller to choose below its threshold (0.6). */
  confidence: number;
  /** Candidates that scored, best first (at most a handful): the decision's explanation. */
  ranking?: RankedCandidate[];
  /** Ids worth offering when the router asks (best first); absent: every fitting candidate. */
  plausible?: string[];
  /** Why the winner won, or why nobody did, in one sentence. */
  reason?: string;
}

export interface Classifier {
  classify(text: string, candidates: readonly RouterEntry[]): ClassifierResult;
  /**
   * Optional: a classifier that must ask something outside the process (an embeddings endpoint)
   * answers here; `routeAsync` prefers it. It must still only ever name one of `candidates`.
   */
  classifyAsync?(text: string, candidates: readonly RouterEntry[]): Promise<ClassifierResult>;
}

/** Routing-only hints a manifest may carry (never in any card): synonyms/jargon, and words that mean "not this one". */
export interface RoutingHints {
  terms: readonly string[];
  negativeTerms: readonly string[];
}

/**
 * BM25F field weights and length normalisation. Chosen on the tuning half of the evaluation set
 * (ADR 0095): the description (the team's own words for what the capability does) says most;
 * names and routing terms next; ids, tags and examples add. Heavier names and routing terms (the
 * issue-13 weights 2 / 2.5) let one shared word in a short name decide routes. The saturation
 * (k1) keeps one heavily weighted word from deciding alone.
 */
const FIELDS = {
  name: { weight: 1.5, b: 0.5 },
  id: { weight: 1, b: 0 },
  tags: { weight: 1, b: 0 },
  examples: { weight: 1, b: 0.75 },
  description: { weight: 2, b: 0.75 },
  terms: { weight: 1.5, b: 0 },
  /** Words a lexical database relates to the capability's own words (ADR 0290); empty unless an expansion is given. */
  expanded: { weight: 0.3, b: 0 },
} as const;
const K1 = 1.2;
type Field = keyof typeof FIELDS;
const FIELD_NAMES = Object.keys(FIELDS) as Field[];
const FIELD_COUNT = FIELD_NAMES.length;
/**
 * The clarify decision (ADR 0095): route only when the winner's evidence is both strong enough in
 * absolute terms (its score in units of one rare word matched in full, so the scale does not move
 * with the number of candidates) and clearly ahead of the runner-up (relative margin
 * (s1 − s2) / s1). The edges are chosen on the tuning half of the evaluation set only, as the
 * pair that routes the most clear messages while wrong routes stay ≤ 3% in 90% of bootstrap
 * resamples of that half (ADR 0096, test/support/routing-eval/robust-pick.ts).
 */
export interface Calibration {
  /** Minimum winner strength: score / idf of a word only one candidate knows. */
  minStrength: number;
  /** Minimum relative margin over the runner-up, 0..1. */
  minMargin: number;
}
export const DEFAULT_CALIBRATION: Calibration = { minStrength: 1.0, minMargin: 0.3 };
/** The router's default threshold: the confidence this classifier gives at exactly the calibration's edges. */
const AT_EDGE = 0.6;
/** Fewer distinct known words than this: a short generic message ("cancel it", "refund"). */
const MIN_KNOWN_TERMS = 2;
/** Short generic messages never score above this (below the default threshold 0.6). */
const GENERIC_CAP = 0.5;
/** A runner-up within this fraction of the winner's score is offered when the router asks. */
const PLAUSIBLE_RATIO = 0.5;
const MAX_OFFERED = 5;
const RANKING_SIZE = 5;
/**
 * A message that asks how something stands weighs capabilities that act by this factor (ADR
 * 0198): "has the PO been approved" is about the order's status, not a request to approve it.
 * Chosen on the evaluation sets already looked at (tuning half, held-out half, second set).
 */
const ACTION_WEIGHT_FOR_STATE_QUESTIONS = 0.6;

/**
 * Index-time expansion of a capability's words (ADR 0290): words related to one word (synonyms,
 * derivations), e.g. from WordNet. Pure from the router's point of view: same word, same answer.
 */
export interface TermExpansion {
  expand(word: string): readonly string[];
}

export interface LexicalOptions {
  expansion?: TermExpansion;
  /** BM25F weight of the expanded words (below every original field's). */
  expansionWeight?: number;
  /** Index the names in examples as evidence, as before ADR 0360 (measurement only: the routing bench's "previous" column). */
  namesInExamples?: boolean;
}

interface Compiled {
  /** term → per-field term frequencies (FIELD_NAMES order). */
  tf: Map<string, number[]>;
  length: number[];
  negative: Set<string>;
  /** Terms only the expansion gave (ADR 0290): they do not count towards document frequency. */
  borrowed: Set<string>;
  /** The capability changes something (its description does not open with a reporting verb). */
  acts: boolean;
}

function compile(entry: RouterEntry, options: LexicalOptions): Compiled {
  const { expansion } = options;
  const tf = new Map<string, number[]>();
  const length = FIELD_NAMES.map(() => 0);
  const add = (field: Field, stems: readonly string[]) => {
    const f = FIELD_NAMES.indexOf(field);
    for (const t of stems) {
      let row = tf.get(t);
      if (!row) tf.set(t, (row = FIELD_NAMES.map(() => 0)));
      row[f]++;
      length[f]++;
    }
  };
  // Names and examples count their adjacent-word phrases too: a message that says "status of
  // invoice" like the example does beats one that merely shares the word "invoice".
  const withPhrases = (text: string) => {
    const stems = terms(text);
    return [...stems, ...bigrams(stems)];
  };
  add('name', withPhrases(entry.skill.name));
  add('id', terms(entry.id.replace(/-/g, ' ')));
  for (const tag of entry.skill.tags) add('tags', terms(tag));
  // The names an example uses (a supplier, a person, a city) are values, not evidence (ADR 0360).
  const own = options.namesInExamples
    ? undefined
    : new Set(
        terms(
          [
            entry.id.replace(/-/g, ' '),
            entry.skill.name,
            entry.skill.description,
            ...entry.skill.tags,
            ...(entry.routing?.terms ?? []),
          ].join(' '),
        ),
      );
  for (const example of entry.skill.examples) add('examples', withPhrases(own ? withoutNames(example, own) : example));
  add('description', terms(entry.skill.description));
  const negative = new Set<string>();
  for (const term of entry.routing?.terms ?? []) {
    // A multi-word term counts as its phrase (matched as adjacent words) and as its words.
    const stems = terms(term);
    add('terms', stems.length > 1 ? [...stems, ...bigrams(stems)] : stems);
  }
  for (const term of entry.routing?.negativeTerms ?? []) {
    const stems = terms(term);
    if (stems.length === 1) negative.add(stems[0]);
    else for (const b of bigrams(stems)) negative.add(b);
  }
  const borrowed = new Set<string>();
  if (expansion) {
    // Related words of the capability's own words, each stem once, minus stems it already holds.
    const texts = [
      entry.skill.name,
      entry.skill.description,
      ...entry.skill.tags,
      ...entry.skill.examples,
      ...(entry.routing?.terms ?? []),
    ];
    for (const word of new Set(texts.flatMap((text) => tokens(text))))
      if (terms(word).length > 0)
        for (const r of expansion.expand(word)) for (const t of terms(r)) if (!tf.has(t) && !negative.has(t)) borrowed.add(t);
    add('expanded', [...borrowed]);
  }
  return { tf, length, negative, borrowed, acts: describesAction(entry.skill.description) };
}

/**
 * Ranks candidates with BM25F over name, id, tags, examples, description and routing terms
 * (idf over the candidate set, adjacent-word phrases for multi-word routing terms), then decides
 * how sure it is from the margins between the candidates that matched:
 *   strength = s1 / idf(a word one candidate knows),  margin = (s1 − s2) / s1,
 *   confidence = min(f(margin), g(strength)), each ≥ 0.6 exactly when its calibration edge holds.
 * Words no candidate knows (names, amounts, dates, chit-chat) add to nobody's score, so they
 * change nothing. A message with fewer than two known words ("cancel it", "refund") is generic and
 * stays below the threshold. A candidate whose negative term is in the message is out. Ties break
 * by id.
 */
export class LexicalClassifier implements Classifier {
  private readonly weights: Record<Field, number>;
  constructor(
    private readonly calibration: Calibration = DEFAULT_CALIBRATION,
    private readonly options: LexicalOptions = {},
  ) {
    this.weights = Object.fromEntries(FIELD_NAMES.map((f) => [f, FIELDS[f].weight])) as Record<Field, number>;
    if (options.expansionWeight !== undefined) this.weights.expanded = options.expansionWeight;
  }

  // Router entries are frozen per (revision, entitlement class): compile each once.
  private readonly compiled = new WeakMap<RouterEntry, Compiled>();
  // The corpus view of the last candidate list seen with a given first entry (a node routes
  // through the same few lists over and over): compiled docs, average field lengths.
  private readonly corpora = new WeakMap<RouterEntry, Corpus>();

  classify(text: string, candidates: readonly RouterEntry[]): ClassifierResult {
    const unigrams = terms(text);
    if (unigrams.length === 0 || candidates.length === 0)
      return { id: null, confidence: 0, ranking: [], plausible: [], reason: 'the message has no words to route by' };
    const { docs, saturated, withNegatives } = this.corpus(candidates);
    const n = candidates.length;
    // Postings of the message's distinct words; a phrase can only be where both its words are.
    const postings = new Map<string, number[]>();
    for (const t of new Set(unigrams)) {
      const hits: number[] = [];
      for (let i = 0; i < n; i++) if (docs[i].tf.has(t)) hits.push(i);
      if (hits.length > 0) postings.set(t, hits);
    }
    // Phrases over the KNOWN words only, so a name or number in between changes nothing.
    const phrases = bigrams(unigrams.filter((t) => postings.has(t)));
    for (const phrase of new Set(phrases)) {
      const first = postings.get(phrase.slice(0, phrase.indexOf(' ')));
      if (!first || !postings.has(phrase.slice(phrase.indexOf(' ') + 1))) continue;
      const hits = first.filter((i) => docs[i].tf.has(phrase));
      if (hits.length > 0) postings.set(phrase, hits);
    }
    const knownWords = postings.size;
    const excluded = new Set<number>();
    for (const i of withNegatives) for (const t of unigrams.concat(phrases)) if (docs[i].negative.has(t)) excluded.add(i);

    const scores = new Float64Array(n);
    for (const [t, hits] of postings) {
      // Document frequency counts the capabilities' own words only: related words a capability
      // merely borrowed (ADR 0290) do not make a word common.
      let df = hits.length;
      if (this.options.expansion) {
        for (const i of hits) if (docs[i].borrowed.has(t)) df--;
        df = Math.max(df, 1);
      }
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (const i of hits) scores[i] += idf * (saturated[i].get(t) as number);
    }
    const stateQuestion = asksAboutState(text);
    let weighedDown = false;
    if (stateQuestion)
      for (let i = 0; i < n; i++)
        if (scores[i] > 0 && docs[i].acts) {
          scores[i] *= ACTION_WEIGHT_FOR_STATE_QUESTIONS;
          weighedDown = true;
        }
    // Ties break by id, so the answer never depends on candidate order.
    const before = (a: number, b: number) => scores[a] > scores[b] || (scores[a] === scores[b] && candidates[a].id < candidates[b].id);
    const top: number[] = []; // the best RANKING_SIZE, best first (insertion: n × 5 at most)
    let count = 0;
    for (let i = 0; i < n; i++) {
      if (scores[i] <= 0 || excluded.has(i)) continue;
      count++;
      if (top.length === RANKING_SIZE && !before(i, top[RANKING_SIZE - 1])) continue;
      let k = Math.min(top.length, RANKING_SIZE - 1);
      top[k] = i;
      while (k > 0 && before(i, top[k - 1])) {
        top[k] = top[k - 1];
        top[--k] = i;
      }
    }
    if (count === 0)
      return { id: null, confidence: 0, ranking: [], plausible: [], reason: 'no word of the message is known to any candidate' };
    const best = top[0];
    const next = top[1];
    // Margin and strength, each mapped so that its calibration edge gives exactly AT_EDGE and the
    // confidence is the weaker of the two: both must hold for the router to route. Words nobody
    // knows add no score to anyone and change neither.
    const s1 = scores[best];
    const s2 = next === undefined ? 0 : scores[next];
    const margin = (s1 - s2) / s1;
    const strength = s1 / Math.log(1 + (n - 0.5) / 1.5);
    const { minStrength, minMargin } = this.calibration;
    const byMargin =
      margin >= minMargin
        ? AT_EDGE + ((1 - AT_EDGE) * (margin - minMargin)) / Math.max(1 - minMargin, 1e-9)
        : (AT_EDGE * margin) / minMargin;
    const byStrength = Math.max(0, 1 - ((1 - AT_EDGE) * minStrength) / strength);
    let confidence = Math.min(byMargin, byStrength);
    const generic = knownWords < MIN_KNOWN_TERMS;
    if (generic) confidence = Math.min(confidence, GENERIC_CAP);
    const winner = candidates[best].id;
    const ranking = top.map((i) => ({ id: candidates[i].id, score: round(scores[i]) }));
    const plausible = top
      .filter((i) => scores[i] >= scores[best] * PLAUSIBLE_RATIO)
      .slice(0, MAX_OFFERED)
      .map((i) => candidates[i].id);
    const matched = [...postings.keys()].filter((t) => docs[best].tf.has(t));
    const why = generic
      ? `the message is too generic to decide (${knownWords} known word${knownWords === 1 ? '' : 's'})`
      : `"${winner}" matched ${matched.map((t) => `"${t}"`).join(', ')}; ${next !== undefined ? `score ${round(scores[best])} against ${round(scores[next])} for "${candidates[next].id}"` : 'no other candidate matched'}`;
    const reason = weighedDown
      ? `${why} (the message asks how something stands: capabilities that act weigh ${ACTION_WEIGHT_FOR_STATE_QUESTIONS})`
      : why;
    return { id: winner, confidence: round(confidence), ranking, plausible, reason };
  }

  private corpus(candidates: readonly RouterEntry[]): Corpus {
    const n = candidates.length;
    const cached = this.corpora.get(candidates[0]);
    if (cached && cached.docs.length === n && cached.entries.every((e, i) => e === candidates[i])) return cached;
    const docs = candidates.map((c) => this.vector(c));
    const avg = FIELD_NAMES.map((_, f) => docs.reduce((sum, d) => sum + d.length[f], 0) / n || 1);
    // BM25F per candidate and term, fixed for this candidate list: the pseudo term frequency
    // Σ_f weight_f × tf_f / (1 − b_f + b_f × len_f / avg_f), saturated as tf / (k1 + tf).
    const saturated = docs.map((d) => {
      const c = FIELD_NAMES.map((name, f) => this.weights[name] / (1 - FIELDS[name].b + (FIELDS[name].b * d.length[f]) / avg[f]));
      const out = new Map<string, number>();
      for (const [t, row] of d.tf) {
        let pseudo = 0;
        for (let f = 0; f < FIELD_COUNT; f++) if (row[f] !== 0) pseudo += row[f] * c[f];
        out.set(t, pseudo / (K1 + pseudo));
      }
      return out;
    });
    const withNegatives = docs.flatMap((d, i) => (d.negative.size > 0 ? [i] : []));
    const corpus = { entries: [...candidates], docs, saturated, withNegatives };
    this.corpora.set(candidates[0], corpus);
    return corpus;
  }

  private vector(entry: RouterEntry): Compiled {
    let v = this.compiled.get(entry);
    if (!v) {
      v = compile(entry, this.options);
      this.compiled.set(entry, v);
    }
    return v;
  }
}

interface Corpus {
  entries: RouterEntry[];
  docs: Compiled[];
  saturated: Map<string, number>[];
  withNegatives: number[];
}

const round = (x: number) => Math.round(x * 1e3) / 1e3;
