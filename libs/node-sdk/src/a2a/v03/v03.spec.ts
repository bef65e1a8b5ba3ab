import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { A2AError } from '../a2a-errors';
import { fieldOf } from '../../../../../test/support/a2a-error-field';
import type { WireMessage, WireTask } from '../wire-types';
import { signCard, verifyCardSignature } from '@cp/node-protocol';
import { cardToV03 } from './card';
import { V03_METHODS } from '../http/operations';
import { eventToV03, messageFromV03, messageToV03, sendParamsFromV03, taskToV03 } from './shapes';

const field = fieldOf;

describe('A2A 0.3 shapes', () => {
  it('translates a 0.3 MessageSendParams into the 1.0 request, every part kind included', () => {
    const params = sendParamsFromV03({
      message: {
        kind: 'message',
        role: 'user',
        messageId: 'm1',
        contextId: 'c1',
        parts: [
          { kind: 'text', text: 'hello', metadata: { a: 1 } },
          { kind: 'file', file: { name: 'INV-1.pdf', mimeType: 'application/pdf', bytes: 'JVBERg==' } },
          { kind: 'file', file: { uri: 'https://example.com/x.png', mimeType: 'image/png' } },
          { kind: 'data', data: { invoiceNumber: 'INV-1' } },
        ],
      },
      configuration: { blocking: false, acceptedOutputModes: ['application/json'], historyLength: 2 },
      metadata: { skillId: 'invoice-lookup' },
    });
    expect(params).toEqual({
      message: {
        messageId: 'm1',
        role: 'ROLE_USER',
        contextId: 'c1',
        parts: [
          { text: 'hello', metadata: { a: 1 } },
          { raw: 'JVBERg==', filename: 'INV-1.pdf', mediaType: 'application/pdf' },
          { url: 'https://example.com/x.png', mediaType: 'image/png' },
          { data: { invoiceNumber: 'INV-1' } },
        ],
      },
      configuration: { returnImmediately: true, acceptedOutputModes: ['application/json'], historyLength: 2 },
      metadata: { skillId: 'invoice-lookup' },
    });
  });

  it('names the 0.3 field of every malformed shape', () => {
    const m = (extra: Record<string, unknown>) => ({
      message: { kind: 'message', role: 'user', messageId: 'm', parts: [{ kind: 'text', text: 'x' }], ...extra },
    });
    expect(field(() => sendParamsFromV03(null))).toBe('params');
    expect(field(() => sendParamsFromV03({}))).toBe('params.message');
    expect(field(() => sendParamsFromV03(m({ kind: 'task' })))).toBe('params.message.kind');
    expect(field(() => sendParamsFromV03(m({ role: 'agent' })))).toBe('params.message.role');
    expect(field(() => sendParamsFromV03(m({ messageId: '' })))).toBe('params.message.messageId');
    expect(field(() => sendParamsFromV03(m({ parts: [] })))).toBe('params.message.parts');
    expect(field(() => sendParamsFromV03(m({ parts: [{ kind: 'text', text: 5 }] })))).toBe('params.message.parts[0].text');
    expect(field(() => sendParamsFromV03(m({ parts: [{ kind: 'file', file: {} }] })))).toBe('params.message.parts[0].file');
    expect(field(() => sendParamsFromV03(m({ parts: [{ kind: 'file', file: { bytes: 1 } }] })))).toBe('params.message.parts[0].file.bytes');
    // One translation for both 0.3 dialects: metadata must be an object on JSON-RPC too (issue 29).
    expect(field(() => sendParamsFromV03(m({ metadata: 'x' })))).toBe('params.message.metadata');
    expect(field(() => sendParamsFromV03({ ...m({}), metadata: [1] }))).toBe('params.metadata');
    expect(field(() => sendParamsFromV03({ ...m({}), configuration: 'x' }))).toBe('params.configuration');
    expect(field(() => sendParamsFromV03(m({ parts: [{ kind: 'data', data: 'str' }] })))).toBe('params.message.parts[0].data');
    expect(field(() => sendParamsFromV03(m({ parts: [{ kind: 'text', text: 'x', metadata: [] }] })))).toBe(
      'params.message.parts[0].metadata',
    );
    expect(field(() => sendParamsFromV03(m({ taskId: 7 })))).toBe('params.message.taskId');
    expect(field(() => sendParamsFromV03({ ...m({}), configuration: { blocking: 1 } }))).toBe('params.configuration.blocking');
    expect(
      field(() =>
        sendParamsFromV03({
          ...m({}),
          configuration: { pushNotificationConfig: { url: 'https://x', authentication: { schemes: ['A', 'B'] } } },
        }),
      ),
    ).toBe('params.configuration.pushNotificationConfig.authentication.schemes');
  });

  it('never throws anything but InvalidParams on arbitrary input', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        try {
          sendParamsFromV03(v);
          sendParamsFromV03({ message: v });
        } catch (error) {
          expect(error).toBeInstanceOf(A2AError);
        }
      }),
    );
  });

  it('round-trips messages: 1.0 → 0.3 → 1.0 keeps every part', () => {
    const part = fc.oneof(
      fc.record({ text: fc.string() }),
      fc.record({ raw: fc.base64String(), filename: fc.string(), mediaType: fc.constant('application/pdf') }),
      fc.record({ url: fc.webUrl() }),
      fc.record({ data: fc.dictionary(fc.string(), fc.jsonValue()) }),
    );
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 5 }), fc.string({ minLength: 1 }), (parts, messageId) => {
        const m: WireMessage = { messageId, role: 'ROLE_USER', parts };
        expect(messageFromV03(messageToV03(m), 'm')).toEqual(m);
      }),
    );
  });

  it('answers tasks and stream events in 0.3 shapes: kind, kebab-case states, final', () => {
    const task: WireTask = {
      id: 't',
      contextId: 'c',
      status: {
        state: 'TASK_STATE_INPUT_REQUIRED',
        timestamp: '2026-11-30T10:00:00.000Z',
        message: { messageId: 'a', role: 'ROLE_AGENT', parts: [{ text: 'which?' }] },
      },
      artifacts: [{ artifactId: 'x', parts: [{ data: [1, 2] }] }],
    };
    expect(taskToV03(task)).toEqual({
      kind: 'task',
      id: 't',
      contextId: 'c',
      status: {
        state: 'input-required',
        timestamp: '2026-11-30T10:00:00.000Z',
        message: { kind: 'message', messageId: 'a', role: 'agent', parts: [{ kind: 'text', text: 'which?' }] },
      },
      artifacts: [{ artifactId: 'x', parts: [{ kind: 'data', data: { value: [1, 2] } }] }],
    });
    expect(
      eventToV03({ statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING', timestamp: 'now' } } }),
    ).toEqual({
      kind: 'status-update',
      taskId: 't',
      contextId: 'c',
      status: { state: 'working', timestamp: 'now' },
      final: false,
    });
    expect(
      eventToV03({ statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED', timestamp: 'now' } } }),
    ).toMatchObject({
      final: true,
    });
    expect(
      eventToV03({
        artifactUpdate: {
          taskId: 't',
          contextId: 'c',
          artifact: { artifactId: 'a', parts: [{ text: 'x' }] },
          append: true,
          lastChunk: false,
        },
      }),
    ).toEqual({
      kind: 'artifact-update',
      taskId: 't',
      contextId: 'c',
      artifact: { artifactId: 'a', parts: [{ kind: 'text', text: 'x' }] },
      append: true,
      lastChunk: false,
    });
  });

  it('maps every 0.3 method named in the issue onto a 1.0 method', () => {
    expect(Object.fromEntries(Object.entries(V03_METHODS).map(([k, v]) => [k, v.v1]))).toEqual({
      'message/send': 'SendMessage',
      'message/stream': 'SendStreamingMessage',
      'tasks/get': 'GetTask',
      'tasks/cancel': 'CancelTask',
      'tasks/resubscribe': 'SubscribeToTask',
      'agent/getAuthenticatedExtendedCard': 'GetExtendedAgentCard',
      'tasks/pushNotificationConfig/set': 'CreateTaskPushNotificationConfig',
      'tasks/pushNotificationConfig/get': 'GetTaskPushNotificationConfig',
      'tasks/pushNotificationConfig/list': 'ListTaskPushNotificationConfigs',
      'tasks/pushNotificationConfig/delete': 'DeleteTaskPushNotificationConfig',
    });
    expect(
      V03_METHODS['tasks/pushNotificationConfig/set'].params({ taskId: 't', pushNotificationConfig: { url: 'https://h', token: 'k' } }),
    ).toEqual({
      taskId: 't',
      url: 'https://h',
      token: 'k',
    });
    expect(V03_METHODS['tasks/pushNotificationConfig/get'].params({ id: 't' })).toEqual({ taskId: 't' });
    expect(V03_METHODS['tasks/pushNotificationConfig/delete'].result({})).toBeNull();
  });
});

describe('the 0.3 card', () => {
  const card = {
    name: 'A',
    description: 'd',
    version: '1.0.0',
    supportedInterfaces: [
      { url: 'http://n/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'http://n/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: 'http://n/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ],
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
    securitySchemes: {
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
      key: { apiKeySecurityScheme: { location: 'header', name: 'X-Key' } },
    },
    securityRequirements: [{ schemes: { bearer: { list: ['recon.run'] } } }, {}],
    skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'] }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['application/json'],
  };

  it('is a hybrid: the 0.3 top-level fields and 0.3 security shapes, with the 1.0 interface list kept', () => {
    const v03 = cardToV03(card);
    expect(v03).toMatchObject({
      protocolVersion: '0.3.0',
      url: 'http://n/a2a/jsonrpc',
      preferredTransport: 'JSONRPC',
      supportsAuthenticatedExtendedCard: true,
      capabilities: { streaming: true, pushNotifications: true },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'Bearer', bearerFormat: 'JWT' },
        key: { type: 'apiKey', in: 'header', name: 'X-Key' },
      },
      security: [{ bearer: ['recon.run'] }, {}],
      supportedInterfaces: card.supportedInterfaces,
    });
    expect(v03.securityRequirements).toBeUndefined();
    expect((v03.capabilities as Record<string, unknown>).extendedAgentCard).toBeUndefined();
  });
  it('carries no signatures: the 1.0 card is what was signed, and a signature over it cannot verify over the hybrid', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwks = { keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'k', alg: 'ES256', use: 'sig' }] };
    const signed = await signCard(card, { kid: 'k', privateKey });
    expect(await verifyCardSignature(signed, jwks)).toEqual({ ok: true, kid: 'k' });
    const v03 = cardToV03(signed);
    expect(v03.signatures).toBeUndefined();
    // Served as an unsigned card (a client that requires signatures sees that), never as a forged-looking one.
    expect(await verifyCardSignature(v03, jwks)).toMatchObject({ ok: false, code: 'UNSIGNED' });
  });
});
