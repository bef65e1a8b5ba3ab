/**
 * A stream of StreamResponse events for one SSE response: an async iterator over a queue fed by
 * the task's event listener. It ends after a final event, or when closed (client gone); closing
 * always removes the listener, so a disconnected client leaves nothing behind.
 */
import { A2AError, A2AErrorName } from './a2a-errors';
import type { Listening, StreamEvent, TaskEvent, TaskEvents } from './task-events';
import { endsStream, statusUpdate } from './task-run';
import type { TaskRecord } from './task-store';

export class TaskStream implements AsyncIterable<StreamEvent> {
  private readonly queue: StreamEvent[] = [];
  private wake?: () => void;
  private done = false;
  private listening?: Listening;
  private remoteTimer?: NodeJS.Timeout;
  /** The capability the task is bound to, when routed (for the response's deprecation headers). */
  capabilityId?: string;
  /** Events with seq at or below this are already in the first event's snapshot. */
  private seen = -1;

  private constructor(private readonly onClose: () => void) {}

  /**
   * Listens before the caller reads the snapshot, so no update falls between the two. `remote`
   * false: other replicas' events are heard only from `remoteAfter()` on (a task only this node
   * knows yet, ADR 0380); true: resolves once they are.
   */
  static async open(events: TaskEvents, taskId: string, onClose: () => void, remote = true): Promise<TaskStream> {
    const s = new TaskStream(onClose);
    s.listening = events.listen(taskId, (e) => s.receive(e));
    if (remote) {
      try {
        await s.listening.remote();
      } catch (error) {
        await s.listening.close();
        throw error;
      }
    }
    return s;
  }

  /**
   * A stream opened without other replicas' events (ADR 0380) hears them once it has lived `ms`:
   * it subscribes then, and reads the stored task (`read`), so a change another replica made
   * before the subscription (a cancel) still reaches it. A stream that ended before never
   * subscribes. Call after first().
   */
  remoteAfter(ms: number, read: () => Promise<TaskRecord | undefined>): void {
    if (this.done) return;
    this.remoteTimer = setTimeout(() => void this.goRemote(read), ms);
  }

  private async goRemote(read: () => Promise<TaskRecord | undefined>): Promise<void> {
    try {
      await this.listening?.remote();
      if (this.done) return;
      const stored = await read();
      // This node's own saves reach the stream after their replies, which come before the read's
      // (one connection, in order), but a few microtask hops later: let them land first.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (!stored || this.done || stored.seq <= this.seen) return;
      this.receive({ seq: stored.seq, final: endsStream(stored.task.status.state), event: statusUpdate(stored.task) });
    } catch {
      // Subscriber or store away: this node's events still reach the stream; its idle timeout bounds the rest.
    }
  }

  /** The first event (the Task); `seq` is its record's seq; `final` ends the stream after it. */
  first(event: StreamEvent, seq: number, final: boolean): void {
    this.queue.unshift(event);
    this.seen = Math.max(this.seen, seq);
    // Events that arrived before the snapshot was read, minus those it already contains (and
    // any seq heard twice).
    for (const e of this.pending) if (e.seq > this.seen && !this.done) this.push(e);
    this.pending = [];
    this.started = true;
    if (final) this.finish();
    this.wake?.();
  }

  private pending: TaskEvent[] = [];
  private started = false;

  private receive(e: TaskEvent): void {
    if (this.done) return;
    if (!this.started) {
      this.pending.push(e);
      return;
    }
    if (e.seq <= this.seen) return;
    this.push(e);
    this.wake?.();
  }

  private push(e: TaskEvent): void {
    this.seen = Math.max(this.seen, e.seq);
    this.queue.push(e.event);
    if (e.final) this.finish();
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    void this.release();
  }

  private failure?: A2AError;

  /**
   * Ends the stream with an error after the events it holds (the task's first save refused after
   * its first event, ADR 0396): the reader's iteration throws it, and the SSE writer sends it as
   * the final `event: error`. Anything but an A2AError is named an internal failure, never shown.
   */
  fail(error: unknown): void {
    if (this.done) return;
    this.failure =
      error instanceof A2AError ? error : new A2AError(A2AErrorName.Internal, 'the task could not be stored', {}, 'TASK_NOT_STORED');
    this.finish();
    this.wake?.();
  }

  /** Client gone or server closing: stop and remove the listener. */
  close(): void {
    this.queue.length = 0;
    this.finish();
    this.wake?.();
  }

  private released = false;

  private async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    if (this.remoteTimer) clearTimeout(this.remoteTimer);
    try {
      await this.listening?.close();
    } finally {
      this.onClose();
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    for (;;) {
      const next = this.queue.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.done) {
        if (this.failure) throw this.failure;
        return;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}
