/**
 * Which text classifier an agent node routes with (ADRs 0093, 0291): none configured → the lexical
 * router (route()'s default); an embeddings endpoint → the embeddings router; a chat endpoint →
 * the chat-completions router, falling back to the embeddings router when both are set. The chat
 * settings are validated at boot.
 */
import { ChatCompletionsClassifier, EmbeddingsClassifier } from '@cp/node-sdk';
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

  it('refuses bad chat settings at boot, naming the variable', () => {
    expect(() => testConfig({ CHAT_ROUTER_URL: 'file:///etc/passwd' })).toThrow(/CHAT_ROUTER_URL/);
    expect(() => testConfig({ CHAT_ROUTER_TIMEOUT_MS: '0' })).toThrow(/CHAT_ROUTER_TIMEOUT_MS/);
    expect(() => testConfig({ CHAT_ROUTER_OUTPUT: 'prose' })).toThrow(/CHAT_ROUTER_OUTPUT/);
    expect(() => testConfig({ CHAT_ROUTER_CACHE_ENTRIES: '-1' })).toThrow(/CHAT_ROUTER_CACHE_ENTRIES/);
  });
});
