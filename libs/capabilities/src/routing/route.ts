/**
 * Routing without a skill id (seed: "Routing without a skill id"), cheapest layer first:
 *  1. a message continuing a task goes to the capability bound to that task;
 *  2. candidates = the caller's router index (it IS the entitled set: nothing else is looked at);
 *  3. the media types of the parts must fit a candidate's input modes;
 *  4. a data part with a recognisable shape (keys a handler declared) picks among the fits;
 *  5. a skill-id hint in the metadata, honoured only if it names a fitting entitled candidate;
 *  6. a reply to the router's own question (a pending clarification) that names one of its choices;
 *  7. a classifier over the text of the remaining candidates (with a pending clarification's
 *     earlier text when the reply named no choice);
 *  then confidence < threshold ⇒ input-required offering at most three of those candidates as a
 *  question a person can answer (clarification.ts, ADR 0260), and the chosen
 *  capability's output modes must meet the caller's acceptedOutputModes.
 * Pure: the adapter resolves the bound task and maps failures to A2A errors.
 */
import { findTombstone, type RouterEntry, type RouterIndex } from '../router-index';
import type { Caller } from '../types';
import { clarificationQuestion, MAX_CHOICES, resolveReply, type PendingClarification } from './clarification';
import { LexicalClassifier, type Classifier, type ClassifierResult, type RankedCandidate } from './classifier';
import { mediaTypeMatches, messageText, partKind, partMediaType, type WireMessage } from './message';

export const DEFAULT_CONFIDENCE_THRESHOLD = 0.6;
/** The metadata key (request or message metadata) carrying a skill-id hint. */
export const SKILL_HINT_KEY = 'skillId';

/**
 * The shape of a data part a handler recognises: a `data` part whose object holds every one of
 * `keys` (more keys are fine). Declared by the team registering the handler (code knows what it
 * parses), keyed by handler name, so manifests and cards stay unchanged.
 */
export interface DataShape {
  keys: readonly string[];
}

export interface RouteOptions {
  /** Capability id the message's task is bound to (the adapter looked the task up). */
  boundCapabilityId?: string;
  /** SendMessageConfiguration.acceptedOutputModes; empty or absent accepts anything. */
  acceptedOutputModes?: readonly string[];
  /** SendMessageRequest.metadata; `skillId` there (or in message.metadata) is a hint. */
  requestMetadata?: Record<string, unknown>;
  /** Data shapes by handler name. */
  shapes?: ReadonlyMap<string, DataShape>;
  classifier?: Classifier;
  threshold?: number;
  /** The task is input-required on the router's question: the message may be the answer. */
  pending?: PendingClarification;
}

export type RouteLayer = 'bound-task' | 'only-candidate' | 'data-shape' | 'hint' | 'clarified' | 'classifier';

export interface RouteNotice {
  code: 'deprecated' | 'hint-ignored' | 'hint-not-needed';
  message: string;
  /** For `deprecated`: the live replacement the caller may use, if any. */
  replacedBy?: string;
}

/** A2A error names the adapter maps to codes (-32004, -32005) and HTTP statuses. */
export type RouteErrorName = 'ContentTypeNotSupportedError' | 'UnsupportedOperationError';
export type RouteFailureReason =
  'no-input-mode-fits' | 'no-output-mode-fits' | 'capability-removed' | 'capability-unavailable' | 'no-capability';

export interface RouteFailure {
  kind: 'failed';
  error: RouteErrorName;
  reason: RouteFailureReason;
  message: string;
  details: Record<string, string>;
}

/**
 * Why the router decided as it did (task metadata `routing`): the layer, the candidates the
 * classifier considered with their scores, and the reason. Only ever names candidates from the
 * caller's own router index, so it shows nothing the caller may not see.
 */
export interface RouteExplanation {
  layer: RouteLayer | 'clarification';
  candidates: RankedCandidate[];
  reason: string;
}

export interface Routed {
  kind: 'routed';
  entry: RouterEntry;
  layer: RouteLayer;
  confidence: number;
  explanation: RouteExplanation;
  /** The output mode the handler should produce: the first of its modes the caller accepts. */
  outputMode: string;
  notices: RouteNotice[];
}

export interface InputRequired {
  kind: 'input-required';
  message: string;
  /** Only candidates this caller is entitled to, best guess first. */
  candidates: { id: string; name: string; description: string }[];
  confidence: number;
  explanation: RouteExplanation;
}

