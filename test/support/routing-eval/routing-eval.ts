/**
 * The routing evaluation (issue 13): the labelled back-office set in test/fixtures/routing-eval
 * routed by any classifier, scored the way the table is. Shared by the jest floor
 * (test/e2e/routing-eval.e2e-spec.ts) and the benchmark (test/bench/routing.bench.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  CLARIFY,
  parseRoutingTests,
  routingTestIndex,
  runRoutingTests,
  validateManifests,
  type AgentBase,
  type Classifier,
  type RegistrySnapshot,
  type RoutingTestSuite,
} from '@cp/capabilities';

export const EVAL_DIR = join(__dirname, '..', '..', 'fixtures', 'routing-eval');

export interface EvalSet {
  snapshot: RegistrySnapshot;
  suite: RoutingTestSuite;
  /** Texts of the held-out half (split.yaml); every other message is the tuning half. */
  heldOut: ReadonlySet<string>;
}

export type Half = 'tuning' | 'held-out';

export function loadEvalSet(dir = EVAL_DIR): EvalSet {
  const manifests = validateManifests(parse(readFileSync(join(dir, 'capabilities.yaml'), 'utf8')) as unknown[]);
  if (!manifests.ok) throw new Error(`routing eval manifests: ${JSON.stringify(manifests.errors)}`);
  const { id: agentId, ...agent } = parse(readFileSync(join(dir, 'agent.yaml'), 'utf8')) as AgentBase & { id: string };
  const parsed = parseRoutingTests(
    parse(readFileSync(join(dir, 'routing-tests.yaml'), 'utf8')),
    new Set(manifests.manifests.map((m) => m.id)),
  );
  if (!parsed.ok) throw new Error(`routing eval tests: ${JSON.stringify(parsed.errors)}`);
  const listed = (parse(readFileSync(join(dir, 'split.yaml'), 'utf8')) as { held_out: string[] }).held_out;
  const heldOut = new Set(listed);
  const texts = parsed.suite.tests.map((t) => t.text ?? '');
  if (heldOut.size !== listed.length || listed.some((t) => texts.filter((x) => x === t).length !== 1))
    throw new Error('routing eval split: every held-out text must name exactly one labelled message, once');
  return { snapshot: { agentId, revision: 1, agent, manifests: manifests.manifests, previewTenants: [] }, suite: parsed.suite, heldOut };
}

/**
 * A held-out set in its own file over the same manifests, never tuned on: held-out-2.yaml (ADR
 * 0096) and held-out-3.yaml (written blind from the manifests only, ADR 0197).
 */
export function loadHeldOutFile(file: 'held-out-2.yaml' | 'held-out-3.yaml', dir = EVAL_DIR): EvalSet {
  const base = loadEvalSet(dir);
  const parsed = parseRoutingTests(parse(readFileSync(join(dir, file), 'utf8')), new Set(base.snapshot.manifests.map((m) => m.id)));
  if (!parsed.ok) throw new Error(`routing eval ${file}: ${JSON.stringify(parsed.errors)}`);
  return { snapshot: base.snapshot, suite: parsed.suite, heldOut: new Set(parsed.suite.tests.map((t) => t.text ?? '')) };
}

/** The second held-out set (held-out-2.yaml): 100 messages written after the first held-out half had been looked at. */
export function loadSecondHeldOut(dir = EVAL_DIR): EvalSet {
  return loadHeldOutFile('held-out-2.yaml', dir);
}

/** The third held-out set (held-out-3.yaml): 100 messages written blind from the manifests only. */
export function loadThirdHeldOut(dir = EVAL_DIR): EvalSet {
  return loadHeldOutFile('held-out-3.yaml', dir);
}

/** Word-set Jaccard similarity of two messages (lowercase letters and digits): how close a paraphrase is. */
export function wordOverlap(a: string, b: string): number {
  const words = (s: string) => new Set(s.toLowerCase().match(/[a-z0-9]+/g) ?? []);
  const x = words(a);
  const y = words(b);
  const shared = [...x].filter((w) => y.has(w)).length;
  return shared / Math.max(x.size + y.size - shared, 1);
}

/** One half of the set (same manifests, the half's messages only). */
export function half(set: EvalSet, which: Half): EvalSet {
  const keep = (text: string) => set.heldOut.has(text) === (which === 'held-out');
  return { ...set, suite: { ...set.suite, tests: set.suite.tests.filter((t) => keep(t.text ?? '')) } };
}

