/**
 * Routing tests (ADR 0092): labelled messages an agent's team keeps next to its manifests
 * (`routing-tests.yaml`), routed through the router index the manifests produce. A CI gate fails
 * on any wrong route or on accuracy below the file's `min_accuracy`. Pure: cpctl and the admin
 * API's `routeTest` both call this.
 */
import { z } from 'zod';
import { jsonPath } from '../json-path';
import { buildRouterIndex, type RouterIndex } from '../router-index';
import type { Caller, RegistrySnapshot, ValidationIssue } from '../types';
import type { Classifier, RankedCandidate } from './classifier';
import type { WirePart } from './message';
import { route, type RouteExplanation, type RouteOptions } from './route';

export const ROUTING_TESTS_FILE = 'routing-tests.yaml';
export const CLARIFY = 'clarify';
export const DEFAULT_MIN_ACCURACY = 0.9;
export const MAX_ROUTING_TESTS = 2000;

export interface RoutingTestCase {
  /** The message text (one text part); or `parts` for anything richer. */
  text?: string;
  parts?: WirePart[];
  /** The capability id a correct router picks, or `clarify`. */
  expect: string;
  /** Reporting only (e.g. ambiguous, out-of-scope). */
  category?: string;
  /** Route as this caller; absent: a caller who may use every live capability of the set. */
  tenant?: string;
  scopes?: string[];
  /** Route as an anonymous caller (no token): only what anyone may use. Not with tenant or scopes. */
  anonymous?: boolean;
}

export interface RoutingTestSuite {
  minAccuracy: number;
  tests: RoutingTestCase[];
}

const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
const partSchema = z.strictObject({
  text: z.string().max(10000).optional(),
  data: z.unknown().optional(),
  url: z.string().max(2000).optional(),
  raw: z.string().max(10000).optional(),
  mediaType: z.string().max(200).optional(),
  filename: z.string().max(200).optional(),
});
const caseSchema = z
  .strictObject({
    text: text(10000).optional(),
    parts: z.array(partSchema).min(1, 'must hold at least one part').max(20).optional(),
    expect: text(64),
    category: text(64).optional(),
    tenant: text(64).optional(),
    scopes: z.array(text(128)).max(100).optional(),
    anonymous: z.boolean().optional(),
  })
  .refine((c) => (c.text === undefined) !== (c.parts === undefined), { message: 'give exactly one of text or parts' })
  .refine((c) => !c.anonymous || (c.tenant === undefined && c.scopes === undefined), {
    message: 'an anonymous caller has no tenant or scopes',
    path: ['anonymous'],
  });
const suiteSchema = z.strictObject({
  min_accuracy: z.number().min(0).max(1).optional(),
  tests: z.array(caseSchema).min(1, 'must list at least one test').max(MAX_ROUTING_TESTS, `must list at most ${MAX_ROUTING_TESTS} tests`),
});

export type RoutingTestsParse = { ok: true; suite: RoutingTestSuite } | { ok: false; errors: ValidationIssue[] };

/** A parsed routing-tests document (YAML or JSON value), or every problem with its JSON path. */
export function parseRoutingTests(doc: unknown, knownIds?: ReadonlySet<string>): RoutingTestsParse {
  const parsed = suiteSchema.safeParse(doc);
  if (!parsed.success)
    return {
      ok: false,
      errors: parsed.error.issues.map((i) => ({
        path: jsonPath(i.path),
        message: i.code === 'unrecognized_keys' ? `unknown field(s) ${i.keys.join(', ')}` : i.message,
      })),
    };
  const errors: ValidationIssue[] = [];
  if (knownIds)
    parsed.data.tests.forEach((t, i) => {
      if (t.expect !== CLARIFY && !knownIds.has(t.expect))
        errors.push({
          path: jsonPath(['tests', i, 'expect']),
          message: `"${t.expect}" is neither a capability of this set nor "${CLARIFY}"`,
        });
    });
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    suite: { minAccuracy: parsed.data.min_accuracy ?? DEFAULT_MIN_ACCURACY, tests: parsed.data.tests },
  };
}

export type RoutingOutcome =
  | { kind: 'routed'; id: string; confidence: number }
  | { kind: 'clarify'; confidence: number; offered: string[] }
  | { kind: 'failed'; reason: string };

/**
 * How the router came to an outcome, for people reading one message's route (the console's test
 * message): the layer that decided (null when routing failed), why, the classifier's candidates
 * with their scores (only from the caller's own router index), and how many capabilities that
 * index held.
 */
export interface RoutingDecision {
  layer: RouteExplanation['layer'] | null;
  reason: string;
  candidates: RankedCandidate[];
  indexSize: number;
}

export interface RoutingTestResult {
  index: number;
  text: string;
  expect: string;
  category?: string;
  outcome: RoutingOutcome;
  decision: RoutingDecision;
  /** routed to the expected id, or asked when `clarify` was expected. */
  correct: boolean;
  /** Routed somewhere other than expected (including routing a message that should be asked about). */
  wrong: boolean;
}

export interface RoutingTestReport {
  total: number;
  correct: number;
  accuracy: number;
  wrongRoutes: number;
  /** Messages with an expected capability that were asked about instead. */
  falseClarifications: number;
  /** Messages labelled `clarify` that were asked about. */
  correctClarifications: number;
  minAccuracy: number;
  passed: boolean;
  results: RoutingTestResult[];
}

/** The report's figures without its per-message results: what the admin API and cpctl print. */
export type RoutingTestSummary = Omit<RoutingTestReport, 'results'>;

