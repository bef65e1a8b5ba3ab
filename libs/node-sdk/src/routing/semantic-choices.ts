/**
 * The lexical router decides; a semantic ranking chooses what a clarification offers (issue 31,
 * ADR 0361). Route or ask is the lexical classifier's verdict, unchanged, so the semantic layer
 * cannot add a wrong route: only when the router is going to ask (no best guess, or confidence
 * below the threshold) is the embeddings endpoint called, and its ranking of the same entitled
 * candidates is fused with the lexical order to fill the at most three choices
 * (`fuseChoices`: the lexical best guess first, then reciprocal-rank fusion). Endpoint down, slow,
 * cooling down or answering nonsense: the lexical choices are offered, as without it.
 *
 * With `secondOpinion` (EMBEDDINGS_ROLE=second-opinion, ADR 0362) the endpoint is asked about
 * messages the router routes too, and may only VETO: when its best candidate's cosine exceeds the
 * routed capability's by more than the margin, the message is clarified instead, offering the
 * fused three with the routed capability first. It never routes, never routes elsewhere; a failed
 * or nonsensical answer leaves the lexical route.
 */
import {
  DEFAULT_CHOICE_FUSION,
  DEFAULT_CONFIDENCE_THRESHOLD,
  LexicalClassifier,
  fuseChoices,
  lexicalChoiceOrder,
  applySecondOpinion,
  type ChoiceFusion,
  type SecondOpinion,
  type Classifier,
  type ClassifierResult,
  type RankedCandidate,
  type RouterEntry,
} from '@cp/capabilities';

/** What ranks the candidates by meaning (EmbeddingsClassifier.rank); it throws when it cannot. */
export interface SemanticRanker {
  rank(text: string, candidates: readonly RouterEntry[]): Promise<RankedCandidate[]>;
}

export interface SemanticChoicesOptions {
  ranker: SemanticRanker;
  /** Decides route or ask; default the lexical router. */
  lexical?: Classifier;
  /** The router's threshold (route options): below it the router asks, and only then is the ranker called. */
  threshold?: number;
  fusion?: ChoiceFusion;
  /** Off when absent: routed messages are not sent to the ranker (ADR 0361). On: ADR 0362. */
  secondOpinion?: SecondOpinion;
}

export class SemanticChoicesClassifier implements Classifier {
  private readonly lexical: Classifier;

  constructor(private readonly options: SemanticChoicesOptions) {
    this.lexical = options.lexical ?? new LexicalClassifier();
  }

  /** The synchronous path (route()) has no time to ask: the lexical choices. */
  classify(text: string, candidates: readonly RouterEntry[]): ClassifierResult {
    return this.lexical.classify(text, candidates);
  }

  async classifyAsync(text: string, candidates: readonly RouterEntry[]): Promise<ClassifierResult> {
    const r = this.lexical.classifyAsync ? await this.lexical.classifyAsync(text, candidates) : this.lexical.classify(text, candidates);
    const threshold = this.options.threshold ?? DEFAULT_CONFIDENCE_THRESHOLD;
    const routes = r.id !== null && candidates.some((c) => c.id === r.id) && r.confidence >= threshold;
    if (routes && this.options.secondOpinion && candidates.length > 1)
      return this.secondOpinion(text, candidates, r, this.options.secondOpinion);
    if (routes || candidates.length <= 1 || text.trim() === '') return r;
    let semantic: RankedCandidate[];
    try {
      semantic = await this.options.ranker.rank(text, candidates);
      if (!Array.isArray(semantic)) throw new Error('the ranking is not a list');
    } catch (error) {
      return { ...r, reason: `${r.reason ?? ''}; choices not reordered: ${(error as Error).message}`.replace(/^; /, '') };
    }
    const ids = semantic
      .map((s) => (s !== null && typeof s === 'object' ? s.id : undefined))
      .filter((id): id is string => typeof id === 'string');
    const plausible = fuseChoices(lexicalChoiceOrder(r), ids, candidates, this.options.fusion ?? DEFAULT_CHOICE_FUSION);
    if (plausible.length === 0) return r;
    return {
      ...r,
      plausible,
      reason: `${r.reason ?? 'the best guess is not sure enough'}; choices ordered with the embeddings ranking`,
    };
  }

  /** ADR 0362: the lexical route stands unless the ranking vetoes it; a veto asks, routed capability first. */
  private async secondOpinion(
    text: string,
    candidates: readonly RouterEntry[],
    r: ClassifierResult,
    opinion: SecondOpinion,
  ): Promise<ClassifierResult> {
    let semantic: unknown;
    try {
      semantic = await this.options.ranker.rank(text, candidates);
    } catch {
      return r; // the endpoint failed (and cools down): the lexical route, as without it
    }
    return applySecondOpinion(r, semantic, candidates, opinion, this.options.fusion ?? DEFAULT_CHOICE_FUSION) ?? r;
  }
}
