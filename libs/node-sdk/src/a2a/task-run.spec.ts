/**
 * TaskRun's grouped saves (ADR 0285): updates made while a save is in flight share the next save;
 * a refused group is replayed so that only the update that broke the limit fails; a task that
 * became terminal meanwhile is never overwritten, and local streams hear that state.
 */
import { InMemoryTaskEvents, type TaskEvent } from './task-events';
import { nowIso, statusUpdate, TaskRun, type Update } from './task-run';
import { InMemoryTaskStore, type PublishOnSave, type SaveOptions, type TaskRecord, type TaskStore } from './task-store';
import type { WireTask } from './wire-types';

const OWNER = 'anonymous';

/** The in-memory store, counting saves. */
class CountingStore implements TaskStore {
  saves = 0;
  /** Each save's unlessTerminal, in order. */
  readonly checks: boolean[] = [];
  constructor(readonly inner: InMemoryTaskStore) {}
  save(record: TaskRecord, publish?: PublishOnSave | readonly PublishOnSave[], options?: SaveOptions) {
    this.saves++;
    this.checks.push(options?.unlessTerminal === true);
    return this.inner.save(record, publish, options);
  }
  get(id: string, owner: string) {
    return this.inner.get(id, owner);
  }
  list(...args: Parameters<TaskStore['list']>) {
    return this.inner.list(...args);
  }
}

const task = (id: string): WireTask => ({
  id,
  contextId: 'ctx',
  status: { state: 'TASK_STATE_SUBMITTED', timestamp: new Date(1000).toISOString() },
  history: [],
});

async function started(id: string, limits = { maxTaskBytes: 4096, maxOwnerBytes: 1_000_000, retentionMs: 60_000 }) {
  const store = new CountingStore(new InMemoryTaskStore(limits));
  const events = new InMemoryTaskEvents();
  const heard: TaskEvent[] = [];
  await events.subscribe(id, (e) => heard.push(e));
  const first: TaskRecord = { task: task(id), owner: OWNER, tenant: 't', updatedAt: 1000, seq: 1 };
  await store.save(first);
  store.saves = 0;
  return { store, events, heard, run: new TaskRun(first, store, events) };
}

const state =
  (s: WireTask['status']['state'], text = ''): Update =>
  (t) => {
    const next: WireTask = { ...t, status: { state: s, timestamp: new Date().toISOString() }, metadata: { text } };
    return { task: next, event: statusUpdate(next) };
  };

