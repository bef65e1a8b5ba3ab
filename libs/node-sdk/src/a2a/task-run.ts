/**
 * One task's updates while a message is handled: each is saved (seq + 1) and then published, one
 * at a time in call order, so every stream on any replica sees the same sequence the store holds.
 * On Redis the save script publishes too: one round trip per update (ADR 82).
 */
import { randomUUID } from 'node:crypto';
import type { TaskUpdates } from './handler-registry';
import type { StreamEvent, TaskEvent, TaskEvents } from './task-events';
import type { TaskRecord, TaskStore } from './task-store';
import { TERMINAL_STATES, type TaskState, type WireArtifact, type WireTask } from './wire-types';

const INTERRUPTED: ReadonlySet<TaskState> = new Set(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED']);

/** Streams end after a terminal or interrupted state. */
export const endsStream = (state: TaskState) => TERMINAL_STATES.has(state) || INTERRUPTED.has(state);

export const nowIso = () => new Date().toISOString();

export const statusUpdate = (task: WireTask): StreamEvent => ({
  statusUpdate: {
    taskId: task.id,
    contextId: task.contextId,
    status: task.status,
    ...(task.metadata ? { metadata: task.metadata } : {}),
  },
});

export class TaskRun {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private record: TaskRecord,
    private readonly store: TaskStore,
    private readonly events: TaskEvents,
  ) {}

  get current(): TaskRecord {
    return this.record;
  }

  /** Saves the task and publishes the event describing the change. */
  commit(task: WireTask, event: StreamEvent, extra: Partial<Pick<TaskRecord, 'capabilityId'>> = {}): Promise<void> {
    return this.enqueue(async () => {
      const record: TaskRecord = { ...this.record, ...extra, task, updatedAt: Date.parse(task.status.timestamp), seq: this.record.seq + 1 };
      const change: TaskEvent = { seq: record.seq, final: endsStream(task.status.state), event };
      const out = this.store.publishesOnSave ? this.events.outbound?.(task.id, change) : undefined;
      if (out) {
        // One round trip: the store's script saves and publishes (ADR 82); local streams get the
        // event directly.
        await this.store.save(record, out);
        this.record = record;
        out.local();
        return;
      }
      await this.store.save(record);
      this.record = record;
      await this.events.publish(task.id, change);
    });
  }

  withArtifact(artifact: WireArtifact, append: boolean): WireTask {
    const task = this.record.task;
    const artifacts = [...(task.artifacts ?? [])];
    const at = artifacts.findIndex((a) => a.artifactId === artifact.artifactId);
    if (at < 0) artifacts.push(artifact);
    else artifacts[at] = append ? { ...artifacts[at], parts: [...artifacts[at].parts, ...artifact.parts] } : artifact;
    return { ...task, artifacts };
  }

  /** The handler's view: progress and artifact chunks. */
  updates(): TaskUpdates {
    return {
      progress: async (text) => {
        const t = this.record.task;
        const message = { messageId: randomUUID(), role: 'ROLE_AGENT' as const, parts: [{ text }], taskId: t.id, contextId: t.contextId };
        const task: WireTask = { ...t, status: { state: 'TASK_STATE_WORKING', message, timestamp: nowIso() } };
        await this.commit(task, statusUpdate(task));
      },
      artifact: async (a, chunk = {}) => {
        const artifact: WireArtifact = { ...a, artifactId: a.artifactId ?? randomUUID() };
        const append = chunk.append === true;
        const task = this.withArtifact(artifact, append);
        await this.commit(task, {
          artifactUpdate: { taskId: task.id, contextId: task.contextId, artifact, append, lastChunk: chunk.lastChunk === true },
        });
        return artifact.artifactId;
      },
    };
  }

  private enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.chain.then(fn);
    this.chain = p.catch(() => undefined);
    return p;
  }
}
