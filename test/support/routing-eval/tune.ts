/**
 * Tuning aid (not a test): the figures and the failure list of the TUNING half only.
 * Run: npx tsx test/support/routing-eval/tune.ts
 */
import { LexicalClassifier } from '@cp/capabilities';
import { PlainBm25Classifier } from './plain-bm25';
import { evaluate, failures, half, loadEvalSet, renderTable, withoutHints } from './routing-eval';

const tuning = half(loadEvalSet(), 'tuning');
console.log(
  renderTable({
    'plain BM25': evaluate(tuning, new PlainBm25Classifier()),
    'route()': evaluate(tuning, new LexicalClassifier()),
    'route() without hints': evaluate(withoutHints(tuning), new LexicalClassifier()),
  }),
);
for (const f of failures(tuning, new LexicalClassifier()).sort()) console.log(f);
