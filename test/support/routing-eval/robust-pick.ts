/**
 * Tuning aid (not a test), TUNING half only (ADR 0096): the calibration edges that route the most
 * clear messages while the wrong-route rate stays at most 3% in 90% of bootstrap resamples of the
 * tuning half, i.e. with room for the sampling error of a 100-message half (the plain rule
 * "at most 3% on the tuning half" picks an edge where one more message tips it over).
 * Run: npx tsx test/support/routing-eval/robust-pick.ts
 */
import { CLARIFY, LexicalClassifier, runRoutingTests } from '@cp/capabilities';
import { half, loadEvalSet } from './routing-eval';

const tuning = half(loadEvalSet(), 'tuning');
const RESAMPLES = 2000;
const steps = (from: number, to: number, step: number) =>
  Array.from({ length: Math.round((to - from) / step) + 1 }, (_, i) => +(from + i * step).toFixed(3));

let seed = 42;
const random = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x80000000;
};
const n = tuning.suite.tests.length;
const draws = Array.from({ length: RESAMPLES }, () => Array.from({ length: n }, () => Math.floor(random() * n)));

const rows: { s: number; m: number; clear: number; wrong: number; p90: number }[] = [];
for (const minStrength of steps(0.6, 1.5, 0.05))
  for (const minMargin of steps(0.1, 0.6, 0.025)) {
    const report = runRoutingTests(tuning.snapshot, tuning.suite, { classifier: new LexicalClassifier({ minStrength, minMargin }) });
    const wrong: number[] = report.results.map((r) => (r.wrong ? 1 : 0));
    const rates = draws.map((d) => d.reduce((sum, i) => sum + wrong[i], 0) / n).sort((a, b) => a - b);
    const clear = report.results.filter((r) => r.expect !== CLARIFY);
    rows.push({
      s: minStrength,
      m: minMargin,
      clear: clear.filter((r) => r.correct).length / clear.length,
      wrong: wrong.reduce((a, b) => a + b, 0) / n,
      p90: rates[Math.floor(0.9 * RESAMPLES)],
    });
  }
const ok = rows.filter((r) => r.p90 <= 0.03).sort((a, b) => b.clear - a.clear || a.wrong - b.wrong || a.s - b.s || a.m - b.m);
console.log('strength\tmargin\tclear%\twrong%\twrong p90%');
for (const r of ok.slice(0, 15))
  console.log([r.s, r.m, (100 * r.clear).toFixed(1), (100 * r.wrong).toFixed(1), (100 * r.p90).toFixed(1)].join('\t'));
