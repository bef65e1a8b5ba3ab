export { route, DEFAULT_CONFIDENCE_THRESHOLD, SKILL_HINT_KEY } from './route';
export type {
  RouteOptions,
  RouteResult,
  Routed,
  InputRequired,
  RouteFailure,
  RouteLayer,
  RouteNotice,
  RouteErrorName,
  RouteFailureReason,
  DataShape,
} from './route';
export { LexicalClassifier, terms, stem } from './classifier';
export type { Classifier, ClassifierResult } from './classifier';
export { partKind, partMediaType, normalizeMediaType, mediaTypeMatches, messageText } from './message';
export type { WireMessage, WirePart, PartKind } from './message';
