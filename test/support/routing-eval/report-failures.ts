/**
 * Reporting aid (not a test): the failures of the shipped router on both held-out sets, for
 * categorising in docs/performance.md AFTER every constant was fixed (ADR 0096). Never tune from
 * this output. Run: npx tsx test/support/routing-eval/report-failures.ts
 */
import { LexicalClassifier } from '@cp/capabilities';
import { failures, half, loadEvalSet, loadSecondHeldOut } from './routing-eval';

for (const [title, set] of [
  ['held-out half', half(loadEvalSet(), 'held-out')],
  ['second held-out set', loadSecondHeldOut()],
] as const) {
  console.log(`## ${title}`);
  for (const f of failures(set, new LexicalClassifier()).sort()) console.log(f);
}
