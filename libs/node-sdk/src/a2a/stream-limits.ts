/**
 * Stream guards (issue 27 item 2, ADR 0205): how many SSE streams a node, one owner, the anonymous
 * pool and one task may hold open at once, and how long and how far behind one stream may run.
 * The counting is here (pure, synchronous); the timers and the write buffer are the SSE writer's
 * (sse-writer.ts). A refusal names the cap it hit and changes nothing.
 */
import { A2AError, A2AErrorName } from './a2a-errors';
import { ANONYMOUS_OWNER } from './task-store';

export interface StreamLimitSettings {
  /** Open streams on this node (503 TOO_MANY_STREAMS past it). */
  maxStreams: number;
  /** Open streams of one authenticated owner (tenant + principal). */
  maxStreamsPerOwner: number;
  /** Open streams of every anonymous caller together: they share one owner key (ADR 0080). */
  maxAnonymousStreams: number;
  /** Open streams on one task, whoever holds them. */
  maxStreamsPerTask: number;
  /** A stream with no event for this long ends with STREAM_IDLE_TIMEOUT (heartbeats do not count). */
  streamIdleTimeoutMs: number;
  /** A stream ends with STREAM_MAX_LIFETIME this long after it opened, events or not. */
  streamMaxLifetimeMs: number;
  /** Bytes a slow reader may leave unread in the response buffer before its stream ends (STREAM_READER_TOO_SLOW). */
  streamBufferMaxBytes: number;
  /**
   * A stream on a task this node has just created hears other replicas' events (a cancel sent
   * elsewhere) once it has been open this long, or never if it ended before; 0: from the start,
   * the first event waiting for the subscription (ADR 0380).
   */
  streamRemoteAfterMs: number;
  /**
   * When a new task's stream shows its first event: `early`, once every check has passed and the
   * store surely accepts the task, before its first save (a refused save then ends the stream with
   * that refusal); the handler starts once that event is written, and the first save waits for its
   * result or the end of the next turn, so a handler answering at once is saved with it (ADRs 0396,
   * 0401); `stored`, after that save, the handler too.
   */
  streamFirstEvent: 'early' | 'stored';
}

export const DEFAULT_STREAM_LIMITS: StreamLimitSettings = {
  maxStreams: 2000,
  maxStreamsPerOwner: 200,
  maxAnonymousStreams: 200,
  maxStreamsPerTask: 10,
  streamIdleTimeoutMs: 300_000,
  streamMaxLifetimeMs: 3_600_000,
  streamBufferMaxBytes: 1_048_576,
  streamRemoteAfterMs: 100,
  streamFirstEvent: 'early',
};

/** Gives back a slot; calling it again does nothing. */
export type StreamRelease = () => void;

export class StreamLimiter {
  private total = 0;
  private readonly byOwner = new Map<string, number>();
  private readonly byTask = new Map<string, number>();

  constructor(private readonly limits: StreamLimitSettings) {}

  /** Open streams on this node. */
  get open(): number {
    return this.total;
  }

  /**
   * Refuses before any work when a stream for this owner could not open (the task is not known yet:
   * SendStreamingMessage checks here before it stores one).
   */
  check(owner: string, taskId?: string): void {
    if (this.total >= this.limits.maxStreams) {
      throw new A2AError(
        A2AErrorName.Unavailable,
        `this node serves at most ${this.limits.maxStreams} streams at once; retry later`,
        { limit: String(this.limits.maxStreams) },
        'TOO_MANY_STREAMS',
      );
    }
    const anonymous = owner === ANONYMOUS_OWNER;
    const ownerCap = anonymous ? this.limits.maxAnonymousStreams : this.limits.maxStreamsPerOwner;
    if ((this.byOwner.get(owner) ?? 0) >= ownerCap) {
      throw new A2AError(
        A2AErrorName.RateLimited,
        anonymous
          ? `anonymous callers together hold at most ${ownerCap} open streams; retry later or authenticate`
          : `one caller holds at most ${ownerCap} open streams; close one before opening another`,
        { limit: String(ownerCap), retryAfterSeconds: '5' },
        anonymous ? 'TOO_MANY_ANONYMOUS_STREAMS' : 'TOO_MANY_STREAMS_FOR_CALLER',
      );
    }
    if (taskId !== undefined && (this.byTask.get(taskId) ?? 0) >= this.limits.maxStreamsPerTask) {
      throw new A2AError(
        A2AErrorName.RateLimited,
        `task ${taskId} already has ${this.limits.maxStreamsPerTask} open streams, the most one task may have`,
        { taskId, limit: String(this.limits.maxStreamsPerTask), retryAfterSeconds: '5' },
        'TOO_MANY_STREAMS_FOR_TASK',
      );
    }
  }

  /** Takes one slot of each cap, or throws the first cap that is full (nothing taken). */
  acquire(owner: string, taskId: string): StreamRelease {
    this.check(owner, taskId);
    this.total++;
    bump(this.byOwner, owner, 1);
    bump(this.byTask, taskId, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      bump(this.byOwner, owner, -1);
      bump(this.byTask, taskId, -1);
    };
  }
}

/** Counts that fall to zero are deleted, so the maps hold only owners and tasks with open streams. */
function bump(map: Map<string, number>, key: string, by: number): void {
  const next = (map.get(key) ?? 0) + by;
  if (next <= 0) map.delete(key);
  else map.set(key, next);
}
