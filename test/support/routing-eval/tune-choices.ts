/**
 * Tuning aid (not a test, ADR 0361): which rule fills a clarification's choices from the lexical
 * order and the embeddings ranking (USE-lite served locally, local-embeddings.ts). Figures only, on
 * the TUNING half by default; TUNE_SETS=tuning,held-out,second adds the looked-at held-out sets.
 * The blind third set is not reachable from here (the routing bench measures the chosen rule).
 * Run: BENCH_USE_PREFIX=/tmp/use-lite npx tsx test/support/routing-eval/tune-choices.ts
 */
import { LexicalClassifier, routingTestIndex, type ChoiceFusion, type RankedCandidate, type RouterEntry } from '@cp/capabilities';
import { EmbeddingsClassifier } from '../../../libs/node-sdk/src/routing/embeddings-classifier';
import { SemanticChoicesClassifier } from '../../../libs/node-sdk/src/routing/semantic-choices';
import { precomputed, startLocalEmbeddings } from './local-embeddings';
import { evaluate, half, loadEvalSet, loadSecondHeldOut, type EvalSet } from './routing-eval';

const SETS: Record<string, () => EvalSet> = {
  tuning: () => half(loadEvalSet(), 'tuning'),
  'held-out': () => half(loadEvalSet(), 'held-out'),
  second: () => loadSecondHeldOut(),
};

/** The endpoint asked once per message; every rule then reads the same ranking. */
function cachedRanker(ranker: EmbeddingsClassifier) {
  const seen = new Map<string, RankedCandidate[]>();
  return {
    async rank(text: string, candidates: readonly RouterEntry[]) {
      let r = seen.get(text);
      if (!r) seen.set(text, (r = await ranker.rank(text, candidates)));
      return r;
    },
  };
}

async function main(): Promise<void> {
  const local = await startLocalEmbeddings();
  try {
    const ranker = cachedRanker(new EmbeddingsClassifier({ url: local.url, model: 'use-lite', timeoutMs: 60_000 }));
    const rules: [string, ChoiceFusion | null][] = [['lexical three (today)', null]];
    for (const keepLexicalFirst of [true, false])
      for (const k of [0, 1, 2, 5, 10, 60])
        for (const semanticWeight of [0.5, 1, 2])
          rules.push([`keep #1 ${keepLexicalFirst ? 'yes' : 'no '} k ${k} w ${semanticWeight}`, { keepLexicalFirst, k, semanticWeight }]);
    rules.push(['semantic three', { keepLexicalFirst: false, k: 0, semanticWeight: 1000 }]);
    rules.push(['lexical #1 + semantic two', { keepLexicalFirst: true, k: 0, semanticWeight: 1000 }]);
    for (const name of (process.env.TUNE_SETS ?? 'tuning').split(',')) {
      const load = SETS[name];
      if (!load) throw new Error(`unknown set ${name} (tuning, held-out, second)`);
      const view = load();
      const entries = routingTestIndex(view.snapshot, {}).entries;
      const texts = view.suite.tests.map((t) => t.text ?? '');
      console.log(`## ${name} (${texts.length} messages)`);
      for (const [label, fusion] of rules) {
        const classifier = fusion
          ? await precomputed(new SemanticChoicesClassifier({ ranker, fusion }), texts, entries)
          : new LexicalClassifier();
        const f = evaluate(view, classifier);
        const pct = (n: number, d: number) => ((100 * n) / d).toFixed(1).padStart(5);
        console.log(
          `${label.padEnd(28)} one-turn ${pct(f.oneTurn, f.clear)}%  routed right ${pct(f.clearCorrect, f.clear)}%  wrong ${f.wrongRoutes}`,
        );
      }
    }
  } finally {
    local.server.close();
  }
}

void main();
