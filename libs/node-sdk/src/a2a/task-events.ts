/**
 * Task updates fanned out to every stream on a task, on every replica: one Redis channel per
 * task, one subscriber connection per node, multiplexed to local listeners. The in-memory bus
 * is for unit tests and single-process use.
 */
import type { Redis } from 'ioredis';
import type { WireArtifact, WireTask } from './wire-types';

/** A2A 1.0 StreamResponse: exactly one member. */
export type StreamEvent =
  | { task: WireTask }
  | { statusUpdate: { taskId: string; contextId: string; status: WireTask['status']; metadata?: Record<string, unknown> } }
  | { artifactUpdate: { taskId: string; contextId: string; artifact: WireArtifact; append: boolean; lastChunk: boolean } };

export interface TaskEvent {
  /** The record's seq after the update this event reports. */
  seq: number;
  /** The task reached a terminal or interrupted state: streams on it end after this event. */
  final: boolean;
  event: StreamEvent;
}

export type TaskEventListener = (event: TaskEvent) => void;

export interface TaskEvents {
  publish(taskId: string, event: TaskEvent): Promise<void>;
  /** Resolves once events published from now on reach the listener; returns its unsubscribe. */
  subscribe(taskId: string, listener: TaskEventListener): Promise<() => Promise<void>>;
  /** Local listeners right now (leak checks). */
  readonly listenerCount: number;
}

class Listeners {
  private readonly byTask = new Map<string, Set<TaskEventListener>>();
  private count = 0;

  /** true when this is the task's first listener. */
  add(taskId: string, l: TaskEventListener): boolean {
    let set = this.byTask.get(taskId);
    const first = !set;
    if (!set) this.byTask.set(taskId, (set = new Set()));
    set.add(l);
    this.count++;
    return first;
  }

  /** true when the task has no listener left. */
  remove(taskId: string, l: TaskEventListener): boolean {
    const set = this.byTask.get(taskId);
    if (!set?.delete(l)) return false;
    this.count--;
    if (set.size > 0) return false;
    this.byTask.delete(taskId);
    return true;
  }

  deliver(taskId: string, event: TaskEvent): void {
    for (const l of this.byTask.get(taskId) ?? []) l(event);
  }

  get size(): number {
    return this.count;
  }
}

export class InMemoryTaskEvents implements TaskEvents {
  private readonly listeners = new Listeners();

  async publish(taskId: string, event: TaskEvent): Promise<void> {
    this.listeners.deliver(taskId, event);
  }

  async subscribe(taskId: string, listener: TaskEventListener): Promise<() => Promise<void>> {
    this.listeners.add(taskId, listener);
    return async () => void this.listeners.remove(taskId, listener);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }
}

export class RedisTaskEvents implements TaskEvents {
  private readonly listeners = new Listeners();
  private readonly subscribed = new Map<string, Promise<unknown>>();

  /** `subscriber` is a connection of its own (it enters subscriber mode); `publisher` may be shared. */
  constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly prefix: string,
  ) {
    subscriber.on('message', (channel: string, message: string) => {
      if (!channel.startsWith(this.channel(''))) return;
      let event: TaskEvent;
      try {
        event = JSON.parse(message) as TaskEvent;
      } catch {
        return;
      }
      this.listeners.deliver(channel.slice(this.channel('').length), event);
    });
  }

  async publish(taskId: string, event: TaskEvent): Promise<void> {
    await this.publisher.publish(this.channel(taskId), JSON.stringify(event));
  }

  async subscribe(taskId: string, listener: TaskEventListener): Promise<() => Promise<void>> {
    // Commands on one connection run in order, so a SUBSCRIBE after a pending UNSUBSCRIBE wins.
    if (this.listeners.add(taskId, listener)) this.subscribed.set(taskId, this.subscriber.subscribe(this.channel(taskId)));
    await this.subscribed.get(taskId);
    return async () => {
      if (!this.listeners.remove(taskId, listener)) return;
      this.subscribed.delete(taskId);
      await this.subscriber.unsubscribe(this.channel(taskId)).catch(() => undefined);
    };
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  private channel(taskId: string): string {
    return `${this.prefix}a2a:task-events:${taskId}`;
  }
}
