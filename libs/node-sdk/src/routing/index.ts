export { EmbeddingsClassifier, capabilityText } from './embeddings-classifier';
export type { EmbeddingsClassifierOptions } from './embeddings-classifier';
export { HttpClarificationSink, CLARIFICATIONS_PATH } from './http-clarification-sink';
