/**
 * Writes one TaskStream as Server-Sent Events on a raw HTTP response, under the stream guards of
 * ADR 0205: an idle timeout (no event for too long), a maximum lifetime, and a bound on the bytes a
 * slow reader may leave unread. A guard ends the stream with a final `event: error` frame whose data
 * is the binding's own error body (as @a2a-js/sdk servers and clients do), never silently; a client
 * that goes away closes the stream. Either way the stream's slot and listener are released at once.
 */
import type { ServerResponse } from 'node:http';
import { A2AError, A2AErrorName } from './a2a-errors';
import type { A2ALog } from './request-context';
import type { StreamLimitSettings } from './stream-limits';
import type { StreamEvent } from './task-events';
import type { TaskStream } from './task-stream';

/** How one binding frames a stream's events and the error that ends it early. */
export interface SseFrames {
  event(event: StreamEvent): string;
  /** The body of the final `event: error` frame (JSON-RPC response, AIP-193 status, or 0.3 `{code, message, data}`). */
  error(error: A2AError): unknown;
}

export type SseGuards = Pick<StreamLimitSettings, 'streamIdleTimeoutMs' | 'streamMaxLifetimeMs' | 'streamBufferMaxBytes'> & {
  /** Comment lines on idle streams keep proxies from closing them. */
  heartbeatMs: number;
};

/** After a guard ended the stream, a reader that does not take the last bytes is cut off this much later. */
const END_GRACE_MS = 10_000;

export async function writeSse(
  raw: ServerResponse,
  stream: TaskStream,
  headers: Record<string, string>,
  frames: SseFrames,
  guards: SseGuards,
  log: A2ALog,
): Promise<void> {
  raw.writeHead(200, headers);
  let gone = false;
  let ending: A2AError | undefined;
  const stop = (error: A2AError) => {
    if (ending || gone) return;
    ending = error;
    stream.close();
  };
  const onClose = () => {
    gone = true;
    stream.close();
  };
  raw.on('close', onClose);
  // A client that left while the stream was being opened has already fired 'close': without this
  // check its stream would hold a slot until the idle timeout (found by the stream fuzz suite).
  if (raw.closed || raw.destroyed || !raw.socket || raw.socket.destroyed) onClose();
  const idle = setTimeout(() => stop(idleTimeout(guards.streamIdleTimeoutMs)), guards.streamIdleTimeoutMs);
  const lifetime = setTimeout(() => stop(maxLifetime(guards.streamMaxLifetimeMs)), guards.streamMaxLifetimeMs);
  // A heartbeat behind unread bytes proves nothing and only adds to them.
  const heartbeat = setInterval(() => raw.writableLength === 0 && raw.write(': keep-alive\n\n'), guards.heartbeatMs);
  for (const t of [idle, lifetime, heartbeat]) t.unref();
  try {
    // Events are pulled as they come, never left to queue up in the stream: what a slow reader has
    // not taken waits in the response's buffer, and that buffer is bounded here.
    for await (const event of stream) {
      if (gone || ending) break;
      idle.refresh();
      const frame = frames.event(event);
      const pending = raw.writableLength;
      if (pending > 0 && pending + Buffer.byteLength(frame) > guards.streamBufferMaxBytes) {
        stop(tooSlow(guards.streamBufferMaxBytes, pending));
        break;
      }
      // Events that arrive together (one grouped save, ADR 0285) leave in one write, the end too.
      if (raw.writableCorked === 0) {
        raw.cork();
        process.nextTick(() => raw.uncork());
      }
      raw.write(frame);
    }
  } catch (error) {
    // An A2AError is the stream's own ending (TaskStream.fail: a refused first save, ADR 0396).
    if (error instanceof A2AError) stop(error);
    else {
      log.error({ err: (error as Error).message }, 'stream failed');
      stop(new A2AError(A2AErrorName.Internal, 'the stream failed on the server', {}, 'STREAM_FAILED'));
    }
  } finally {
    clearTimeout(idle);
    clearTimeout(lifetime);
    clearInterval(heartbeat);
    raw.off('close', onClose);
    stream.close();
    if (!gone) finish(raw, ending, frames);
  }
}

function finish(raw: ServerResponse, ending: A2AError | undefined, frames: SseFrames): void {
  if (!ending) {
    raw.end();
    return;
  }
  raw.end(`event: error\ndata: ${JSON.stringify(frames.error(ending))}\n\n`);
  // A reader that never takes its last bytes does not keep the socket (and its buffer) forever.
  const cut = setTimeout(() => raw.destroy(), END_GRACE_MS);
  cut.unref();
  raw.once('close', () => clearTimeout(cut));
}

// Unavailable (503, UNAVAILABLE): the task is not over, the stream is; resubscribing is the retry.
const idleTimeout = (ms: number) =>
  new A2AError(
    A2AErrorName.Unavailable,
    `the stream ended after ${ms} ms without an event; subscribe to the task again to keep watching it`,
    { limitMs: String(ms) },
    'STREAM_IDLE_TIMEOUT',
  );

const maxLifetime = (ms: number) =>
  new A2AError(
    A2AErrorName.Unavailable,
    `the stream reached its maximum lifetime of ${ms} ms; subscribe to the task again to keep watching it`,
    { limitMs: String(ms) },
    'STREAM_MAX_LIFETIME',
  );

const tooSlow = (limit: number, pending: number) =>
  new A2AError(
    A2AErrorName.Unavailable,
    `the stream ended: the client left ${pending} bytes unread, past the ${limit}-byte bound; read faster, or use GetTask`,
    { limitBytes: String(limit) },
    'STREAM_READER_TOO_SLOW',
  );
