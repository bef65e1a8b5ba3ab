/**
 * Learning from clarifications, measured (issue 31 §3). Run: npx tsx test/bench/routing-learning.bench.ts
 * Replays the tuning half's clarifications: every clear tuning message the router asked about whose
 * label was among the ≤ 3 offered (the caller picks it; the node reports it, ADR 0094) becomes a
 * promoted example of that capability, in the tuning file's order, applied the way
 * RoutingClarificationsService.promote edits a manifest (appended to skill.examples, deduplicated)
 * and re-validated (test/support/routing-eval/learning.ts). Then the held-out half and the second
 * and third held-out sets are measured before, after 10, after 50 and after all promotions.
 * In-process: test/e2e/routing-learning.e2e-spec.ts shows the real path (node report → GraphQL
 * promote → registry → routeTest) gives the same figures on the held-out half.
 */
import { CLARIFY, LexicalClassifier } from '@cp/capabilities';
import { tuningClarifications, withPromoted } from '../support/routing-eval/learning';
import { evaluate, half, loadEvalSet, loadSecondHeldOut, loadThirdHeldOut, type EvalSet } from '../support/routing-eval/routing-eval';

const set = loadEvalSet();
const classifier = new LexicalClassifier();
const clarifications = tuningClarifications(set, classifier);
const clearTuning = half(set, 'tuning').suite.tests.filter((t) => t.expect !== CLARIFY).length;

const steps = [0, 10, 50, clarifications.length].filter((n, i, a) => n <= clarifications.length && a.indexOf(n) === i);
const targets: [string, EvalSet][] = [
  ['held-out half', half(set, 'held-out')],
  ['second held-out set', loadSecondHeldOut()],
  ['third held-out set (blind)', loadThirdHeldOut()],
];
const pct = (n: number, d: number) => `${((100 * n) / Math.max(d, 1)).toFixed(1)}%`;
console.log(`${clarifications.length} clarifications answered on the tuning half (of ${clearTuning} clear messages)\n`);
console.log('| set | promotions | routed right | resolved in one turn | wrong routes (all) | best guess right |');
console.log('|---|--:|--:|--:|--:|--:|');
for (const [name, target] of targets)
  for (const n of steps) {
    const f = evaluate(withPromoted(target, clarifications, n), classifier);
    const total = f.clear + f.ambiguous + f.outOfScope;
    console.log(
      `| ${name} | ${n} | ${pct(f.clearCorrect, f.clear)} | ${pct(f.oneTurn, f.clear)} | ${pct(f.wrongRoutes, total)} | ${pct(f.bestGuessRight, f.clear)} |`,
    );
  }
