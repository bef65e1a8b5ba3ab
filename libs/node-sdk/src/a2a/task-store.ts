/**
 * Where A2A tasks live: each bound to the capability that handles it and to the owner that
 * created it (another owner's task id answers TaskNotFound, exactly like an unknown id). Bounded
 * by bytes per task and per owner, and by a retention after the last update. The Redis store
 * (redis-task-store.ts) is what nodes use; the in-memory one here is for unit tests.
 */
import { A2AError, A2AErrorName } from './a2a-errors';
import { TERMINAL_STATES, type WireTask } from './wire-types';

export interface TaskRecord {
  task: WireTask;
  /** The capability continuing messages go to; undefined while the router awaits a choice. */
  capabilityId?: string;
  owner: string;
  tenant: string;
  /** Status time in ms: the sort key of ListTasks and of its cursor. */
  updatedAt: number;
  /** Bumped on every save; stream subscribers drop events their snapshot already holds. */
  seq: number;
  /**
   * A gateway capability's upstream task (ADR 0320): stored with the task, never in it, so a
   * continuation or a cancel on any replica reaches the same upstream task without a key of its own.
   */
  upstream?: { taskId: string; contextId: string };
}

/**
 * Every anonymous caller's tasks share this owner: reachable by id only, never listed (ADR 80).
 * Its byte budget is a pool: full, it evicts its oldest tasks instead of refusing (ADR 0201).
 */
export const ANONYMOUS_OWNER = 'anonymous';

/**
 * Unambiguous: a JSON array cannot be confused with another pair (tenant `acme/x` + subject `y`
 * is `["acme/x","y"]`, tenant `acme` + subject `x/y` is `["acme","x/y"]`), and never equals the
 * anonymous owner.
 */
export const ownerKey = (caller: { principal: string; tenant: string } | null) =>
  caller === null ? ANONYMOUS_OWNER : JSON.stringify([caller.tenant, caller.principal]);

export interface TaskCursor {
  at: number;
  id: string;
}

export interface TaskQuery {
  contextId?: string;
  state?: string;
  /** Only tasks whose status time is after this (ms). */
  after?: number;
  pageSize: number;
  /** Start after this position (newest first: smaller time, then smaller id). */
  cursor?: TaskCursor;
}

export interface TaskPage {
  records: TaskRecord[];
  /** Position of the last record when more follow. */
  next?: TaskCursor;
  total: number;
}

export interface TaskStoreLimits {
  /** Stored bytes of one task. */
  maxTaskBytes: number;
  /** Stored bytes of all of one owner's tasks (and queued push bodies); the anonymous pool evicts past it. */
  maxOwnerBytes: number;
  /** A task is forgotten this long after its last update. */
  retentionMs: number;
}

export const DEFAULT_TASK_LIMITS: TaskStoreLimits = { maxTaskBytes: 2_097_152, maxOwnerBytes: 33_554_432, retentionMs: 86_400_000 };

/** A Redis PUBLISH a store that `publishesOnSave` sends in the same step as the save (ADR 82). */
export interface PublishOnSave {
  channel: string;
  message: string;
}

export interface SaveOptions {
  /**
   * Write nothing when the stored task is already terminal (canceled from any replica meanwhile):
   * save() then resolves with that stored record. Checked in the same step as the write (ADR 0285).
   */
  unlessTerminal?: boolean;
}

/**
 * The stored form: the task's state first, so a store can read it from the first bytes without
 * decoding the record or trusting text a caller wrote (ADR 0285); otherwise the record's JSON.
 */
export function serializeRecord(record: TaskRecord): string {
  return `{"state":${JSON.stringify(record.task.status.state)},${JSON.stringify(record).slice(1)}`;
}

/** The record from its stored form (with or without the leading state). */
export function parseRecord(json: string): TaskRecord {
  const { state: _state, ...record } = JSON.parse(json) as TaskRecord & { state?: string };
  return record;
}