export type RouteResult = Routed | InputRequired | RouteFailure;

const defaultClassifier = new LexicalClassifier();

const fail = (error: RouteErrorName, reason: RouteFailureReason, message: string, details: Record<string, string> = {}): RouteFailure => ({
  kind: 'failed',
  error,
  reason,
  message,
  details,
});

/** Layers 1–5 decided nothing: the classifier must rank `fits` by `text`. */
export interface NeedsClassifier {
  kind: 'classify';
  text: string;
  fits: RouterEntry[];
  notices: RouteNotice[];
}

export function route(message: WireMessage, caller: Caller, index: RouterIndex, options: RouteOptions = {}): RouteResult {
  const prepared = prepareRoute(message, caller, index, options);
  if (prepared.kind !== 'classify') return prepared;
  const result = (options.classifier ?? defaultClassifier).classify(prepared.text, prepared.fits);
  return decide(result, prepared.fits, options, prepared.notices);
}

/** `route` for classifiers that answer asynchronously (Classifier.classifyAsync); same layers, same rules. */
export async function routeAsync(
  message: WireMessage,
  caller: Caller,
  index: RouterIndex,
  options: RouteOptions = {},
): Promise<RouteResult> {
  const prepared = prepareRoute(message, caller, index, options);
  if (prepared.kind !== 'classify') return prepared;
  const classifier: Classifier = options.classifier ?? defaultClassifier;
  const result = classifier.classifyAsync
    ? await classifier.classifyAsync(prepared.text, prepared.fits)
    : classifier.classify(prepared.text, prepared.fits);
  return decide(result, prepared.fits, options, prepared.notices);
}

/** Every layer but the classifier; `route` = this, then the classifier, then `decide`. */
export function prepareRoute(
  message: WireMessage,
  _caller: Caller,
  index: RouterIndex,
  options: RouteOptions = {},
): RouteResult | NeedsClassifier {
  const byId = new Map(index.entries.map((e) => [e.id, e] as const));

  // 1. Continuing work stays put (or fails clearly), before anything else is considered.
  if (options.boundCapabilityId !== undefined) {
    const id = options.boundCapabilityId;
    const bound = byId.get(id);
    if (bound) return finish(bound, 'bound-task', 1, options, []);
    return unavailable(index, id, 'the task you are continuing is bound to');
  }

  // A hint naming a removed capability this caller could have used fails naming its replacement.
  const hint = hintOf(message, options);
  const hinted = hint === undefined ? undefined : byId.get(hint);
  if (hint !== undefined && !hinted && findTombstone(index, hint)) return unavailable(index, hint, 'your skill hint names');

  // 2 + 3. Entitled candidates whose input modes cover every part's media type.
  const types = [...new Set(message.parts.map(partMediaType))];
  const fits = index.entries.filter((e) => types.every((t) => e.inputModes.some((m) => mediaTypeMatches(t, m))));

  if (fits.length === 0) {
    if (hinted) return hintedDoesNotFit(hinted, types);
    return fail('ContentTypeNotSupportedError', 'no-input-mode-fits', `no capability available to you accepts ${types.join(', ')}`, {
      mediaTypes: types.join(','),
    });
  }
  if (fits.length === 1) return finish(fits[0], 'only-candidate', 1, options, hintNotices(index, hint, hinted, fits[0]));

  // 4. A data part whose keys a handler declared.
  const shaped = byShape(message, fits, options.shapes);
  if (shaped) return finish(shaped, 'data-shape', 1, options, hintNotices(index, hint, hinted, shaped));

  // 5. A hint, only among the entitled fits. Unknown and not-entitled ids look the same (ignored).
  if (hinted && fits.includes(hinted)) return finish(hinted, 'hint', 1, options, []);
  if (hinted) return hintedDoesNotFit(hinted, types);
  const notices = hint !== undefined ? hintNotices(index, hint, undefined, undefined) : [];

  // 6. The answer to the router's question: only choices that are still fitting entitled candidates
  // count, so a reply naming anything else (hidden, revoked, made up) names nothing.
  const reply = messageText(message);
  if (options.pending) {
    const offered = options.pending.offered.map((id) => byId.get(id)).filter((e): e is RouterEntry => e !== undefined && fits.includes(e));
    const chosen = resolveReply(reply, offered.slice(0, MAX_CHOICES));
    if (chosen) return finish(chosen, 'clarified', 1, options, notices);
  }

  // 7. The classifier over the text, restricted to the fitting entitled candidates; a reply that
  // named no choice is routed afresh together with the message it answers.
  const earlier = options.pending?.earlierText ?? '';
  return { kind: 'classify', text: earlier === '' ? reply : `${earlier}\n${reply}`, fits, notices };
}

