/**
 * A stream of StreamResponse events for one SSE response: an async iterator over a queue fed by
 * the task's event listener. It ends after a final event, or when closed (client gone); closing
 * always removes the listener, so a disconnected client leaves nothing behind.
 */
import type { StreamEvent, TaskEvent, TaskEvents } from './task-events';

export class TaskStream implements AsyncIterable<StreamEvent> {
  private readonly queue: StreamEvent[] = [];
  private wake?: () => void;
  private done = false;
  private unsubscribe?: () => Promise<void>;
  /** The capability the task is bound to, when routed (for the response's deprecation headers). */
  capabilityId?: string;
  /** Events with seq at or below this are already in the first event's snapshot. */
  private seen = -1;

  private constructor(private readonly onClose: () => void) {}

  /** Subscribes before the caller reads the snapshot, so no update falls between the two. */
  static async open(events: TaskEvents, taskId: string, onClose: () => void): Promise<TaskStream> {
    const s = new TaskStream(onClose);
    s.unsubscribe = await events.subscribe(taskId, (e) => s.receive(e));
    return s;
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
    try {
      await this.unsubscribe?.();
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
      if (this.done) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}