/** The same set with every manifest's routing hints removed: what the router does from the card fields alone. */
export function withoutHints(set: EvalSet): EvalSet {
  return { ...set, snapshot: { ...set.snapshot, manifests: set.snapshot.manifests.map(({ routing: _routing, ...m }) => m) } };
}

/** Every message the classifier gets wrong (wrong route, or clarified although one answer was right), for reading. */
export function failures(set: EvalSet, classifier: Classifier): string[] {
  const report = runRoutingTests(set.snapshot, set.suite, { classifier });
  const index = routingTestIndex(set.snapshot, {});
  return report.results
    .filter((r) => !r.correct)
    .map((r) => {
      const c = classifier.classify(r.text, index.entries);
      const got = r.outcome.kind === 'routed' ? r.outcome.id : r.outcome.kind;
      const top = (c.ranking ?? [])
        .slice(0, 3)
        .map((x) => `${x.id}:${x.score}`)
        .join(' ');
      return `${r.category ?? 'clear'} | want ${r.expect} | got ${got} (conf ${c.confidence}) | ${top} | ${r.text}`;
    });
}

export interface EvalFigures {
  clear: number;
  ambiguous: number;
  outOfScope: number;
  /** Clear messages routed to their label. */
  clearCorrect: number;
  /** Clear messages asked about although one answer was right. */
  clearClarified: number;
  /** Routed to a capability other than the label, over ALL messages. */
  wrongRoutes: number;
  ambiguousClarified: number;
  outOfScopeClarified: number;
  /** Clear messages whose best guess (ignoring the threshold) is the label. */
  bestGuessRight: number;
  /** Clear messages resolved in one turn: routed right, or clarified with the label among the ≤ 3 offered (issue 31). */
  oneTurn: number;
}

export function evaluate(set: EvalSet, classifier: Classifier): EvalFigures {
  const report = runRoutingTests(set.snapshot, set.suite, { classifier });
  const index = routingTestIndex(set.snapshot, {});
  const clear = report.results.filter((r) => r.expect !== CLARIFY);
  const ambiguous = report.results.filter((r) => r.category === 'ambiguous');
  const oos = report.results.filter((r) => r.category === 'out-of-scope');
  const bestGuessRight = clear.filter((r) => classifier.classify(r.text, index.entries).id === r.expect).length;
  return {
    clear: clear.length,
    ambiguous: ambiguous.length,
    outOfScope: oos.length,
    clearCorrect: clear.filter((r) => r.correct).length,
    clearClarified: clear.filter((r) => r.outcome.kind === 'clarify').length,
    wrongRoutes: report.results.filter((r) => r.wrong).length,
    ambiguousClarified: ambiguous.filter((r) => r.outcome.kind === 'clarify').length,
    outOfScopeClarified: oos.filter((r) => r.outcome.kind === 'clarify').length,
    bestGuessRight,
    oneTurn: clear.filter((r) => r.correct || (r.outcome.kind === 'clarify' && r.outcome.offered.includes(r.expect))).length,
  };
}

const pct = (n: number, d: number) => `${((100 * n) / Math.max(d, 1)).toFixed(1)}%`;

/** The table, one column per classifier. */
export function renderTable(columns: Record<string, EvalFigures>): string {
  const names = Object.keys(columns);
  const f = Object.values(columns);
  const total = (x: EvalFigures) => x.clear + x.ambiguous + x.outOfScope;
  const rows: [string, (x: EvalFigures) => string][] = [
    ['clear messages routed correctly', (x) => pct(x.clearCorrect, x.clear)],
    ['clear messages resolved in one turn (routed right, or the label among ≤ 3 offered)', (x) => pct(x.oneTurn, x.clear)],
    ['clear messages clarified although one answer was right', (x) => pct(x.clearClarified, x.clear)],
    ['wrong routes (all messages)', (x) => pct(x.wrongRoutes, total(x))],
    ['ambiguous messages correctly clarified', (x) => pct(x.ambiguousClarified, x.ambiguous)],
    ['out-of-scope messages clarified', (x) => pct(x.outOfScopeClarified, x.outOfScope)],
    ['best guess right on clear messages, ignoring the threshold', (x) => pct(x.bestGuessRight, x.clear)],
  ];
  return [
    `| | ${names.join(' | ')} |`,
    `|---|${names.map(() => '--:').join('|')}|`,
    ...rows.map(([label, fn]) => `| ${label} | ${f.map(fn).join(' | ')} |`),
  ].join('\n');
}
