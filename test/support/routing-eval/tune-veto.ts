/**
 * Tuning aid (not a test, ADR 0362): which rule lets the embeddings ranking turn a lexical ROUTE
 * into a clarification (a "second opinion" that can only veto). USE-lite served locally
 * (local-embeddings.ts). Figures only, on the TUNING half by default; TUNE_SETS=tuning,held-out,second
 * adds the looked-at held-out sets. The blind third set is not reachable from here.
 * Run: BENCH_USE_PREFIX=/tmp/use-lite npx tsx test/support/routing-eval/tune-veto.ts
 */
import {
  DEFAULT_CONFIDENCE_THRESHOLD,
  DEFAULT_SECOND_OPINION,
  LexicalClassifier,
  fuseChoices,
  lexicalChoiceOrder,
  routingTestIndex,
  type Classifier,
  type ClassifierResult,
  type RankedCandidate,
  type RouterEntry,
} from '@cp/capabilities';
import { EmbeddingsClassifier } from '../../../libs/node-sdk/src/routing/embeddings-classifier';
import { SemanticChoicesClassifier } from '../../../libs/node-sdk/src/routing/semantic-choices';
import { precomputed, startLocalEmbeddings } from './local-embeddings';
import { evaluate, half, loadEvalSet, loadSecondHeldOut, type EvalSet } from './routing-eval';

const SETS: Record<string, () => EvalSet> = {
  tuning: () => half(loadEvalSet(), 'tuning'),
  'held-out': () => half(loadEvalSet(), 'held-out'),
  second: () => loadSecondHeldOut(),
};

interface Rule {
  /** Veto when the routed capability's semantic rank (from 1) is above this. */
  maxRank: number;
  /** Veto when the semantic top score minus the routed capability's score exceeds this. */
  margin: number;
  both: boolean;
  /** Only routes whose lexical confidence is below this are second-guessed. */
  below: number;
}

function vetoes(routed: string, semantic: RankedCandidate[], rule: Rule): boolean {
  const i = semantic.findIndex((s) => s.id === routed);
  const rank = i < 0 ? Infinity : i + 1;
  const gap = i < 0 ? Infinity : semantic[0].score - semantic[i].score;
  const byRank = rank > rule.maxRank;
  const byMargin = gap > rule.margin;
  return rule.both ? byRank && byMargin : byRank || byMargin;
}

async function main(): Promise<void> {
  const local = await startLocalEmbeddings();
  try {
    const embeddings = new EmbeddingsClassifier({ url: local.url, model: 'use-lite', timeoutMs: 60_000 });
    const rules: [string, Rule | null][] = [['§5 (choices only)', null]];
    for (const below of [Infinity, 0.8, 0.7, 0.65])
      for (const maxRank of [1, 2, 3, 5, 8, 10, 12, 15])
        rules.push([`rank>${maxRank} conf<${below}`, { maxRank, margin: Infinity, both: false, below }]);
    for (const below of [Infinity, 0.8, 0.7, 0.65])
      for (const margin of [0.02, 0.05, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4])
        rules.push([`gap>${margin} conf<${below}`, { maxRank: Infinity, margin, both: false, below }]);
    for (const below of [Infinity, 0.8])
      for (const maxRank of [1, 2, 3])
        for (const margin of [0.02, 0.05, 0.1])
          rules.push([`rank>${maxRank}&gap>${margin} conf<${below}`, { maxRank, margin, both: true, below }]);
    for (const name of (process.env.TUNE_SETS ?? 'tuning').split(',')) {
      const load = SETS[name];
      if (!load) throw new Error(`unknown set ${name} (tuning, held-out, second)`);
      const view = load();
      const entries = routingTestIndex(view.snapshot, {}).entries;
      const texts = [...new Set(view.suite.tests.map((t) => t.text ?? ''))];
      const lexical = new LexicalClassifier();
      const ranking = new Map<string, RankedCandidate[]>();
      for (const t of texts) ranking.set(t, await embeddings.rank(t, entries));
      const ranker = { rank: async (t: string) => ranking.get(t) as RankedCandidate[] };
      const choices = await precomputed(new SemanticChoicesClassifier({ ranker }), texts, entries);
      const total = view.suite.tests.length;
      console.log(`## ${name} (${total} messages)`);
      const lex = evaluate(view, lexical);
      const pct = (n: number, d: number) => ((100 * n) / d).toFixed(1).padStart(5);
      const line = (label: string, f: ReturnType<typeof evaluate>, extra = '') =>
        console.log(
          `${label.padEnd(30)} routed right ${pct(f.clearCorrect, f.clear)}%  one-turn ${pct(f.oneTurn, f.clear)}%  wrong ${String(f.wrongRoutes).padStart(2)} ${pct(f.wrongRoutes, total)}%  amb clarified ${f.ambiguousClarified}/${f.ambiguous}${extra}`,
        );
      line('lexical', lex);
      // The shipped rule through the product class (must equal its grid row, gap>0.2 conf<Infinity).
      const shipped = await precomputed(new SemanticChoicesClassifier({ ranker, secondOpinion: DEFAULT_SECOND_OPINION }), texts, entries);
      line('shipped (DEFAULT_SECOND_OPINION)', evaluate(view, shipped));
      for (const [label, rule] of rules) {
        if (!rule) {
          line(label, evaluate(view, choices));
          continue;
        }
        const vetoed = new Set<string>();
        const c: Classifier = {
          classify(text: string, candidates: readonly RouterEntry[]): ClassifierResult {
            const r = choices.classify(text, candidates);
            const routes = r.id !== null && r.confidence >= DEFAULT_CONFIDENCE_THRESHOLD;
            if (!routes || r.confidence >= rule.below) return r;
            const semantic = ranking.get(text) as RankedCandidate[];
            if (!vetoes(r.id as string, semantic, rule)) return r;
            vetoed.add(text);
            const plausible = fuseChoices(
              lexicalChoiceOrder(r),
              semantic.map((s) => s.id),
              candidates,
            );
            return { ...r, confidence: 0, plausible };
          },
        };
        line(label, evaluate(view, c), `  (vetoed ${vetoed.size})`);
      }
    }
  } finally {
    local.server.close();
  }
}

void main();