export function routingTestSummary({ results: _results, ...summary }: RoutingTestReport): RoutingTestSummary {
  return summary;
}

/**
 * The router index a test routes through: the caller's, when the test names one; otherwise every
 * live capability of the set (a test of ranking, not of entitlement).
 */
export function routingTestIndex(snapshot: RegistrySnapshot, test: Pick<RoutingTestCase, 'tenant' | 'scopes' | 'anonymous'>): RouterIndex {
  if (test.anonymous) return buildRouterIndex(snapshot, null);
  if (test.tenant !== undefined || test.scopes !== undefined) return buildRouterIndex(snapshot, testCaller(test));
  const tenant = 'routing-test';
  const open = snapshot.manifests.map((m) => ({ ...m, visibility: 'extended' as const, tenants: '*' as const, requiresScopes: [] }));
  return buildRouterIndex({ ...snapshot, manifests: open, previewTenants: [tenant] }, { principal: tenant, tenant, scopes: [] });
}

const testCaller = (test: Pick<RoutingTestCase, 'tenant' | 'scopes'>): Caller => ({
  principal: 'routing-test',
  tenant: test.tenant ?? 'routing-test',
  scopes: test.scopes ?? [],
});

const messageOf = (t: RoutingTestCase) => ({ messageId: 'routing-test', role: 'ROLE_USER', parts: t.parts ?? [{ text: t.text ?? '' }] });

export function routeOne(
  snapshot: RegistrySnapshot,
  test: RoutingTestCase,
  options: Pick<RouteOptions, 'classifier' | 'threshold' | 'shapes'> = {},
  cache = new Map<string, RouterIndex>(),
): RoutingOutcome {
  return routeOneDecided(snapshot, test, options, cache).outcome;
}

/** `routeOne`, with how the router decided. */
export function routeOneDecided(
  snapshot: RegistrySnapshot,
  test: RoutingTestCase,
  options: Pick<RouteOptions, 'classifier' | 'threshold' | 'shapes'> = {},
  cache = new Map<string, RouterIndex>(),
): { outcome: RoutingOutcome; decision: RoutingDecision } {
  const key = test.anonymous
    ? 'anonymous'
    : test.tenant === undefined && test.scopes === undefined
      ? ''
      : JSON.stringify([test.tenant ?? null, [...(test.scopes ?? [])].sort()]);
  let index = cache.get(key);
  if (!index) cache.set(key, (index = routingTestIndex(snapshot, test)));
  const r = route(messageOf(test), test.anonymous ? null : testCaller(test), index, options);
  const indexSize = index.entries.length;
  if (r.kind === 'failed')
    return { outcome: { kind: 'failed', reason: r.message }, decision: { layer: null, reason: r.message, candidates: [], indexSize } };
  const decision = { ...r.explanation, candidates: r.explanation.candidates.map((c) => ({ ...c })), indexSize };
  if (r.kind === 'routed') return { outcome: { kind: 'routed', id: r.entry.id, confidence: r.confidence }, decision };
  return { outcome: { kind: 'clarify', confidence: r.confidence, offered: r.candidates.map((c) => c.id) }, decision };
}

export function runRoutingTests(
  snapshot: RegistrySnapshot,
  suite: RoutingTestSuite,
  options: { classifier?: Classifier; threshold?: number } = {},
): RoutingTestReport {
  const cache = new Map<string, RouterIndex>();
  const results = suite.tests.map((test, index): RoutingTestResult => {
    const { outcome, decision } = routeOneDecided(snapshot, test, options, cache);
    const correct = test.expect === CLARIFY ? outcome.kind === 'clarify' : outcome.kind === 'routed' && outcome.id === test.expect;
    const wrong = outcome.kind === 'routed' && outcome.id !== test.expect;
    const result: RoutingTestResult = {
      index,
      text: test.text ?? JSON.stringify(test.parts),
      expect: test.expect,
      outcome,
      decision,
      correct,
      wrong,
    };
    if (test.category !== undefined) result.category = test.category;
    return result;
  });
  const total = results.length;
  const correct = results.filter((r) => r.correct).length;
  const wrongRoutes = results.filter((r) => r.wrong).length;
  const accuracy = total === 0 ? 0 : correct / total;
  return {
    total,
    correct,
    accuracy,
    wrongRoutes,
    falseClarifications: results.filter((r) => r.expect !== CLARIFY && r.outcome.kind === 'clarify').length,
    correctClarifications: results.filter((r) => r.expect === CLARIFY && r.outcome.kind === 'clarify').length,
    minAccuracy: suite.minAccuracy,
    passed: wrongRoutes === 0 && accuracy >= suite.minAccuracy,
    results,
  };
}

/** Labelled messages whose route differs between two registries (what `cpctl plan` shows). */
export function routeChanges(
  before: RegistrySnapshot,
  after: RegistrySnapshot,
  suite: RoutingTestSuite,
  options: { classifier?: Classifier; threshold?: number } = {},
): { index: number; text: string; expect: string; before: RoutingOutcome; after: RoutingOutcome }[] {
  const a = new Map<string, RouterIndex>();
  const b = new Map<string, RouterIndex>();
  const label = (o: RoutingOutcome) => (o.kind === 'routed' ? o.id : o.kind);
  const out: { index: number; text: string; expect: string; before: RoutingOutcome; after: RoutingOutcome }[] = [];
  suite.tests.forEach((test, index) => {
    const x = routeOne(before, test, options, a);
    const y = routeOne(after, test, options, b);
    if (label(x) !== label(y)) out.push({ index, text: test.text ?? JSON.stringify(test.parts), expect: test.expect, before: x, after: y });
  });
  return out;
}
