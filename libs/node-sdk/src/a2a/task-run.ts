/**
 * One task's updates while a message is handled. Every update is saved (seq + 1) before anyone
 * hears of it, in call order, so every stream on any replica sees the sequence the store holds.
 * Updates made while a save is in flight (or in the same turn) go out together: one save of the
 * newest state plus every event, published by the store's script in order (ADR 82, ADR 0285). A
 * refused group is replayed one update at a time, so the update that broke a byte limit is the one
 * whose call fails and the others are built on what is really stored. A save never overwrites a
 * task that became terminal meanwhile (a cancel from any replica): the run then ends on that state.
 */
import { randomUUID } from 'node:crypto';
import type { TaskUpdates } from './handler-registry';
import type { StreamEvent, TaskEvent, TaskEvents } from './task-events';
import type { PublishOnSave, TaskRecord, TaskStore } from './task-store';
import { TERMINAL_STATES, type TaskState, type WireArtifact, type WireTask } from './wire-types';

const INTERRUPTED: ReadonlySet<TaskState> = new Set(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED']);

/** Streams end after a terminal or interrupted state. */
export const endsStream = (state: TaskState) => TERMINAL_STATES.has(state) || INTERRUPTED.has(state);

/** The last timestamp made, reused within its millisecond (a stream stamps several statuses per request). */
let isoMs = Number.NaN;
let iso = '';
export const nowIso = (): string => {
  const ms = Date.now();
  if (ms !== isoMs) {
    isoMs = ms;
    iso = new Date(ms).toISOString();
  }
  return iso;
};

/**
 * A status update names its task and says its status, no more: the task's metadata (routing,
 * notices, deprecation) is the Task's, which every stream and GetTask show first (ADR 0400).
 */
export const statusUpdate = (task: WireTask): StreamEvent => ({
  statusUpdate: { taskId: task.id, contextId: task.contextId, status: task.status },
});

/** An update as a function of the task it applies to: the next task and the event describing it. */
export type Update = (task: WireTask) => { task: WireTask; event: StreamEvent };

/** What a save may change on the record besides the task (server-side fields, never in the task). */
export type RecordExtra = Partial<Pick<TaskRecord, 'capabilityId' | 'upstream'>>;

interface Queued {
  /** Saved together or not at all; none: only `extra` changes (saved without an event). */
  updates: readonly Update[];
  extra: RecordExtra;
  /** Its events go to this node's listeners only, never PUBLISHed (a new task's first save: ADR 0379). */
  unheard?: boolean;
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface Built {
  record: TaskRecord;
  /** undefined: the record changed without an event (RecordExtra only). */
  change?: TaskEvent;
  unheard?: boolean;
}

export class TaskRun {
  /** The state the store holds (after the last successful save); queued updates are built on it. */
  private record: TaskRecord;
  private queue: Queued[] = [];
  private flushing = false;
  private lazyTimer?: NodeJS.Immediate;
  /** Set while a held first save waits (commitHeld, ADRs 0397, 0401, 0402): cancels that wait. */
  private holding?: () => void;
  /** Set by commitHeld: a lazy update with an event ends the hold at the end of its turn. */
  private heldUntilAnyUpdate = false;
  private endedOn?: TaskRecord;
  /** Fields every later save keeps (carry()). */
  private carried: RecordExtra = {};
  /**
   * The store holds this task: it was loaded (seq ≥ 1) or this run saved it. Until then no other
   * replica can know its id, so nothing can have ended it and a save skips the terminal check.
   */
  private inStore: boolean;

  constructor(
    record: TaskRecord,
    private readonly store: TaskStore,
    private readonly events: TaskEvents,
  ) {
    this.record = record;
    this.inStore = record.seq > 0;
  }

  /** The task as stored. */
  get current(): TaskRecord {
    return this.record;
  }

  /** The stored terminal task when it ended outside this run (a cancel); nothing more is written then. */
  get ended(): TaskRecord | undefined {
    return this.endedOn;
  }

  /**
   * Saves the task and publishes the event describing the change. `unheard`: nobody outside this
   * node can be listening (a task just created: its id is known only here), so the event reaches
   * this node's listeners and is not PUBLISHed (ADR 0379).
   */
  commit(task: WireTask, event: StreamEvent, extra: RecordExtra = {}, unheard = false): Promise<void> {
    if (this.endedOn) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ updates: [() => ({ task, event })], extra, resolve, reject, unheard });
      queueMicrotask(() => this.kick());
    });
  }

  /**
   * A new task's first save, held for up to `ms`: every update queued meanwhile waits with it, and
   * the first one that is not lazy (the handler's result) sends them all in one save, so a task
   * answered within `ms` is saved once; past `ms` it is saved as it stands and the rest follows as
   * usual (ADR 0397). `'turn'`: until releaseHoldAfterTurn() and the end of the turn after it (a
   * stream's first save, whose id the caller already has: ADR 0401). `anyUpdate`: a lazy update
   * with an event ends the hold too, at the end of its turn (a forwarded stream's caller waits for
   * the upstream's first answer, ADR 0402); a kept field alone does not. Its event reaches this
   * node's listeners only (a new task, ADR 0379).
   */
  commitHeld(task: WireTask, event: StreamEvent, extra: RecordExtra, ms: number | 'turn', anyUpdate = false): Promise<void> {
    this.heldUntilAnyUpdate = anyUpdate;
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ updates: [() => ({ task, event })], extra, resolve, reject, unheard: true });
      if (ms === 'turn') {
        // Until releaseHoldAfterTurn() (a stream's first save, ADR 0401).
        this.holding = () => undefined;
      } else {
        const timer = setTimeout(() => this.kick(), ms);
        this.holding = () => clearTimeout(timer);
      }
    });
  }

  /**
   * Ends a 'turn' hold at the end of the next turn of the event loop: the handler started in this
   * one has had its turn to answer (its result sends the held save at once). No-op once sent.
   */
  releaseHoldAfterTurn(): void {
    if (!this.holding) return;
    this.holding();
    const turn = setImmediate(() => this.kick());
    this.holding = () => clearImmediate(turn);
  }

  /**
   * Saves an update, built on the stored state after every update queued before it. `lazy`: it may wait for the next
   * turn of the event loop, so that updates made meanwhile share its save (a handler that answers
   * at once); any other update sends it at once.
   */
  apply(update: Update, extra: RecordExtra = {}, lazy = false): Promise<void> {
    return this.applyAll([update], extra, lazy);
  }

  /** Several updates saved in one step, all or none (a handler's result: its artifacts and its final state). */
  applyAll(updates: readonly Update[], extra: RecordExtra = {}, lazy = false): Promise<void> {
    if (this.endedOn) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ updates, extra, resolve, reject });
      if (lazy) {
        // A held save (commitHeld) takes lazy updates along when it goes.
        if (!this.holding) this.lazyTimer ??= setImmediate(() => this.kick());
        else if (this.heldUntilAnyUpdate && updates.length > 0) {
          this.heldUntilAnyUpdate = false;
          this.releaseHoldAfterTurn();
        }
        return;
      }
      queueMicrotask(() => this.kick());
    });
  }

  /**
   * Keeps `extra` on the record with the next save, without an event of its own: lazily, so an
   * update made in this turn carries it; alone (no event, seq unchanged) when none comes.
   */
  keep(extra: RecordExtra): Promise<void> {
    return this.applyAll([], extra, true);
  }

  /** Keeps `extra` on the record from the next save on, whenever that comes (no save of its own). */
  carry(extra: RecordExtra): void {
    this.carried = { ...this.carried, ...extra };
  }

  withArtifact(artifact: WireArtifact, append: boolean, task: WireTask = this.record.task): WireTask {
    const artifacts = [...(task.artifacts ?? [])];
    const at = artifacts.findIndex((a) => a.artifactId === artifact.artifactId);
    if (at < 0) artifacts.push(artifact);
    else artifacts[at] = append ? { ...artifacts[at], parts: [...artifacts[at].parts, ...artifact.parts] } : artifact;
    return { ...task, artifacts };
  }

  /** The update adding an artifact (chunk) to the task. */
  artifactUpdate(artifact: WireArtifact, append: boolean, lastChunk: boolean): Update {
    return (t) => {
      const task = this.withArtifact(artifact, append, t);
      return { task, event: { artifactUpdate: { taskId: task.id, contextId: task.contextId, artifact, append, lastChunk } } };
    };
  }

  /** The handler's view: progress and artifact chunks. */
  /**
   * The handler's view: progress and artifact chunks. `lazy`: each waits for the end of the turn,
   * so that updates made meanwhile (the next events of one upstream read, the result) share its
   * save (the gateway, which does not wait for one save before reading on; ADR 0320).
   */
  updates(lazy = false): TaskUpdates {
    return {
      progress: async (text) => {
        const progress: Update = (t) => {
          const message = { messageId: randomUUID(), role: 'ROLE_AGENT' as const, parts: [{ text }], taskId: t.id, contextId: t.contextId };
          const task: WireTask = { ...t, status: { state: 'TASK_STATE_WORKING', message, timestamp: nowIso() } };
          return { task, event: statusUpdate(task) };
        };
        await this.apply(progress, {}, lazy);
      },
      artifact: async (a, chunk = {}) => {
        const artifact: WireArtifact = { ...a, artifactId: a.artifactId ?? randomUUID() };
        await this.apply(this.artifactUpdate(artifact, chunk.append === true, chunk.lastChunk === true), {}, lazy);
        return artifact.artifactId;
      },
    };
  }

  /** The records and events of `q`'s updates applied in order on `base`. */
  private build(base: TaskRecord, q: Queued, into: Built[] = []): Built[] {
    if (q.updates.length === 0) into.push({ record: { ...base, ...this.carried, ...q.extra } });
    for (const update of q.updates) {
      const { task, event } = update(base.task);
      const record: TaskRecord = {
        ...base,
        ...this.carried,
        ...q.extra,
        task,
        updatedAt: Date.parse(task.status.timestamp),
        seq: base.seq + 1,
      };
      into.push({ record, change: { seq: record.seq, final: endsStream(task.status.state), event }, unheard: q.unheard });
      base = record;
    }
    return into;
  }

  /** Starts a save of everything queued unless one is in flight (which starts the next when done). */
  private kick(): void {
    if (this.lazyTimer) clearImmediate(this.lazyTimer);
    this.lazyTimer = undefined;
    this.holding?.();
    this.holding = undefined;
    if (this.flushing || this.queue.length === 0) return;
    this.flushing = true;
    const group = this.queue;
    this.queue = [];
    void this.flush(group).finally(() => {
      this.flushing = false;
      this.kick();
    });
  }

  /** Never rejects: each queued call learns its own outcome. */
  private async flush(group: Queued[]): Promise<void> {
    try {
      if (this.endedOn) return group.forEach((q) => q.resolve());
      const built: Built[] = [];
      for (const q of group) this.build(built.at(-1)?.record ?? this.record, q, built);
      await this.save(built);
      group.forEach((q) => q.resolve());
    } catch (error) {
      if (group.length === 1) return group[0].reject(error);
      // Replayed one by one on the stored state: the update that broke the limit fails alone.
      for (const q of group) {
        try {
          if (!this.endedOn) await this.save(this.build(this.record, q));
          q.resolve();
        } catch (e) {
          q.reject(e);
        }
      }
    }
  }

  /** One save of the newest state with every event; local listeners hear them once it is stored. */
  private async save(built: Built[]): Promise<void> {
    if (built.length === 0) return;
    const last = built[built.length - 1].record;
    const id = last.task.id;
    const heard = built.filter((b) => b.change);
    const changes = heard.map((b) => b.change!);
    const outs = this.store.publishesOnSave && this.events.outbound ? changes.map((c) => this.events.outbound!(id, c)) : undefined;
    const publish: PublishOnSave[] | undefined = outs
      ?.filter((_, i) => !heard[i].unheard)
      .map(({ channel, message }) => ({ channel, message }));
    // A task never stored before cannot have been ended elsewhere: its first save skips the check
    // (one Redis call fewer, ADR 0399).
    const stored = await this.store.save(last, publish, { unlessTerminal: this.inStore });
    if (stored) return this.end(stored);
    this.inStore = true;
    this.record = last;
    if (outs) for (const out of outs) out.local();
    else for (const c of changes) await this.events.publish(id, c);
  }

  /**
   * The task became terminal elsewhere: the run stops, and local streams hear that state as their
   * final event (a stream that already heard it drops it by its seq).
   */
  private end(stored: TaskRecord): void {
    this.endedOn = stored;
    this.record = stored;
    this.events.deliverLocally?.(stored.task.id, { seq: stored.seq, final: true, event: statusUpdate(stored.task) });
  }
}
