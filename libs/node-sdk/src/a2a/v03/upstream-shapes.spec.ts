import { A2AError } from '../a2a-errors';
import { eventFromV03, eventFromV03Proto, sendToV03, sendToV03Proto } from './upstream-shapes';

const message = {
  messageId: 'm1',
  role: 'ROLE_USER' as const,
  parts: [{ text: 'hi' }, { data: { a: 1 } }, { url: 'https://x/y', mediaType: 'text/plain' }],
};

describe('the 0.3 translation read the other way (a gateway in front of a 0.3 upstream)', () => {
  it('sends the 1.0 message in each 0.3 dialect', () => {
    expect(sendToV03({ ...message, taskId: 'up-1', contextId: 'c' }, ['application/json'])).toEqual({
      message: {
        kind: 'message',
        messageId: 'm1',
        role: 'user',
        taskId: 'up-1',
        contextId: 'c',
        parts: [
          { kind: 'text', text: 'hi' },
          { kind: 'data', data: { a: 1 } },
          { kind: 'file', file: { uri: 'https://x/y', mimeType: 'text/plain' } },
        ],
      },
      // Asked to block: a 0.3 server may otherwise answer a send before its task ends (ADR 0350).
      configuration: { acceptedOutputModes: ['application/json'], blocking: true },
    });
    expect(sendToV03Proto(message, []).message).toEqual({
      messageId: 'm1',
      role: 'ROLE_USER',
      content: [{ text: 'hi' }, { data: { data: { a: 1 } } }, { file: { fileWithUri: 'https://x/y', mimeType: 'text/plain' } }],
    });
  });

  it('turns 0.3 JSON-RPC events into 1.0 StreamResponses', () => {
    expect(eventFromV03({ kind: 'task', id: 't', contextId: 'c', status: { state: 'working' } })).toEqual({
      task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } },
    });
    expect(
      eventFromV03({
        kind: 'status-update',
        taskId: 't',
        contextId: 'c',
        final: true,
        status: {
          state: 'input-required',
          message: { kind: 'message', messageId: 'q', role: 'agent', parts: [{ kind: 'text', text: 'which?' }] },
        },
      }),
    ).toEqual({
      statusUpdate: {
        taskId: 't',
        contextId: 'c',
        status: { state: 'TASK_STATE_INPUT_REQUIRED', message: { messageId: 'q', role: 'ROLE_AGENT', parts: [{ text: 'which?' }] } },
      },
    });
    expect(
      eventFromV03({
        kind: 'artifact-update',
        taskId: 't',
        contextId: 'c',
        lastChunk: true,
        artifact: {
          artifactId: 'a',
          name: 'n',
          parts: [{ kind: 'file', file: { bytes: 'AAE=', name: 'f.bin', mimeType: 'application/octet-stream' } }],
        },
      }),
    ).toEqual({
      artifactUpdate: {
        taskId: 't',
        contextId: 'c',
        append: false,
        lastChunk: true,
        artifact: { artifactId: 'a', name: 'n', parts: [{ raw: 'AAE=', filename: 'f.bin', mediaType: 'application/octet-stream' }] },
      },
    });
    expect(eventFromV03({ kind: 'message', messageId: 'r', role: 'agent', parts: [{ kind: 'data', data: { ok: true } }] })).toEqual({
      message: { messageId: 'r', role: 'ROLE_AGENT', parts: [{ data: { ok: true } }] },
    });
  });

  it('turns 0.3 proto-JSON events into 1.0 StreamResponses (CANCELLED spelled the 1.0 way)', () => {
    expect(eventFromV03Proto({ statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_CANCELLED' } } })).toEqual({
      statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_CANCELED' } },
    });
    expect(
      eventFromV03Proto({
        task: {
          id: 't',
          contextId: 'c',
          status: { state: 'TASK_STATE_COMPLETED', message: { messageId: 'x', role: 'ROLE_AGENT', content: [{ text: 'done' }] } },
          artifacts: [{ artifactId: 'a', parts: [{ data: { data: { n: 1 } } }] }],
        },
      }),
    ).toEqual({
      task: {
        id: 't',
        contextId: 'c',
        status: { state: 'TASK_STATE_COMPLETED', message: { messageId: 'x', role: 'ROLE_AGENT', parts: [{ text: 'done' }] } },
        artifacts: [{ artifactId: 'a', parts: [{ data: { n: 1 } }] }],
      },
    });
  });

  it.each<[string, () => unknown, string]>([
    ['an unknown kind', () => eventFromV03({ kind: 'hunter2', id: 't' }), 'result.kind'],
    [
      'a 1.0 state in a 0.3 event',
      () => eventFromV03({ kind: 'task', id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } }),
      'result.status.state',
    ],
    ['a 0.3 state in proto-JSON', () => eventFromV03Proto({ task: { id: 't', status: { state: 'working' } } }), 'event.task.status.state'],
    [
      'the 1.0 spelling of canceled in proto-JSON',
      () => eventFromV03Proto({ statusUpdate: { status: { state: 'TASK_STATE_CANCELED' } } }),
      'state',
    ],
    ['a part without kind', () => eventFromV03({ kind: 'message', parts: [{ text: 'x' }] }), 'result.parts[0].kind'],
    [
      'parts that are not a list',
      () => eventFromV03({ kind: 'artifact-update', artifact: { artifactId: 'a', parts: 'x' } }),
      'result.artifact.parts',
    ],
    [
      'a file with bytes and a uri',
      () => eventFromV03Proto({ message: { content: [{ file: { fileWithBytes: 'AA', fileWithUri: 'u' } }] } }),
      'event.message.content[0].file',
    ],
    ['two payloads in one proto event', () => eventFromV03Proto({ task: {}, statusUpdate: {} }), 'event'],
    ['an array', () => eventFromV03([]), 'result'],
    ['a made-up state', () => eventFromV03({ kind: 'task', status: { state: 'hunter2' } }), 'result.status.state'],
    ['a status that is a string', () => eventFromV03({ kind: 'status-update', status: 'completed' }), 'result.status'],
  ])('refuses %s, naming the 0.3 path and no upstream value', (_name, run, path) => {
    let error: unknown;
    try {
      run();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(A2AError);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).not.toContain('hunter2');
  });
});