describe('TaskRun', () => {
  it('updates made in one turn and while a save is in flight share saves; every event is heard once, in order', async () => {
    const { store, heard, run } = await started('g-1');
    const art = (n: number) => run.artifactUpdate({ artifactId: `a-${n}`, parts: [{ text: `part ${n}` }] }, false, true);
    const done = [run.apply(state('TASK_STATE_WORKING')), run.apply(art(1)), run.apply(art(2))];
    await Promise.all(done);
    // One save for the three updates made in the same turn.
    expect(store.saves).toBe(1);
    await run.applyAll([art(3), state('TASK_STATE_COMPLETED')]);
    expect(store.saves).toBe(2);
    expect(heard.map((e) => e.seq)).toEqual([2, 3, 4, 5, 6]);
    expect(heard.at(-1)?.final).toBe(true);
    const stored = await store.get('g-1', OWNER);
    expect(stored?.seq).toBe(6);
    expect(stored?.task.artifacts?.map((a) => a.artifactId)).toEqual(['a-1', 'a-2', 'a-3']);
    expect(run.current.seq).toBe(6);
  });

  it('a lazy update waits for the turn to end and joins the updates made meanwhile', async () => {
    const { store, heard, run } = await started('g-2');
    const working = run.apply(state('TASK_STATE_WORKING'), {}, true);
    await Promise.resolve();
    const result = run.applyAll([state('TASK_STATE_COMPLETED')]);
    await Promise.all([working, result]);
    expect(store.saves).toBe(1);
    expect(heard.map((e) => e.event)).toMatchObject([
      { statusUpdate: { status: { state: 'TASK_STATE_WORKING' } } },
      { statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } },
    ]);
  });

  it('a refused group is replayed one update at a time: only the oversized update fails, the others are stored', async () => {
    const { heard, run, store } = await started('g-3');
    const small = run.artifactUpdate({ artifactId: 'small', parts: [{ text: 'ok' }] }, false, false);
    const huge = run.artifactUpdate({ artifactId: 'huge', parts: [{ text: 'x'.repeat(5000) }] }, false, false);
    const after = run.artifactUpdate({ artifactId: 'after', parts: [{ text: 'ok too' }] }, false, true);
    const outcomes = await Promise.allSettled([run.apply(small), run.apply(huge), run.apply(after)]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ reason: 'TASK_TOO_LARGE' });
    const stored = await store.get('g-3', OWNER);
    expect(stored?.task.artifacts?.map((a) => a.artifactId)).toEqual(['small', 'after']);
    // Nobody heard of the refused update; the seq has no gap.
    expect(heard.map((e) => e.seq)).toEqual([2, 3]);
    expect(stored?.seq).toBe(3);
  });

  it('updates saved together all or none: a refused result stores none of its artifacts', async () => {
    const { heard, run, store } = await started('g-4');
    const a = run.artifactUpdate({ artifactId: 'a', parts: [{ text: 'ok' }] }, false, false);
    const b = run.artifactUpdate({ artifactId: 'b', parts: [{ text: 'x'.repeat(5000) }] }, false, true);
    await expect(run.applyAll([a, b, state('TASK_STATE_COMPLETED')])).rejects.toMatchObject({ reason: 'TASK_TOO_LARGE' });
    expect((await store.get('g-4', OWNER))?.seq).toBe(1);
    expect(heard).toEqual([]);
    await run.apply(state('TASK_STATE_FAILED'));
    expect((await store.get('g-4', OWNER))?.task.status.state).toBe('TASK_STATE_FAILED');
  });

  it('a task canceled meanwhile (another run, another replica) stays canceled: later updates write nothing, local streams hear the cancel', async () => {
    const { heard, run, store } = await started('g-5');
    await run.apply(state('TASK_STATE_WORKING'));
    // A cancel through another run (as CancelTask on another replica does): its event is not heard here.
    const elsewhere = new TaskRun((await store.get('g-5', OWNER))!, store, new InMemoryTaskEvents());
    await elsewhere.apply(state('TASK_STATE_CANCELED'));
    // The handler's progress and its result: neither overwrites the cancel (before ADR 0285, a
    // progress update after a cancel stored the task as working again).
    await run.updates().progress('still going');
    await run.applyAll([state('TASK_STATE_COMPLETED')]);
    const stored = await store.get('g-5', OWNER);
    expect(stored?.task.status.state).toBe('TASK_STATE_CANCELED');
    expect(stored?.seq).toBe(3);
    expect(run.ended?.task.status.state).toBe('TASK_STATE_CANCELED');
    expect(heard.map((e) => [e.seq, e.final])).toEqual([
      [2, false],
      [3, true],
    ]);
    expect(heard.at(-1)?.event).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_CANCELED' } } });
  });

  it('a kept record field rides on the next update made in the same turn: one save, no event of its own (ADR 0320)', async () => {
    const { heard, run, store } = await started('g-6');
    const link = { taskId: 'up-1', contextId: 'up-ctx' };
    const kept = run.keep({ upstream: link });
    await run.apply(state('TASK_STATE_WORKING'));
    await kept;
    expect(store.saves).toBe(1);
    expect(await store.get('g-6', OWNER)).toMatchObject({ upstream: link, seq: 2, task: { status: { state: 'TASK_STATE_WORKING' } } });
    expect(heard.map((e) => e.seq)).toEqual([2]);
    // Later updates keep it.
    await run.apply(state('TASK_STATE_COMPLETED'));
    expect((await store.get('g-6', OWNER))?.upstream).toEqual(link);
  });

  it('a kept record field with no update in its turn is saved alone: seq and task unchanged, nothing heard', async () => {
    const { heard, run, store } = await started('g-7');
    const before = await store.get('g-7', OWNER);
    await run.keep({ upstream: { taskId: 'up-2', contextId: 'c' } });
    expect(store.saves).toBe(1);
    expect(await store.get('g-7', OWNER)).toEqual({ ...before, upstream: { taskId: 'up-2', contextId: 'c' } });
    expect(heard).toEqual([]);
  });

  it('a kept field is not written over a task canceled meanwhile, and the run learns it ended', async () => {
    const { run, store } = await started('g-8');
    const elsewhere = new TaskRun((await store.get('g-8', OWNER))!, store, new InMemoryTaskEvents());
    await elsewhere.apply(state('TASK_STATE_CANCELED'));
    await run.keep({ upstream: { taskId: 'up-3', contextId: 'c' } });
    const stored = await store.get('g-8', OWNER);
    expect(stored?.task.status.state).toBe('TASK_STATE_CANCELED');
    expect(stored?.upstream).toBeUndefined();
    expect(run.ended?.task.status.state).toBe('TASK_STATE_CANCELED');
  });
});

