/**
 * An event's JSON is made once (streamEventJson) for its PUBLISH and its SSE frame: the texts must
 * be exactly what stringifying each whole would give, or another replica or a caller would read
 * something else than before.
 */
import { RedisTaskEvents, streamEventJson, type StreamEvent, type TaskEvent } from './task-events';

const status: StreamEvent = {
  statusUpdate: {
    taskId: 't-1',
    contextId: 'c-1',
    status: {
      state: 'TASK_STATE_WORKING',
      timestamp: '2026-12-02T20:00:00.000Z',
      message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'é "quoted" \u2028 \\ </script>' }] },
    },
    metadata: { n: 1, nested: { list: [1, null, true] } },
  },
};
const artifact: StreamEvent = {
  artifactUpdate: {
    taskId: 't-1',
    contextId: 'c-1',
    artifact: { artifactId: 'a', parts: [{ data: { total: 1250.5 } }] },
    append: false,
    lastChunk: true,
  },
};

/** A bus whose Redis is never reached: outbound() only builds text. */
const bus = () => {
  const idle = { on: () => undefined } as unknown as ConstructorParameters<typeof RedisTaskEvents>[0];
  return new RedisTaskEvents(idle, idle, 'p:');
};

describe('streamEventJson and the texts made from it', () => {
  it('is JSON.stringify of the event, the same string for the same object, made anew for another object', () => {
    expect(streamEventJson(status)).toBe(JSON.stringify(status));
    expect(streamEventJson(status)).toBe(streamEventJson(status));
    const copy = structuredClone(artifact);
    expect(streamEventJson(copy)).toBe(JSON.stringify(artifact));
  });

  it("the PUBLISH message is byte for byte JSON.stringify({ origin, seq, final, event }), and the subscriber's parse gives the event back", () => {
    const events = bus();
    for (const e of [
      { seq: 2, final: false, event: status },
      { seq: 3, final: true, event: artifact },
    ] satisfies TaskEvent[]) {
      const out = events.outbound('t-1', e);
      const origin = JSON.parse(out.message).origin as string;
      expect(out.message).toBe(JSON.stringify({ origin, seq: e.seq, final: e.final, event: e.event }));
      const { origin: _o, ...back } = JSON.parse(out.message);
      expect(back).toEqual(e);
    }
  });
});
