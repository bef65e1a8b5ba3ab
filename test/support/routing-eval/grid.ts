/** Tuning aid (not a test): grid over the calibration on the TUNING half only. Run: npx tsx test/support/routing-eval/grid.ts */
import { LexicalClassifier } from '@cp/capabilities';
import { evaluate, half, loadEvalSet } from './routing-eval';

const tuning = half(loadEvalSet(), 'tuning');
const rows: string[] = [];
const steps = (from: number, to: number, step: number) =>
  Array.from({ length: Math.round((to - from) / step) + 1 }, (_, i) => +(from + i * step).toFixed(3));
for (const minStrength of steps(0.6, 1.3, 0.05))
  for (const minMargin of steps(0.1, 0.5, 0.025)) {
    const f = evaluate(tuning, new LexicalClassifier({ minStrength, minMargin }));
    const total = f.clear + f.ambiguous + f.outOfScope;
    rows.push(
      [
        minStrength,
        minMargin,
        ((100 * f.clearCorrect) / f.clear).toFixed(1),
        ((100 * f.wrongRoutes) / total).toFixed(1),
        ((100 * f.ambiguousClarified) / f.ambiguous).toFixed(1),
        ((100 * f.outOfScopeClarified) / f.outOfScope).toFixed(1),
        ((100 * f.bestGuessRight) / f.clear).toFixed(1),
      ].join('\t'),
    );
  }
console.log('strength\tmargin\tclear%\twrong%\tambig%\toos%\tbest%');
console.log(rows.join('\n'));
