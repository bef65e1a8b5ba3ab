/**
 * TaskStream ordering: events heard before the snapshot, events the snapshot already holds, and
 * the same seq heard twice (a local delivery and a relayed copy) reach the client once, in order.
 */
import { InMemoryTaskEvents, type StreamEvent, type TaskEvent } from './task-events';
import { TaskStream } from './task-stream';

const update = (seq: number, final = false): TaskEvent => ({
  seq,
  final,
  event: {
    statusUpdate: {
      taskId: 't',
      contextId: 'c',
      status: { state: final ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_WORKING', timestamp: String(seq) },
    },
  },
});

async function drain(stream: TaskStream): Promise<string[]> {
  const out: string[] = [];
  for await (const e of stream as AsyncIterable<StreamEvent>)
    out.push('task' in e ? 'task' : 'statusUpdate' in e ? e.statusUpdate.status.timestamp : '?');
  return out;
}

describe('TaskStream', () => {
  it('drops events the snapshot holds and seqs heard twice before the snapshot; ends after the final one and removes its listener', async () => {
    const events = new InMemoryTaskEvents();
    let closed = 0;
    const stream = await TaskStream.open(events, 't', () => closed++);
    for (const seq of [2, 3, 3, 4, 4]) await events.publish('t', update(seq));
    stream.first({ task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING', timestamp: '2' } } }, 2, false);
    await events.publish('t', update(4));
    await events.publish('t', update(5, true));
    await events.publish('t', update(6));
    expect(await drain(stream)).toEqual(['task', '3', '4', '5']);
    await new Promise((r) => setImmediate(r));
    expect(events.listenerCount).toBe(0);
    expect(closed).toBe(1);
  });
});
