/**
 * The SSE writer's guards (ADR 0205) on a real node:http server: a stream with no event ends after
 * the idle timeout, a busy one at its maximum lifetime, and a reader that takes nothing ends once
 * the bytes it left unread pass the bound; each with a final `event: error` frame naming the guard,
 * its slot released, and the bytes held for the slow reader bounded.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { A2AError, A2AErrorName } from './a2a-errors';
import { writeSse, type SseGuards } from './sse-writer';
import { InMemoryTaskEvents, type TaskEvent } from './task-events';
import { TaskStream } from './task-stream';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const frames = { event: (e: unknown) => `data: ${JSON.stringify(e)}\n\n`, error: (e: A2AError) => e.toRest() };
const task = { task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' as const, timestamp: 'x' } } };
const update = (seq: number, text = ''): TaskEvent => ({
  seq,
  final: false,
  event: {
    statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING', timestamp: String(seq) }, metadata: { text } },
  },
});

interface Served {
  url: string;
  port: number;
  events: InMemoryTaskEvents;
  released: () => number;
  /** Resolves when the writer returned, with the bytes it still held in the response buffer then. */
  ended: Promise<number>;
  server: Server;
}

async function serve(
  guards: Partial<SseGuards>,
  beforeWrite: (stream: TaskStream) => Promise<unknown> = () => Promise.resolve(),
): Promise<Served> {
  const events = new InMemoryTaskEvents();
  let released = 0;
  let done!: (held: number) => void;
  const ended = new Promise<number>((r) => (done = r));
  const all: SseGuards = {
    streamIdleTimeoutMs: 60_000,
    streamMaxLifetimeMs: 60_000,
    streamBufferMaxBytes: 1_048_576,
    heartbeatMs: 60_000,
    ...guards,
  };
  const server = createServer((_req, res: ServerResponse) => {
    void (async () => {
      const stream = await TaskStream.open(events, 't', () => released++);
      stream.first(task, 0, false);
      await beforeWrite(stream);
      await writeSse(res, stream, { 'content-type': 'text/event-stream' }, frames, all, quiet);
      done(res.writableLength);
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, port, events, released: () => released, ended, server };
}

async function until(probe: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !probe(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(probe()).toBe(true);
}

const lastFrame = (text: string) => text.trim().split('\n\n').pop()!;

describe('writeSse stream guards', () => {
  let served: Served | undefined;
  afterEach(async () => {
    served?.server.closeAllConnections();
    await new Promise((r) => served?.server.close(r));
    served = undefined;
  });

  it('ends a stream with no event after the idle timeout, with an error event naming it, and releases its slot', async () => {
    served = await serve({ streamIdleTimeoutMs: 300 });
    const text = await (await fetch(served.url)).text();
    expect(text.startsWith('data: {"task"')).toBe(true);
    const last = lastFrame(text);
    expect(last.split('\n')[0]).toBe('event: error');
    const body = JSON.parse(last.split('\n')[1].slice('data: '.length)) as ReturnType<A2AError['toRest']>;
    expect(body.error).toMatchObject({ code: 503, status: 'UNAVAILABLE' });
    expect(body.error.details[0]).toMatchObject({ reason: 'STREAM_IDLE_TIMEOUT', metadata: { limitMs: '300' } });
    await served.ended;
    expect(served.released()).toBe(1);
    expect(served.events.listenerCount).toBe(0);
  });

  it('closes at once the stream of a client that left while it was being opened', async () => {
    let gone!: () => void;
    const left = new Promise<void>((r) => (gone = r));
    served = await serve({}, () => left);
    const socket = connect(served.port, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise((r) => socket.once('connect', r));
    socket.write(`GET / HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
    await until(() => served!.events.listenerCount === 1);
    socket.destroy();
    await new Promise((r) => setTimeout(r, 50));
    gone();
    await served.ended;
    expect(served.released()).toBe(1);
    expect(served.events.listenerCount).toBe(0);
  });

  it('ends a busy stream at its maximum lifetime even though events keep coming', async () => {
    served = await serve({ streamIdleTimeoutMs: 60_000, streamMaxLifetimeMs: 400 });
    const s = served;
    let seq = 0;
    const ticker = setInterval(() => void s.events.publish('t', update(++seq)), 20);
    try {
      const text = await (await fetch(s.url)).text();
      expect(lastFrame(text)).toContain('"reason":"STREAM_MAX_LIFETIME"');
      expect(text.split('\n\n').filter((f) => f.startsWith('data: {"statusUpdate"')).length).toBeGreaterThan(0);
    } finally {
      clearInterval(ticker);
    }
    await s.ended;
    expect(s.released()).toBe(1);
  });

  it('ends the stream of a reader that takes nothing once its unread bytes pass the bound, holding no more than that', async () => {
    const bound = 256 * 1024;
    served = await serve({ streamBufferMaxBytes: bound });
    const s = served;
    const socket = connect(s.port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.pause();
    socket.write(`GET / HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n`);
    await new Promise((r) => setTimeout(r, 50));
    const chunk = 'x'.repeat(64 * 1024);
    let finished = false;
    void s.ended.then(() => (finished = true));
    // Far more than the kernel's socket buffers take: the rest must stay in the response buffer.
    for (let seq = 1; seq <= 2000 && !finished; seq++) {
      await s.events.publish('t', update(seq, chunk));
      await new Promise((r) => setImmediate(r));
    }
    const held = await s.ended;
    expect(finished).toBe(true);
    expect(s.released()).toBe(1);
    // The bound, one frame that fit under it, and the final error frame.
    expect(held).toBeLessThanOrEqual(bound + chunk.length + 4096);
    // The reader that finally reads gets the error as the last frame.
    const received: Buffer[] = [];
    socket.on('data', (b: Buffer) => received.push(b));
    socket.resume();
    await new Promise((r) => socket.once('close', r));
    const text = Buffer.concat(received).toString('utf8');
    expect(text.slice(text.lastIndexOf('event: error'))).toContain('"reason":"STREAM_READER_TOO_SLOW"');
    expect(text.slice(text.lastIndexOf('event: error'))).not.toContain('statusUpdate');
  });

  it('ends a stream its task failed (a first save refused after the first event, ADR 0396) with that error as the last frame', async () => {
    served = await serve({}, async (stream) => {
      setTimeout(
        () =>
          stream.fail(new A2AError(A2AErrorName.PayloadTooLarge, 'your tasks would exceed 10 stored bytes', {}, 'OWNER_QUOTA_EXCEEDED')),
        20,
      );
    });
    const text = await (await fetch(served.url)).text();
    expect(text.startsWith('data: {"task"')).toBe(true);
    const last = lastFrame(text);
    expect(last.split('\n')[0]).toBe('event: error');
    const body = JSON.parse(last.split('\n')[1].slice('data: '.length)) as ReturnType<A2AError['toRest']>;
    expect(body.error.message).toBe('your tasks would exceed 10 stored bytes');
    expect(body.error.details[0]).toMatchObject({ reason: 'OWNER_QUOTA_EXCEEDED' });
    await served.ended;
    expect(served.released()).toBe(1);
    expect(served.events.listenerCount).toBe(0);
  });

  it('names anything but an A2AError an internal failure, never showing its text', async () => {
    served = await serve({}, async (stream) => {
      setTimeout(() => stream.fail(new Error('ERR Error running script f_0123 @user_script:42: secret-key-name')), 20);
    });
    const text = await (await fetch(served.url)).text();
    const last = lastFrame(text);
    expect(last.split('\n')[0]).toBe('event: error');
    expect(last).toContain('"reason":"TASK_NOT_STORED"');
    expect(last).not.toMatch(/script|secret|user_script/);
    await served.ended;
    expect(served.released()).toBe(1);
  });
});
