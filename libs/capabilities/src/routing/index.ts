export { route, routeAsync, prepareRoute, decide, DEFAULT_CONFIDENCE_THRESHOLD, SKILL_HINT_KEY } from './route';
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
  NeedsClassifier,
  RouteExplanation,
} from './route';
export { clarificationQuestion, resolveReply, normalizeReply, MAX_CHOICES, REPLY_MAX_CHARS } from './clarification';
export type { PendingClarification } from './clarification';
export { LexicalClassifier, DEFAULT_CALIBRATION } from './classifier';
export {
  applySecondOpinion,
  fuseChoices,
  lexicalChoiceOrder,
  secondOpinionVetoes,
  DEFAULT_CHOICE_FUSION,
  DEFAULT_SECOND_OPINION,
} from './choices';
export type { ChoiceFusion, SecondOpinion } from './choices';
export type { Calibration, Classifier, ClassifierResult, LexicalOptions, RankedCandidate, RoutingHints, TermExpansion } from './classifier';
export { terms, stem, tokens, bigrams, withoutNames } from './text';
export { partKind, partMediaType, normalizeMediaType, mediaTypeMatches, messageText } from './message';
export type { WireMessage, WirePart, PartKind } from './message';
export {
  parseRoutingTests,
  runRoutingTests,
  routeChanges,
  routingTestIndex,
  routeOneDecided,
  ROUTING_TESTS_FILE,
  CLARIFY,
  DEFAULT_MIN_ACCURACY,
  routingTestSummary,
} from './routing-tests';
export type {
  RoutingTestCase,
  RoutingTestSummary,
  RoutingTestSuite,
  RoutingTestReport,
  RoutingTestResult,
  RoutingOutcome,
  RoutingDecision,
} from './routing-tests';