/**
 * Layer 6's verdict → routed or input-required. Exported for routers that classify
 * asynchronously (the node SDK's embeddings router): `prepareRoute` first, then this.
 */
export function decide(
  result: ClassifierResult,
  fits: readonly RouterEntry[],
  options: RouteOptions,
  notices: RouteNotice[] = [],
): Routed | InputRequired | RouteFailure {
  const threshold = options.threshold ?? DEFAULT_CONFIDENCE_THRESHOLD;
  const { id, confidence } = result;
  const chosen = id === null ? undefined : fits.find((e) => e.id === id);
  // Whatever a classifier returns, only fitting entitled candidates are ever named.
  const inFits = new Set(fits.map((e) => e.id));
  const ranking = (result.ranking ?? []).filter((r) => inFits.has(r.id)).map((r) => ({ id: r.id, score: r.score }));
  if (!chosen || confidence < threshold) {
    const offered = choices(result, chosen, fits);
    const why = !chosen
      ? (result.reason ?? 'nothing in the message points to a capability')
      : `${result.reason ?? 'the best guess is not sure enough'}; confidence ${confidence.toFixed(2)} is below ${threshold}`;
    return {
      kind: 'input-required',
      message: clarificationQuestion(offered),
      candidates: offered.map((e) => ({ id: e.id, name: e.skill.name, description: e.skill.description })),
      confidence,
      explanation: { layer: 'clarification', candidates: ranking, reason: why },
    };
  }
  return finish(chosen, 'classifier', confidence, options, notices, {
    candidates: ranking,
    reason: result.reason ?? `classified with confidence ${confidence.toFixed(2)}`,
  });
}

/**
 * At most MAX_CHOICES fitting candidates, best first: the classifier's plausible set, then the rest
 * of its ranking (scores > 0); a classifier that ranks nothing: its pick, then the fits in index order.
 */
function choices(result: ClassifierResult, chosen: RouterEntry | undefined, fits: readonly RouterEntry[]): RouterEntry[] {
  const ranked = [...(result.plausible ?? []), ...(result.ranking ?? []).filter((r) => r.score > 0).map((r) => r.id)];
  const order = ranked.length > 0 ? ranked : [...(chosen ? [chosen.id] : []), ...fits.map((e) => e.id)];
  const picked: RouterEntry[] = [];
  for (const id of order) {
    const entry = fits.find((e) => e.id === id);
    if (entry && !picked.includes(entry)) picked.push(entry);
    if (picked.length === MAX_CHOICES) break;
  }
  return picked.length > 0 ? picked : fits.slice(0, MAX_CHOICES);
}

