/**
 * Which text classifier an agent node routes with (ADRs 0093, 0291): none configured → the lexical
 * router (route()'s default); an embeddings endpoint → the embeddings router; a chat endpoint →
 * the chat-completions router, falling back to the embeddings router when both are set. The chat
 * settings are validated at boot.
 */
import { DEFAULT_SECOND_OPINION } from '@cp/capabilities';
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

  it("EMBEDDINGS_VETO_MARGIN sets the second opinion's margin (another model has its own scale); hostile values are refused at boot, naming the variable", () => {
    const margin = (c: unknown) => (c as { options: { secondOpinion?: { margin: number } } }).options.secondOpinion?.margin;
    const base = { EMBEDDINGS_URL: 'http://127.0.0.1:1/v1', EMBEDDINGS_ROLE: 'second-opinion' };
    // The default is the rule's own (ADR 0362), and an empty variable is unset.
    expect(testConfig().EMBEDDINGS_VETO_MARGIN).toBe(DEFAULT_SECOND_OPINION.margin);
    expect(testConfig({ EMBEDDINGS_VETO_MARGIN: '' }).EMBEDDINGS_VETO_MARGIN).toBe(DEFAULT_SECOND_OPINION.margin);
    expect(margin(nodeClassifier(testConfig({ ...base, EMBEDDINGS_VETO_MARGIN: '0.05' }), log))).toBe(0.05);
    expect(margin(nodeClassifier(testConfig({ ...base, EMBEDDINGS_VETO_MARGIN: '2' }), log))).toBe(2);
    expect(margin(nodeClassifier(testConfig({ ...base, EMBEDDINGS_VETO_MARGIN: '0.333333' }), log))).toBeCloseTo(0.333333, 9);
    const hostile = [
      '0',
      '0.0',
      '-0.2',
      '2.000001',
      '3',
      '1e-1',
      '.2',
      '0.',
      ' 0.2',
      '0.2 ',
      '+0.2',
      '0x1',
      'Infinity',
      'NaN',
      '0,2',
      '0.1234567',
      '0.2\u0000',
      '9'.repeat(100_000),
    ];
    for (const bad of hostile) {
      let message = '';
      try {
        testConfig({ EMBEDDINGS_VETO_MARGIN: bad });
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toMatch(/EMBEDDINGS_VETO_MARGIN/);
      // The refusal names the bounds, never the value (it may be 100 KB or hold control characters).
      expect(message.length).toBeLessThan(2_000);
      expect(message).not.toContain('\u0000');
    }
  });

  it('refuses bad chat settings at boot, naming the variable', () => {
    expect(() => testConfig({ CHAT_ROUTER_URL: 'file:///etc/passwd' })).toThrow(/CHAT_ROUTER_URL/);
    expect(() => testConfig({ CHAT_ROUTER_TIMEOUT_MS: '0' })).toThrow(/CHAT_ROUTER_TIMEOUT_MS/);
    expect(() => testConfig({ CHAT_ROUTER_OUTPUT: 'prose' })).toThrow(/CHAT_ROUTER_OUTPUT/);
    expect(() => testConfig({ CHAT_ROUTER_CACHE_ENTRIES: '-1' })).toThrow(/CHAT_ROUTER_CACHE_ENTRIES/);
  });
});
