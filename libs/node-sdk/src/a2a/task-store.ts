/**
 * In-memory tasks, each bound to the capability that handles it and to the principal that
 * created it (another caller's task id answers TaskNotFound, exactly like an unknown id).
 * Bounded: past `maxTasks` the oldest are dropped.
 */
import type { WireTask } from './wire-types';

export interface TaskRecord {
  task: WireTask;
  /** The capability continuing messages go to; undefined while the router awaits a choice. */
  capabilityId?: string;
  owner: string;
  tenant: string;
  updatedAt: number;
}

export const ownerKey = (caller: { principal: string; tenant: string } | null) =>
  caller === null ? 'anonymous' : `${caller.tenant}/${caller.principal}`;

export class InMemoryTaskStore {
  private readonly tasks = new Map<string, TaskRecord>();

  constructor(private readonly maxTasks = 10_000) {}

  save(record: TaskRecord): void {
    this.tasks.delete(record.task.id);
    this.tasks.set(record.task.id, record);
    while (this.tasks.size > this.maxTasks) this.tasks.delete(this.tasks.keys().next().value!);
  }

  /** The task if it exists AND belongs to this owner. */
  get(id: string, owner: string): TaskRecord | undefined {
    const r = this.tasks.get(id);
    return r && r.owner === owner ? r : undefined;
  }

  /** Newest first (by status time), then by id. */
  list(owner: string, filter: { contextId?: string; state?: string } = {}): TaskRecord[] {
    return [...this.tasks.values()]
      .filter(
        (r) =>
          r.owner === owner &&
          (!filter.contextId || r.task.contextId === filter.contextId) &&
          (!filter.state || r.task.status.state === filter.state),
      )
      .sort((a, b) => b.updatedAt - a.updatedAt || (a.task.id < b.task.id ? -1 : 1));
  }

  get size(): number {
    return this.tasks.size;
  }
}