export interface TaskStore {
  /** The task if it exists AND belongs to this owner. */
  get(id: string, owner: string): Promise<TaskRecord | undefined>;
  /**
   * Refuses (PayloadTooLarge, nothing written) past the per-task or per-owner byte limit; the
   * anonymous pool evicts its oldest tasks first and refuses only what cannot fit at all. A store
   * with `publishesOnSave` also publishes `publish` (one message or several, in order) atomically
   * with a successful save. Resolves undefined when written, or with the stored terminal record
   * when `unlessTerminal` kept it.
   */
  save(record: TaskRecord, publish?: PublishOnSave | readonly PublishOnSave[], options?: SaveOptions): Promise<TaskRecord | undefined>;
  /** true when save() honours its `publish` argument (the Redis store). */
  readonly publishesOnSave?: boolean;
  /**
   * True when the store can tell, without asking anyone, that it will accept this NEW record: it
   * is connected, the record is within the task limit, and its owner is the anonymous pool (which
   * makes room instead of refusing, ADR 0201) or stood, at this node's last save for it, below
   * half its byte limit. Only then may a stream show a new task before its first save returns
   * (ADR 0396); false is no refusal, the save simply comes first.
   */
  surelyAccepts?(record: TaskRecord): boolean;
  /**
   * Newest first (status time, then id), filtered, one page after the cursor. The anonymous pool is
   * never listed (ADR 80) and keeps no index (ADR 0399): its page is always empty.
   */
  list(owner: string, query: TaskQuery): Promise<TaskPage>;
}

export const taskTooLarge = (bytes: number, limit: number) =>
  new A2AError(
    A2AErrorName.PayloadTooLarge,
    `the task would hold ${bytes} bytes; a task may hold at most ${limit}`,
    { limit: String(limit) },
    'TASK_TOO_LARGE',
  );

export const ownerQuotaExceeded = (limit: number) =>
  new A2AError(
    A2AErrorName.PayloadTooLarge,
    `your tasks would exceed ${limit} stored bytes; wait for older tasks to expire`,
    { limit: String(limit) },
    'OWNER_QUOTA_EXCEEDED',
  );

export const recordBytes = (json: string) => Buffer.byteLength(json, 'utf8');

/**
 * Both stores' answer to surelyAccepts(): `ownerBytes` is what the owner held at the store's last
 * look (undefined: never seen); half the limit leaves room for what other replicas saved since.
 */
export function surelyFits(
  limits: TaskStoreLimits,
  record: TaskRecord,
  ownerBytes: number | undefined,
  bytes = recordBytes(serializeRecord(record)),
): boolean {
  if (bytes > limits.maxTaskBytes || bytes > limits.maxOwnerBytes) return false;
  if (record.owner === ANONYMOUS_OWNER) return true;
  return ownerBytes !== undefined && ownerBytes + bytes <= limits.maxOwnerBytes / 2;
}

/** Sort order shared by both stores: newest first, then by id (descending). */
export function before(a: TaskCursor, b: TaskCursor): boolean {
  return a.at > b.at || (a.at === b.at && a.id > b.id);
}

export function matches(r: TaskRecord, q: TaskQuery): boolean {
  return (
    (q.contextId === undefined || r.task.contextId === q.contextId) &&
    (q.state === undefined || r.task.status.state === q.state) &&
    (q.after === undefined || r.updatedAt > q.after)
  );
}

/** One page of already sorted, filtered records. */
export function pageOf(sorted: TaskRecord[], q: TaskQuery): TaskPage {
  const start = q.cursor ? sorted.findIndex((r) => before(q.cursor!, { at: r.updatedAt, id: r.task.id })) : 0;
  const from = start < 0 ? sorted.length : start;
  const records = sorted.slice(from, from + q.pageSize);
  const last = records.at(-1);
  const more = from + records.length < sorted.length;
  return { records, next: more && last ? { at: last.updatedAt, id: last.task.id } : undefined, total: sorted.length };
}