describe('TaskRun, the terminal check', () => {
  it("a new task's first save skips the check (nothing can be stored under its id yet); every later save makes it", async () => {
    const store = new CountingStore(new InMemoryTaskStore());
    const run = new TaskRun({ task: task('n-1'), owner: OWNER, tenant: 't', updatedAt: 0, seq: 0 }, store, new InMemoryTaskEvents());
    await run.commit(task('n-1'), { task: task('n-1') }, {}, true);
    await run.apply(state('TASK_STATE_WORKING'));
    await run.apply(state('TASK_STATE_COMPLETED'));
    expect(store.checks).toEqual([false, true, true]);
    // A kept field saved alone leaves seq at 0; the task is stored all the same, so it is checked next.
    const kept = new CountingStore(new InMemoryTaskStore());
    const early = new TaskRun({ task: task('n-3'), owner: OWNER, tenant: 't', updatedAt: 0, seq: 0 }, kept, new InMemoryTaskEvents());
    await early.keep({ upstream: { taskId: 'up-1', contextId: 'c' } });
    await early.apply(state('TASK_STATE_WORKING'));
    expect(kept.checks).toEqual([false, true]);
    // A known task (loaded from the store, seq ≥ 1) is checked from its first save on.
    const { store: known, run: loaded } = await started('n-2');
    known.checks.length = 0;
    await loaded.apply(state('TASK_STATE_WORKING'));
    expect(known.checks).toEqual([true]);
  });
});

describe("TaskRun, a stream's first save held for its handler's first turn (ADR 0401)", () => {
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  const fresh = (id: string) => {
    const store = new CountingStore(new InMemoryTaskStore());
    const events = new InMemoryTaskEvents();
    const heard: TaskEvent[] = [];
    events.listen(id, (e) => heard.push(e));
    const run = new TaskRun({ task: task(id), owner: OWNER, tenant: 't', updatedAt: 0, seq: 0 }, store, events);
    return { store, heard, run };
  };

  it('waits for its release; lazy updates wait with it; the result sends them all in one save', async () => {
    const { store, heard, run } = fresh('h-1');
    const first = run.commitHeld(task('h-1'), { task: task('h-1') }, {}, 'turn');
    void run.apply(state('TASK_STATE_WORKING'), {}, true);
    for (let i = 0; i < 3; i++) await turn();
    expect(store.saves).toBe(0);
    run.releaseHoldAfterTurn();
    await run.apply(state('TASK_STATE_COMPLETED'));
    await first;
    expect(store.saves).toBe(1);
    expect(heard.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect((await store.get('h-1', OWNER))?.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('released and not answered, it is saved at the end of the turn after the release, with the lazy updates; the result follows', async () => {
    const { store, run } = fresh('h-2');
    const first = run.commitHeld(task('h-2'), { task: task('h-2') }, {}, 'turn');
    void run.apply(state('TASK_STATE_WORKING'), {}, true);
    run.releaseHoldAfterTurn();
    expect(store.saves).toBe(0);
    await first;
    expect(store.saves).toBe(1);
    expect((await store.get('h-2', OWNER))?.task.status.state).toBe('TASK_STATE_WORKING');
    await run.apply(state('TASK_STATE_COMPLETED'));
    expect(store.saves).toBe(2);
    // A release after the save went is nothing.
    run.releaseHoldAfterTurn();
    await turn();
    expect(store.saves).toBe(2);
  });
});

describe('nowIso', () => {
  it('is the clock as ISO 8601, made once per millisecond and anew when the clock moves (either way)', () => {
    const now = jest.spyOn(Date, 'now');
    try {
      now.mockReturnValue(1_800_000_000_123);
      const first = nowIso();
      expect(first).toBe('2027-01-15T08:00:00.123Z');
      expect(nowIso()).toBe(first);
      now.mockReturnValue(1_800_000_000_124);
      expect(nowIso()).toBe('2027-01-15T08:00:00.124Z');
      // A clock set back (NTP) is followed too, never a stale later time.
      now.mockReturnValue(1_700_000_000_000);
      expect(nowIso()).toBe(new Date(1_700_000_000_000).toISOString());
    } finally {
      now.mockRestore();
    }
  });
});
