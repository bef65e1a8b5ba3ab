/**
 * Which text classifier an agent node routes with (ADRs 0093, 0291): none configured → the lexical
 * router (route()'s default); an embeddings endpoint → the embeddings router; a chat endpoint →
 * the chat-completions router, falling back to the embeddings router when both are set. The chat
 * settings are validated at boot.
 */
import { ChatCompletionsClassifier, EmbeddingsClassifier, SemanticChoicesClassifier } from '@cp/node-sdk';
import { testConfig } from '../../../test/support/config';
import { nodeClassifier } from './a2a-endpoints';

const log = { warn: () => undefined };

describe('nodeClassifier', () => {
  it('follows the configuration: nothing, embeddings, chat, chat over embeddings', () => {
    expect(nodeClassifier(testConfig(), log)).toBeUndefined();
    expect(nodeClassifier(testConfig({ EMBEDDINGS_URL: 'http://127.0.0.1:1/v1' }), log)).toBeInstanceOf(EmbeddingsClassifier);
    const chat = nodeClassifier(testConfig({ CHAT_ROUTER_URL: 'http://127.0.0.1:1/v1' }), log);
    expect(chat).toBeInstanceOf(ChatCompletionsClassifier);
    const both = nodeClassifier(testConfig({ CHAT_ROUTER_URL: 'http://127.0.0.1:1/v1', EMBEDDINGS_URL: 'http://127.0.0.1:2/v1' }), log);
    expect(both).toBeInstanceOf(ChatCompletionsClassifier);
    expect((both as unknown as { fallback: unknown }).fallback).toBeInstanceOf(EmbeddingsClassifier);
  });

  it('EMBEDDINGS_ROLE=choices: the lexical router decides and the embeddings choose a clarification’s choices (ADR 0361)', () => {
    const choices = nodeClassifier(testConfig({ EMBEDDINGS_URL: 'http://127.0.0.1:1/v1', EMBEDDINGS_ROLE: 'choices' }), log);
    expect(choices).toBeInstanceOf(SemanticChoicesClassifier);
    expect((choices as unknown as { options: { ranker: unknown } }).options.ranker).toBeInstanceOf(EmbeddingsClassifier);
    const both = nodeClassifier(
      testConfig({ CHAT_ROUTER_URL: 'http://127.0.0.1:1/v1', EMBEDDINGS_URL: 'http://127.0.0.1:2/v1', EMBEDDINGS_ROLE: 'choices' }),
      log,
    );
    expect((both as unknown as { fallback: unknown }).fallback).toBeInstanceOf(SemanticChoicesClassifier);
    // Without an endpoint the role changes nothing: the lexical router alone.
    expect(nodeClassifier(testConfig({ EMBEDDINGS_ROLE: 'choices' }), log)).toBeUndefined();
    for (const bad of ['Choices', 'decide', ' route', 'route,choices', 'choices\u0000', 'x'.repeat(10_000)])
      expect(() => testConfig({ EMBEDDINGS_ROLE: bad })).toThrow(/EMBEDDINGS_ROLE/);
    // An empty variable is unset, as for every setting: the embeddings decide (ADR 0093).
    expect(testConfig({ EMBEDDINGS_ROLE: '' }).EMBEDDINGS_ROLE).toBe('route');
  });

  it('EMBEDDINGS_ROLE=second-opinion: choices, and the embeddings may turn a route into a question (ADR 0362); choices alone has no veto', () => {
    const options = (c: unknown) => (c as { options: { ranker: unknown; secondOpinion?: { margin: number } } }).options;
    const opinion = nodeClassifier(testConfig({ EMBEDDINGS_URL: 'http://127.0.0.1:1/v1', EMBEDDINGS_ROLE: 'second-opinion' }), log);
    expect(opinion).toBeInstanceOf(SemanticChoicesClassifier);
    expect(options(opinion).ranker).toBeInstanceOf(EmbeddingsClassifier);
    expect(options(opinion).secondOpinion).toEqual({ margin: 0.2 });
    const choices = nodeClassifier(testConfig({ EMBEDDINGS_URL: 'http://127.0.0.1:1/v1', EMBEDDINGS_ROLE: 'choices' }), log);
    expect(options(choices).secondOpinion).toBeUndefined();
    const both = nodeClassifier(
      testConfig({ CHAT_ROUTER_URL: 'http://127.0.0.1:1/v1', EMBEDDINGS_URL: 'http://127.0.0.1:2/v1', EMBEDDINGS_ROLE: 'second-opinion' }),
      log,
    );
    expect(options((both as unknown as { fallback: unknown }).fallback).secondOpinion).toEqual({ margin: 0.2 });
    expect(nodeClassifier(testConfig({ EMBEDDINGS_ROLE: 'second-opinion' }), log)).toBeUndefined();
    for (const bad of ['second_opinion', 'Second-Opinion', 'second-opinion ', 'veto'])
      expect(() => testConfig({ EMBEDDINGS_ROLE: bad })).toThrow(/EMBEDDINGS_ROLE/);
  });

  it('refuses bad chat settings at boot, naming the variable', () => {
    expect(() => testConfig({ CHAT_ROUTER_URL: 'file:///etc/passwd' })).toThrow(/CHAT_ROUTER_URL/);
    expect(() => testConfig({ CHAT_ROUTER_TIMEOUT_MS: '0' })).toThrow(/CHAT_ROUTER_TIMEOUT_MS/);
    expect(() => testConfig({ CHAT_ROUTER_OUTPUT: 'prose' })).toThrow(/CHAT_ROUTER_OUTPUT/);
    expect(() => testConfig({ CHAT_ROUTER_CACHE_ENTRIES: '-1' })).toThrow(/CHAT_ROUTER_CACHE_ENTRIES/);
  });
});
