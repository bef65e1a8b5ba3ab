export { EmbeddingsClassifier, capabilityText } from './embeddings-classifier';
export type { EmbeddingsClassifierOptions } from './embeddings-classifier';
