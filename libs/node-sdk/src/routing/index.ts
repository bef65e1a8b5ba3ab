export { EmbeddingsClassifier, capabilityText } from './embeddings-classifier';
export type { EmbeddingsClassifierOptions } from './embeddings-classifier';
export { ChatCompletionsClassifier, choiceSchema, parseChoice, CHAT_TOOL_NAME, NO_CAPABILITY } from './chat-classifier';
export type { ChatClassifierOptions, ChatOutput } from './chat-classifier';
export { HttpClarificationSink, CLARIFICATIONS_PATH } from './http-clarification-sink';
export { SemanticChoicesClassifier } from './semantic-choices';
export type { SemanticChoicesOptions, SemanticRanker } from './semantic-choices';
