import fc from 'fast-check';
import { A2AError } from '../a2a-errors';
import { fieldOf } from '../../../../../test/support/a2a-error-field';
import type { WireTask } from '../wire-types';
import { cardToV03Proto } from './card';
import {
  eventToV03Proto,
  pushConfigFromV03Proto,
  pushConfigToV03Proto,
  sendRequestFromV03Proto,
  sendResponseToV03Proto,
  taskToV03Proto,
} from './shapes';

const field = fieldOf;

describe('A2A 0.3 HTTP+JSON (proto-JSON) shapes', () => {
  it('translates a 0.3 SendMessageRequest, every part kind and the configuration, into the 1.0 request', () => {
    const params = sendRequestFromV03Proto({
      message: {
        messageId: 'm1',
        contextId: 'c1',
        role: 'ROLE_USER',
        content: [
          { text: 'hello' },
          { file: { fileWithUri: 'https://x/y.pdf', mimeType: 'application/pdf' } },
          { file: { fileWithBytes: 'AAE=' } },
          { data: { data: { a: 1 } } },
        ],
        metadata: { skillId: 'invoice-lookup' },
      },
      configuration: { blocking: false, historyLength: 2, acceptedOutputModes: ['application/json'] },
      metadata: { k: 'v' },
    });
    expect(params).toEqual({
      message: {
        messageId: 'm1',
        contextId: 'c1',
        role: 'ROLE_USER',
        parts: [{ text: 'hello' }, { url: 'https://x/y.pdf', mediaType: 'application/pdf' }, { raw: 'AAE=' }, { data: { a: 1 } }],
        metadata: { skillId: 'invoice-lookup' },
      },
      configuration: { returnImmediately: true, historyLength: 2, acceptedOutputModes: ['application/json'] },
      metadata: { k: 'v' },
    });
    // The proto field name `request` is accepted as well as its JSON name `message`.
    expect(sendRequestFromV03Proto({ request: { messageId: 'm2', content: [{ text: 'x' }] } }).message.messageId).toBe('m2');
  });

  it('names the field of every malformed request', () => {
    const msg = (m: Record<string, unknown>) => ({ message: { messageId: 'a', content: [{ text: 'x' }], ...m } });
    expect(field(() => sendRequestFromV03Proto('x'))).toBe('body');
    expect(field(() => sendRequestFromV03Proto({}))).toBe('message');
    expect(field(() => sendRequestFromV03Proto(msg({ role: 'ROLE_AGENT' })))).toBe('message.role');
    expect(field(() => sendRequestFromV03Proto(msg({ content: [] })))).toBe('message.content');
    expect(field(() => sendRequestFromV03Proto(msg({ content: [{ text: 'x', data: { data: {} } }] })))).toBe('message.content[0]');
    expect(field(() => sendRequestFromV03Proto(msg({ content: [{ file: {} }] })))).toBe('message.content[0].file');
    expect(field(() => sendRequestFromV03Proto(msg({ content: [{ file: { fileWithUri: 7 } }] })))).toBe(
      'message.content[0].file.fileWithUri',
    );
    expect(field(() => sendRequestFromV03Proto(msg({ metadata: [1] })))).toBe('message.metadata');
    expect(field(() => sendRequestFromV03Proto({ ...msg({}), configuration: { blocking: 1 } }))).toBe('configuration.blocking');
  });

  it('never throws anything but InvalidParams on arbitrary input', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        for (const attempt of [
          () => sendRequestFromV03Proto(v),
          () => sendRequestFromV03Proto({ message: v }),
          () => pushConfigFromV03Proto('t', v),
        ]) {
          try {
            attempt();
          } catch (error) {
            expect(error).toBeInstanceOf(A2AError);
          }
        }
      }),
    );
  });

  const task: WireTask = {
    id: 't1',
    contextId: 'c1',
    status: {
      state: 'TASK_STATE_CANCELED',
      timestamp: '2026-11-30T00:00:00Z',
      message: { messageId: 'a1', role: 'ROLE_AGENT', parts: [{ data: [1, 2] }] },
    },
    artifacts: [{ artifactId: 'r', parts: [{ raw: 'AA==', mediaType: 'application/pdf', filename: 'x.pdf' }] }],
    metadata: { routing: { capabilityId: 'invoice-lookup' } },
  };

  it('answers tasks in 0.3 proto shapes: content, CANCELLED, wrapped non-object data, file parts', () => {
    expect(taskToV03Proto(task)).toEqual({
      id: 't1',
      contextId: 'c1',
      status: {
        state: 'TASK_STATE_CANCELLED',
        timestamp: '2026-11-30T00:00:00Z',
        message: { messageId: 'a1', role: 'ROLE_AGENT', content: [{ data: { data: { value: [1, 2] } } }] },
      },
      artifacts: [{ artifactId: 'r', parts: [{ file: { fileWithBytes: 'AA==', mimeType: 'application/pdf' } }] }],
      metadata: { routing: { capabilityId: 'invoice-lookup' } },
    });
    expect(sendResponseToV03Proto({ task })).toEqual({ task: taskToV03Proto(task) });
    expect(sendResponseToV03Proto({ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } })).toEqual({
      message: { messageId: 'm', role: 'ROLE_AGENT', content: [{ text: 'hi' }] },
    });
  });

  it('marks the last status update of a stream final, as 0.3 requires', () => {
    const update = (state: WireTask['status']['state']) =>
      eventToV03Proto({ statusUpdate: { taskId: 't', contextId: 'c', status: { state, timestamp: 'x' } } });
    expect(update('TASK_STATE_WORKING')).toEqual({
      statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING', timestamp: 'x' }, final: false },
    });
    expect((update('TASK_STATE_COMPLETED').statusUpdate as { final: boolean }).final).toBe(true);
    expect((update('TASK_STATE_INPUT_REQUIRED').statusUpdate as { final: boolean }).final).toBe(true);
  });

  it('push configs: the 0.3 name and nesting in, credentials never echoed out; a name of another task is refused', () => {
    const input = pushConfigFromV03Proto('t1', {
      name: 'tasks/t1/pushNotificationConfigs/c1',
      pushNotificationConfig: { id: 'c1', url: 'https://hook', token: 'tok', authentication: { schemes: ['Bearer'], credentials: 's' } },
    });
    expect(input).toEqual({
      taskId: 't1',
      id: 'c1',
      url: 'https://hook',
      token: 'tok',
      authentication: { scheme: 'Bearer', credentials: 's' },
    });
    expect(field(() => pushConfigFromV03Proto('t1', { name: 'tasks/t2/pushNotificationConfigs/c1', pushNotificationConfig: {} }))).toBe(
      'name',
    );
    expect(
      pushConfigToV03Proto({ taskId: 't1', id: 'c1', url: 'https://hook', token: 'tok', authentication: { scheme: 'Bearer' } }),
    ).toEqual({
      name: 'tasks/t1/pushNotificationConfigs/c1',
      pushNotificationConfig: { id: 'c1', url: 'https://hook', token: 'tok', authentication: { schemes: ['Bearer'] } },
    });
  });

  it('the 0.3 proto card: HTTP+JSON preferred, proto security kept as requirements, no 1.0-only fields or signatures', () => {
    const card = cardToV03Proto({
      name: 'A',
      supportedInterfaces: [
        { url: 'https://a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: 'https://a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
        { url: 'https://a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
        { url: 'https://a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
      ],
      capabilities: { streaming: true, extendedAgentCard: true },
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
      securityRequirements: [{ schemes: { bearer: { list: [] } } }],
      signatures: [{ protected: 'x', signature: 'y' }],
    });
    expect(card).toEqual({
      name: 'A',
      protocolVersion: '0.3.0',
      url: 'https://a/rest',
      preferredTransport: 'HTTP+JSON',
      additionalInterfaces: [
        { url: 'https://a/jsonrpc', transport: 'JSONRPC' },
        { url: 'https://a/rest', transport: 'HTTP+JSON' },
      ],
      capabilities: { streaming: true },
      supportsAuthenticatedExtendedCard: true,
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
      security: [{ schemes: { bearer: { list: [] } } }],
    });
  });
});
