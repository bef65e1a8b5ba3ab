/**
 * Task updates fanned out to every stream on a task, on every replica: one Redis channel per
 * task, one subscriber connection per node, multiplexed to local listeners. An event produced on
 * this node reaches its local listeners directly; the copy coming back through the subscriber
 * carries this bus's origin id and is dropped, so nothing is delivered twice (ADR 82). The
 * in-memory bus is for unit tests and single-process use.
 */
import { randomUUID } from 'node:crypto';
import { redisAway, type RedisClient } from '@cp/common/core';
import { onTaskStore, taskStoreUnavailable } from './store-unavailable';
import type { PublishOnSave } from './task-store';
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

/** One listener on one task's events (TaskEvents.listen). */
export interface Listening {
  /** Resolves once other replicas' events reach the listener too; calling it again costs nothing. */
  remote(): Promise<void>;
  /** Removes the listener (and the task's subscription with its last listener); idempotent. */
  close(): Promise<void>;
}

export interface TaskEvents {
  publish(taskId: string, event: TaskEvent): Promise<void>;
  /**
   * For a store that publishes on save: the PUBLISH to send with the save, and `local`, which
   * delivers the event to this node's listeners once the save succeeded. Undefined: use publish().
   */
  outbound?(taskId: string, event: TaskEvent): PublishOnSave & { local: () => void };
  /**
   * This node's listeners only, nothing published and nobody else told (push): a state another
   * replica stored and published, which a local stream may not have heard (ADR 0285).
   */
  deliverLocally?(taskId: string, event: TaskEvent): void;
  /** Resolves once events published from now on reach the listener; returns its unsubscribe. */
  subscribe(taskId: string, listener: TaskEventListener): Promise<() => Promise<void>>;
  /**
   * The listener hears this node's events at once and other replicas' only once `remote()` has
   * resolved (a stream on a task nobody else knows yet subscribes late, or never: ADR 0380).
   * Throws at once, like subscribe(), when the subscriber connection is lost.
   */
  listen(taskId: string, listener: TaskEventListener): Listening;
  /** Local listeners right now (leak checks). */
  readonly listenerCount: number;
}

/**
 * The same bus, also calling `notify` with every update this node produces (after it is saved
 * and published): push delivery hooks in here without touching the task run.
 */
export function notifyingEvents(inner: TaskEvents, notify: (taskId: string, event: StreamEvent) => void): TaskEvents {
  const outbound = inner.outbound?.bind(inner);
  return {
    publish: async (taskId, event) => {
      await inner.publish(taskId, event);
      notify(taskId, event.event);
    },
    outbound: outbound
      ? (taskId, event) => {
          const out = outbound(taskId, event);
          return {
            ...out,
            local: () => {
              out.local();
              notify(taskId, event.event);
            },
          };
        }
      : undefined,
    deliverLocally: inner.deliverLocally?.bind(inner),
    subscribe: (taskId, listener) => inner.subscribe(taskId, listener),
    listen: (taskId, listener) => inner.listen(taskId, listener),
    get listenerCount() {
      return inner.listenerCount;
    },
  };
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

  deliverLocally(taskId: string, event: TaskEvent): void {
    this.listeners.deliver(taskId, event);
  }

  async subscribe(taskId: string, listener: TaskEventListener): Promise<() => Promise<void>> {
    const listening = this.listen(taskId, listener);
    return () => listening.close();
  }

  listen(taskId: string, listener: TaskEventListener): Listening {
    this.listeners.add(taskId, listener);
    return { remote: async () => undefined, close: async () => void this.listeners.remove(taskId, listener) };
  }

  get listenerCount(): number {
    return this.listeners.size;
  }
}

/** On the wire: the event plus the bus that produced it. */
interface Envelope extends TaskEvent {
  origin?: string;
}

export class RedisTaskEvents implements TaskEvents {
  private readonly listeners = new Listeners();
  private readonly subscribed = new Map<string, Promise<unknown>>();
  /** Identifies this bus's own messages when the subscriber hears them back. */
  private readonly origin = randomUUID();
  private readonly ownMark = `{"origin":"${this.origin}"`;

  /** `subscriber` is a connection of its own (it enters subscriber mode); `publisher` may be shared. */
  constructor(
    private readonly publisher: RedisClient,
    private readonly subscriber: RedisClient,
    private readonly prefix: string,
  ) {
    subscriber.on('message', (channel: string, message: string) => {
      if (!channel.startsWith(this.channel(''))) return;
      // Already delivered locally when it was produced: dropped before parsing.
      if (message.startsWith(this.ownMark)) return;
      let envelope: Envelope;
      try {
        envelope = JSON.parse(message) as Envelope;
      } catch {
        return;
      }
      if (envelope.origin === this.origin) return;
      const { origin: _origin, ...event } = envelope;
      this.listeners.deliver(channel.slice(this.channel('').length), event);
    });
  }

  async publish(taskId: string, event: TaskEvent): Promise<void> {
    const out = this.outbound(taskId, event);
    await onTaskStore(this.publisher, () => this.publisher.publish(out.channel, out.message));
    out.local();
  }

  deliverLocally(taskId: string, event: TaskEvent): void {
    this.listeners.deliver(taskId, event);
  }

  outbound(taskId: string, event: TaskEvent): PublishOnSave & { local: () => void } {
    // origin first, so the subscriber recognises its own messages by their start (ownMark).
    const envelope: Envelope = { origin: this.origin, ...event };
    return {
      channel: this.channel(taskId),
      message: JSON.stringify(envelope),
      local: () => this.listeners.deliver(taskId, event),
    };
  }

  async subscribe(taskId: string, listener: TaskEventListener): Promise<() => Promise<void>> {
    const listening = this.listen(taskId, listener);
    try {
      await listening.remote();
    } catch (error) {
      await listening.close();
      throw error;
    }
    return () => listening.close();
  }

  listen(taskId: string, listener: TaskEventListener): Listening {
    // The stream would hear nothing from other replicas while its subscriber connection is lost:
    // refuse now (ADR 0240).
    if (redisAway(this.subscriber)) throw taskStoreUnavailable();
    this.listeners.add(taskId, listener);
    let closed = false;
    return {
      remote: async () => {
        if (closed) return;
        // Commands on one connection run in order, so a SUBSCRIBE after a pending UNSUBSCRIBE wins.
        let subscribing = this.subscribed.get(taskId);
        if (!subscribing) {
          const attempt = this.subscriber.subscribe(this.channel(taskId));
          this.subscribed.set(taskId, (subscribing = attempt));
          // A refused SUBSCRIBE is not remembered: the next remote() tries again.
          attempt.catch(() => this.subscribed.get(taskId) === attempt && this.subscribed.delete(taskId));
        }
        await subscribing;
      },
      close: async () => {
        if (closed) return;
        closed = true;
        if (!this.listeners.remove(taskId, listener)) return;
        const subscribing = this.subscribed.get(taskId);
        if (!subscribing) return;
        this.subscribed.delete(taskId);
        await this.subscriber.unsubscribe(this.channel(taskId)).catch(() => undefined);
      },
    };
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  private channel(taskId: string): string {
    return `${this.prefix}a2a:task-events:${taskId}`;
  }
}