export class InMemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, { record: string; bytes: number; owner: string; at: number; created: number }>();
  private readonly ownerBytes = new Map<string, number>();

  constructor(
    private readonly limits: TaskStoreLimits = DEFAULT_TASK_LIMITS,
    private readonly clock: () => number = Date.now,
  ) {}

  async save(record: TaskRecord, _publish?: unknown, options?: SaveOptions): Promise<TaskRecord | undefined> {
    this.expire();
    const stored = this.tasks.get(record.task.id);
    if (options?.unlessTerminal && stored) {
      const known = parseRecord(stored.record);
      if (TERMINAL_STATES.has(known.task.status.state)) return known;
    }
    const json = serializeRecord(record);
    const bytes = recordBytes(json);
    if (bytes > this.limits.maxTaskBytes) throw taskTooLarge(bytes, this.limits.maxTaskBytes);
    if (bytes > this.limits.maxOwnerBytes) throw ownerQuotaExceeded(this.limits.maxOwnerBytes);
    const old = this.tasks.get(record.task.id);
    if (record.owner === ANONYMOUS_OWNER) this.evictFor(record.task.id, bytes - (old?.bytes ?? 0));
    const used = (this.ownerBytes.get(record.owner) ?? 0) - (old?.bytes ?? 0) + bytes;
    if (used > this.limits.maxOwnerBytes) throw ownerQuotaExceeded(this.limits.maxOwnerBytes);
    this.tasks.delete(record.task.id);
    this.tasks.set(record.task.id, { record: json, bytes, owner: record.owner, at: this.clock(), created: old?.created ?? this.clock() });
    this.ownerBytes.set(record.owner, used);
    return undefined;
  }

  surelyAccepts(record: TaskRecord): boolean {
    return surelyFits(this.limits, record, this.ownerBytes.get(record.owner));
  }

  async get(id: string, owner: string): Promise<TaskRecord | undefined> {
    this.expire();
    const r = this.tasks.get(id);
    return r && r.owner === owner ? parseRecord(r.record) : undefined;
  }

  async list(owner: string, query: TaskQuery): Promise<TaskPage> {
    if (owner === ANONYMOUS_OWNER) return { records: [], total: 0 };
    this.expire();
    const mine = [...this.tasks.values()]
      .filter((r) => r.owner === owner)
      .map((r) => parseRecord(r.record))
      .filter((r) => matches(r, query))
      .sort((a, b) => (before({ at: a.updatedAt, id: a.task.id }, { at: b.updatedAt, id: b.task.id }) ? -1 : 1));
    return pageOf(mine, query);
  }

  /** The anonymous pool makes room for `more` bytes by dropping its oldest tasks by creation (ADR 0201). */
  private evictFor(keep: string, more: number): void {
    const pool = [...this.tasks.entries()]
      .filter(([id, r]) => r.owner === ANONYMOUS_OWNER && id !== keep)
      .sort((a, b) => a[1].created - b[1].created);
    for (const [id, r] of pool) {
      if ((this.ownerBytes.get(ANONYMOUS_OWNER) ?? 0) + more <= this.limits.maxOwnerBytes) return;
      this.tasks.delete(id);
      this.ownerBytes.set(ANONYMOUS_OWNER, (this.ownerBytes.get(ANONYMOUS_OWNER) ?? 0) - r.bytes);
    }
  }

  /** Stored bytes of one owner (tests read it). */
  bytesOf(owner: string): number {
    return this.ownerBytes.get(owner) ?? 0;
  }

  get size(): number {
    return this.tasks.size;
  }

  /** Insertion order is save order, so expired entries are at the front. */
  private expire(): void {
    const oldest = this.clock() - this.limits.retentionMs;
    for (const [id, r] of this.tasks) {
      if (r.at > oldest) break;
      this.tasks.delete(id);
      this.ownerBytes.set(r.owner, (this.ownerBytes.get(r.owner) ?? 0) - r.bytes);
    }
  }
}