function hintOf(message: WireMessage, options: RouteOptions): string | undefined {
  const value = options.requestMetadata?.[SKILL_HINT_KEY] ?? message.metadata?.[SKILL_HINT_KEY];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function hintNotices(
  index: RouterIndex,
  hint: string | undefined,
  hinted: RouterEntry | undefined,
  chosen: RouterEntry | undefined,
): RouteNotice[] {
  if (hint === undefined) return [];
  if (hinted && hinted === chosen) return [{ code: 'hint-not-needed', message: `routed to "${hint}" as hinted` }];
  // Same words whether the id is unknown or merely not available to this caller.
  return [{ code: 'hint-ignored', message: `skill hint "${hint}" names no capability available to you for this message; it was ignored` }];
}

function byShape(message: WireMessage, fits: readonly RouterEntry[], shapes?: ReadonlyMap<string, DataShape>): RouterEntry | undefined {
  if (!shapes || shapes.size === 0) return undefined;
  const objects = message.parts
    .filter((p) => partKind(p) === 'data' && typeof p.data === 'object' && p.data !== null && !Array.isArray(p.data))
    .map((p) => p.data as Record<string, unknown>);
  if (objects.length === 0) return undefined;
  // The most specific shape wins (most keys); a tie between different capabilities decides nothing.
  let best: RouterEntry | undefined;
  let bestKeys = 0;
  let tied = false;
  for (const entry of fits) {
    const shape = shapes.get(entry.handler);
    if (!shape || shape.keys.length === 0) continue;
    if (!objects.some((o) => shape.keys.every((k) => Object.hasOwn(o, k)))) continue;
    if (shape.keys.length > bestKeys) {
      best = entry;
      bestKeys = shape.keys.length;
      tied = false;
    } else if (shape.keys.length === bestKeys) {
      tied = true;
    }
  }
  return tied ? undefined : best;
}

/** A capability the caller names (bound task or hint) that is not routable for it. */
function unavailable(index: RouterIndex, id: string, what: string): RouteFailure {
  const tomb = findTombstone(index, id);
  if (tomb) {
    const instead = tomb.replacedBy ? `; use "${tomb.replacedBy}" instead` : '; it has no replacement';
    const why = tomb.deprecationReason ? ` (${tomb.deprecationReason})` : '';
    const details: Record<string, string> = { capabilityId: id };
    if (tomb.replacedBy) details.replacedBy = tomb.replacedBy;
    return fail('UnsupportedOperationError', 'capability-removed', `capability "${id}" that ${what} was removed${why}${instead}`, details);
  }
  // Entitlement revoked or never held: no detail that would tell the two apart.
  return fail('UnsupportedOperationError', 'capability-unavailable', `the capability ${what} is not available to you`, {});
}

const LAYER_REASONS: Record<Exclude<RouteLayer, 'classifier'>, string> = {
  'bound-task': 'the message continues a task bound to this capability',
  'only-candidate': 'the only capability available to you that accepts these media types',
  'data-shape': "the data part holds the keys this capability's handler declares",
  hint: `metadata.${SKILL_HINT_KEY} names it`,
  clarified: "the reply names this choice of the router's question",
};

function finish(
  entry: RouterEntry,
  layer: RouteLayer,
  confidence: number,
  options: RouteOptions,
  notices: RouteNotice[],
  classified?: Omit<RouteExplanation, 'layer'>,
): Routed | RouteFailure {
  const accepted = (options.acceptedOutputModes ?? []).filter((m) => typeof m === 'string' && m.trim() !== '');
  const outputMode =
    accepted.length === 0
      ? entry.outputModes[0]
      : entry.outputModes.find((mode) => accepted.some((a) => mediaTypeMatches(mode, a) || mediaTypeMatches(a, mode)));
  if (outputMode === undefined) {
    return fail(
      'ContentTypeNotSupportedError',
      'no-output-mode-fits',
      `capability "${entry.id}" produces ${entry.outputModes.join(', ')}; you accept only ${accepted.join(', ')}`,
      {
        capabilityId: entry.id,
        outputModes: entry.outputModes.join(','),
      },
    );
  }
  const all = [...notices];
  if (entry.state === 'deprecated') all.push(deprecation(entry));
  const explanation: RouteExplanation =
    layer === 'classifier' && classified
      ? { layer, ...classified }
      : { layer, candidates: [], reason: LAYER_REASONS[layer as Exclude<RouteLayer, 'classifier'>] };
  return { kind: 'routed', entry, layer, confidence, outputMode, notices: all, explanation };
}

function deprecation(entry: RouterEntry): RouteNotice {
  // The router index's description already carries "Deprecated: use X instead." when X is in
  // this caller's set (never naming one it may not see).
  const match = /Deprecated: use (\S+) instead\./.exec(entry.skill.description);
  const notice: RouteNotice = {
    code: 'deprecated',
    message: `capability "${entry.id}" is deprecated${match ? `; use "${match[1]}" instead` : ''}`,
  };
  if (match) notice.replacedBy = match[1];
  return notice;
}

/** The hinted (entitled) capability cannot take these parts: say so rather than route elsewhere. */
function hintedDoesNotFit(hinted: RouterEntry, types: string[]): RouteFailure {
  return fail(
    'ContentTypeNotSupportedError',
    'no-input-mode-fits',
    `capability "${hinted.id}" accepts ${hinted.inputModes.join(', ')}; the message carries ${types.join(', ')}`,
    { mediaTypes: types.join(','), capabilityId: hinted.id },
  );
}
