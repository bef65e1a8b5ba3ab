/**
 * The Redis task store and event bus against the machine's Redis, as two replicas would use
 * them: separate connections, one key prefix.
 */
import { Redis } from 'ioredis';
import { RedisTaskStore } from './redis-task-store';
import { saveTask } from './send/prepare-steps';
import { RedisTaskEvents, type TaskEvent } from './task-events';
import { ANONYMOUS_OWNER, ownerKey, type TaskRecord } from './task-store';

const PREFIX = `spec-rts-${process.pid}-${Date.now()}:`;
const limits = { maxTaskBytes: 4096, maxOwnerBytes: 10_000, retentionMs: 60_000 };

const record = (id: string, owner: string, at: number, extra: Partial<TaskRecord['task']> = {}): TaskRecord => ({
  task: { id, contextId: 'ctx', status: { state: 'TASK_STATE_COMPLETED', timestamp: new Date(at).toISOString() }, history: [], ...extra },
  owner,
  tenant: 't',
  updatedAt: at,
  seq: 1,
  capabilityId: 'invoice-lookup',
});

describe('RedisTaskStore and RedisTaskEvents', () => {
  const connections: Redis[] = [];
  const connect = () => {
    const r = new Redis('redis://127.0.0.1:6379', { lazyConnect: false, maxRetriesPerRequest: 2 });
    connections.push(r);
    return r;
  };
  let a: RedisTaskStore;
  let b: RedisTaskStore;
  beforeAll(() => {
    a = new RedisTaskStore(connect(), PREFIX, limits);
    b = new RedisTaskStore(connect(), PREFIX, limits);
  });
  afterAll(async () => {
    const keys = await connections[0].keys(`${PREFIX}*`);
    if (keys.length > 0) await connections[0].del(...keys);
    for (const c of connections) c.disconnect();
  });

  it('a task saved through one replica is read, listed and updated through the other; other owners get nothing', async () => {
    const alice = ownerKey({ tenant: 'acme', principal: 'alice' });
    await a.save(record('t-1', alice, 1000));
    expect((await b.get('t-1', alice))?.task.id).toBe('t-1');
    expect(await b.get('t-1', ownerKey({ tenant: 'acme', principal: 'bob' }))).toBeUndefined();
    expect(await b.get('t-1', ANONYMOUS_OWNER)).toBeUndefined();
    await b.save({ ...record('t-1', alice, 2000), seq: 2 });
    expect((await a.get('t-1', alice))?.seq).toBe(2);
    expect((await a.list(alice, { pageSize: 10 })).records.map((r) => r.updatedAt)).toEqual([2000]);
  });

  it('owner keys that would collide as "tenant/subject" strings stay apart', async () => {
    const one = ownerKey({ tenant: 'acme/x', principal: 'y' });
    const two = ownerKey({ tenant: 'acme', principal: 'x/y' });
    expect(one).not.toBe(two);
    await a.save(record('t-collide', one, 1000));
    expect(await b.get('t-collide', two)).toBeUndefined();
    expect((await b.list(two, { pageSize: 10 })).total).toBe(0);
  });

  it('pages newest first by cursor, filters by time, state and context', async () => {
    const owner = ownerKey({ tenant: 'acme', principal: 'pager' });
    for (const [id, at] of [
      ['p-a', 100],
      ['p-b', 200],
      ['p-c', 200],
      ['p-d', 300],
    ] as const)
      await a.save(record(id, owner, at));
    const first = await b.list(owner, { pageSize: 2 });
    expect(first.records.map((r) => r.task.id)).toEqual(['p-d', 'p-c']);
    expect(first.total).toBe(4);
    await a.save(record('p-new', owner, 400));
    const second = await b.list(owner, { pageSize: 2, cursor: first.next });
    expect(second.records.map((r) => r.task.id)).toEqual(['p-b', 'p-a']);
    expect(second.next).toBeUndefined();
    expect((await b.list(owner, { pageSize: 10, after: 200 })).records.map((r) => r.task.id)).toEqual(['p-new', 'p-d']);
    expect((await b.list(owner, { pageSize: 10, state: 'TASK_STATE_WORKING' })).total).toBe(0);
    expect((await b.list(owner, { pageSize: 10, contextId: 'other' })).total).toBe(0);
  });

  it('refuses a task over the per-task limit and an owner over its byte budget, writing nothing', async () => {
    const owner = ownerKey({ tenant: 'acme', principal: 'big' });
    const huge = record('too-big', owner, 1, { metadata: { blob: 'x'.repeat(5000) } });
    await expect(a.save(huge)).rejects.toMatchObject({ reason: 'TASK_TOO_LARGE' });
    expect(await b.get('too-big', owner)).toBeUndefined();
    const chunk = (id: string) => record(id, owner, 5, { metadata: { blob: 'y'.repeat(3000) } });
    await a.save(chunk('q-1'));
    await b.save(chunk('q-2'));
    await a.save(chunk('q-3'));
    await expect(b.save(chunk('q-4'))).rejects.toMatchObject({ reason: 'OWNER_QUOTA_EXCEEDED' });
    expect(await a.get('q-4', owner)).toBeUndefined();
    expect(await a.bytesOf(owner)).toBeLessThanOrEqual(limits.maxOwnerBytes);
    // Re-saving a task replaces its bytes instead of adding to them.
    await a.save({ ...chunk('q-3'), seq: 2 });
  });

  it('forgets tasks after the retention, and their bytes no longer count against the owner', async () => {
    const short = new RedisTaskStore(connect(), `${PREFIX}short:`, { ...limits, retentionMs: 150 });
    const owner = ownerKey({ tenant: 'acme', principal: 'brief' });
    const chunk = (id: string) => record(id, owner, 5, { metadata: { blob: 'z'.repeat(3000) } });
    for (const id of ['e-1', 'e-2', 'e-3']) await short.save(chunk(id));
    await expect(short.save(chunk('e-4'))).rejects.toMatchObject({ reason: 'OWNER_QUOTA_EXCEEDED' });
    await new Promise((r) => setTimeout(r, 250));
    expect(await short.get('e-1', owner)).toBeUndefined();
    await short.save(chunk('e-5'));
    expect((await short.list(owner, { pageSize: 10 })).records.map((r) => r.task.id)).toEqual(['e-5']);
  });

  it('the anonymous pool keeps creation order for tasks created in the same millisecond (ids that sort the other way)', async () => {
    const pool = new RedisTaskStore(connect(), `${PREFIX}tie:`, limits);
    const chunk = (id: string) => record(id, ANONYMOUS_OWNER, 5, { metadata: { blob: 'a'.repeat(3000) } });
    // One clock reading for every save: what a busy node sees when tasks arrive within one millisecond.
    const now = jest.spyOn(Date, 'now').mockReturnValue(1_800_000_000_000);
    try {
      // "t-10" and "t-11" sort before "t-8" as strings: creation order must still decide.
      for (let i = 0; i < 12; i++) await pool.save(chunk(`t-${i}`));
    } finally {
      now.mockRestore();
    }
    for (let i = 0; i < 9; i++) expect(await pool.get(`t-${i}`, ANONYMOUS_OWNER)).toBeUndefined();
    for (let i = 9; i < 12; i++) expect((await pool.get(`t-${i}`, ANONYMOUS_OWNER))?.task.id).toBe(`t-${i}`);
  });

  it('the anonymous pool evicts its oldest tasks by creation to make room; an evicted id answers like an expired one', async () => {
    const pool = new RedisTaskStore(connect(), `${PREFIX}pool:`, limits);
    const alice = ownerKey({ tenant: 'acme', principal: 'alice' });
    const chunk = (id: string, owner = ANONYMOUS_OWNER) => record(id, owner, 5, { metadata: { blob: 'a'.repeat(3000) } });
    for (const id of ['a-0', 'a-1', 'a-2']) await pool.save(chunk(id));
    // An update does not make a task younger: creation order decides.
    await pool.save({ ...chunk('a-0'), seq: 2 });
    for (let i = 3; i < 12; i++) await pool.save(chunk(`a-${i}`));
    expect(await pool.bytesOf(ANONYMOUS_OWNER)).toBeLessThanOrEqual(limits.maxOwnerBytes);
    for (let i = 0; i < 9; i++) expect(await pool.get(`a-${i}`, ANONYMOUS_OWNER)).toBeUndefined();
    for (let i = 9; i < 12; i++) expect((await pool.get(`a-${i}`, ANONYMOUS_OWNER))?.task.id).toBe(`a-${i}`);
    // A task too large for the pool on its own is still refused, and evicts nothing to find out.
    const big = record('a-big', ANONYMOUS_OWNER, 5, { metadata: { blob: 'b'.repeat(3300) } });
    await expect(new RedisTaskStore(connect(), `${PREFIX}pool:`, { ...limits, maxOwnerBytes: 3300 }).save(big)).rejects.toMatchObject({
      reason: 'OWNER_QUOTA_EXCEEDED',
    });
    expect((await pool.get('a-11', ANONYMOUS_OWNER))?.task.id).toBe('a-11');
    // Named owners are never evicted: past their budget they are refused, as before.
    for (const id of ['n-1', 'n-2', 'n-3']) await pool.save(chunk(id, alice));
    await expect(pool.save(chunk('n-4', alice))).rejects.toMatchObject({ reason: 'OWNER_QUOTA_EXCEEDED' });
    expect((await pool.get('n-1', alice))?.task.id).toBe('n-1');
  });

  it('a task evicted between two saves and saved again is evictable again; the anonymous pool keeps no ListTasks index', async () => {
    const prefix = `${PREFIX}again:`;
    const pool = new RedisTaskStore(connect(), prefix, limits);
    const redis = connections[0];
    const chunk = (id: string) => record(id, ANONYMOUS_OWNER, 5, { metadata: { blob: 'c'.repeat(3000) } });
    await pool.save(chunk('r-0'));
    // Three younger tasks evict r-0 while it is still running (its next save comes later).
    for (const id of ['r-1', 'r-2', 'r-3']) await pool.save(chunk(id));
    expect(await pool.get('r-0', ANONYMOUS_OWNER)).toBeUndefined();
    // Its next save writes it anew, as the youngest: it must come back into the eviction order,
    // or its bytes would count against the pool with no way to evict them.
    await pool.save({ ...chunk('r-0'), seq: 2 });
    expect((await pool.get('r-0', ANONYMOUS_OWNER))?.seq).toBe(2);
    for (const id of ['r-4', 'r-5', 'r-6']) await pool.save(chunk(id));
    expect(await pool.get('r-0', ANONYMOUS_OWNER)).toBeUndefined();
    expect(await pool.bytesOf(ANONYMOUS_OWNER)).toBeLessThanOrEqual(limits.maxOwnerBytes);
    // Every stored task has exactly one size and one creation entry, and nothing is listed.
    const [sizes, created, index] = await Promise.all(
      ['sizes', 'created', 'index'].map((k) => redis.keys(`${prefix}a2a:*:${k}`).then((ks) => (ks[0] ? ks[0] : ''))),
    );
    expect((await redis.hkeys(sizes)).sort()).toEqual(['r-4', 'r-5', 'r-6']);
    expect((await redis.zrange(created, '0', '-1')).sort()).toEqual(['r-4', 'r-5', 'r-6']);
    expect(index).toBe('');
    expect((await pool.list(ANONYMOUS_OWNER, { pageSize: 10 })).total).toBe(0);
  });

  it('events published on one replica reach listeners on another, in order; unsubscribing leaves no channel behind', async () => {
    const one = new RedisTaskEvents(connect(), connect(), PREFIX);
    const two = new RedisTaskEvents(connect(), connect(), PREFIX);
    const got: TaskEvent[] = [];
    const off = await two.subscribe('t-ev', (e) => got.push(e));
    const offToo = await two.subscribe('t-ev', () => undefined);
    expect(two.listenerCount).toBe(2);
    for (let seq = 1; seq <= 20; seq++) {
      await one.publish('t-ev', {
        seq,
        final: seq === 20,
        event: { statusUpdate: { taskId: 't-ev', contextId: 'c', status: { state: 'TASK_STATE_WORKING', timestamp: 'x' } } },
      });
    }
    const deadline = Date.now() + 3000;
    while (got.length < 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(got.map((e) => e.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    await off();
    await offToo();
    expect(two.listenerCount).toBe(0);
    const [, subscribers] = (await connections[0].pubsub('NUMSUB', `${PREFIX}a2a:task-events:t-ev`)) as [string, number];
    expect(subscribers).toBe(0);
  });

  const working = (taskId: string, seq: number): TaskEvent => ({
    seq,
    final: false,
    event: { statusUpdate: { taskId, contextId: 'c', status: { state: 'TASK_STATE_WORKING', timestamp: 'x' } } },
  });
  const settle = () => new Promise((r) => setTimeout(r, 150));

  it("a new task's first save is heard by this node's listeners only, never PUBLISHed; its next saves are (ADR 0379)", async () => {
    const one = new RedisTaskEvents(connect(), connect(), PREFIX);
    const two = new RedisTaskEvents(connect(), connect(), PREFIX);
    const here: TaskEvent[] = [];
    const there: TaskEvent[] = [];
    const offHere = await one.subscribe('u-1', (e) => here.push(e));
    // Even a replica that somehow listened on the new id before it existed hears nothing of its creation.
    const offThere = await two.subscribe('u-1', (e) => there.push(e));
    const owner = ownerKey({ tenant: 'acme', principal: 'new' });
    const submitted = { status: { state: 'TASK_STATE_SUBMITTED' as const, timestamp: new Date(20).toISOString() } };
    const created = await saveTask(a, one, { ...record('u-1', owner, 20, submitted), seq: 0 }, undefined);
    expect(created.seq).toBe(1);
    const next = {
      ...created,
      task: { ...created.task, status: { state: 'TASK_STATE_WORKING' as const, timestamp: new Date(21).toISOString() } },
    };
    await saveTask(a, one, next, created);
    await settle();
    expect(here.map((e) => [e.seq, Object.keys(e.event)[0]])).toEqual([
      [1, 'task'],
      [2, 'statusUpdate'],
    ]);
    expect(there.map((e) => e.seq)).toEqual([2]);
    await offHere();
    await offThere();
  });

  it('saving with an event publishes it in the same step to other replicas, once, and locally once; a refused save publishes nothing', async () => {
    const one = new RedisTaskEvents(connect(), connect(), PREFIX);
    const two = new RedisTaskEvents(connect(), connect(), PREFIX);
    const here: TaskEvent[] = [];
    const there: TaskEvent[] = [];
    const offHere = await one.subscribe('p-1', (e) => here.push(e));
    const offThere = await two.subscribe('p-1', (e) => there.push(e));
    const owner = ownerKey({ tenant: 'acme', principal: 'pub' });
    const ok = one.outbound('p-1', working('p-1', 1));
    await a.save(record('p-1', owner, 10), ok);
    ok.local();
    const big = one.outbound('p-1', working('p-1', 2));
    await expect(a.save({ ...record('p-1', owner, 11, { metadata: { blob: 'x'.repeat(5000) } }), seq: 2 }, big)).rejects.toMatchObject({
      reason: 'TASK_TOO_LARGE',
    });
    await settle();
    // The replica's copy comes through Redis; this bus's own copy is dropped (it was delivered locally).
    expect(there.map((e) => e.seq)).toEqual([1]);
    expect(here.map((e) => e.seq)).toEqual([1]);
    expect(there[0]).not.toHaveProperty('origin');
    expect((await b.get('p-1', owner))?.seq).toBe(1);
    await offHere();
    await offThere();
  });

  it('publish() on a bus reaches its own listeners exactly once and other replicas exactly once', async () => {
    const one = new RedisTaskEvents(connect(), connect(), PREFIX);
    const two = new RedisTaskEvents(connect(), connect(), PREFIX);
    const here: number[] = [];
    const there: number[] = [];
    const offHere = await one.subscribe('p-2', (e) => here.push(e.seq));
    const offThere = await two.subscribe('p-2', (e) => there.push(e.seq));
    for (let seq = 1; seq <= 5; seq++) await one.publish('p-2', working('p-2', seq));
    await settle();
    expect(here).toEqual([1, 2, 3, 4, 5]);
    expect(there).toEqual([1, 2, 3, 4, 5]);
    await offHere();
    await offThere();
  });

  it('several events of one task go out with one save, in order; the other replica hears each once (ADR 0285)', async () => {
    const one = new RedisTaskEvents(connect(), connect(), PREFIX);
    const two = new RedisTaskEvents(connect(), connect(), PREFIX);
    const there: number[] = [];
    const off = await two.subscribe('p-3', (e) => there.push(e.seq));
    const owner = ownerKey({ tenant: 'acme', principal: 'batch' });
    const outs = [2, 3, 4].map((seq) => one.outbound('p-3', working('p-3', seq)));
    expect(await a.save({ ...record('p-3', owner, 10), seq: 4 }, outs)).toBeUndefined();
    await settle();
    expect(there).toEqual([2, 3, 4]);
    expect((await b.get('p-3', owner))?.seq).toBe(4);
    await off();
  });

  describe('unlessTerminal: a save never overwrites a task finished meanwhile (ADR 0285)', () => {
    const owner = ownerKey({ tenant: 'acme', principal: 'guard' });
    const working = (id: string, seq: number, extra: Partial<TaskRecord['task']> = {}): TaskRecord => ({
      ...record(id, owner, 1000 + seq, extra),
      task: {
        ...record(id, owner, 1000 + seq, extra).task,
        status: { state: 'TASK_STATE_WORKING', timestamp: new Date(1000 + seq).toISOString() },
      },
      seq,
    });

    it('answers the stored terminal record, writes nothing and publishes nothing', async () => {
      const one = new RedisTaskEvents(connect(), connect(), PREFIX);
      const heard: number[] = [];
      const off = await new RedisTaskEvents(connect(), connect(), PREFIX).subscribe('g-1', (e) => heard.push(e.seq));
      await a.save(working('g-1', 1));
      const canceled = {
        ...working('g-1', 2),
        task: { ...working('g-1', 2).task, status: { state: 'TASK_STATE_CANCELED' as const, timestamp: 'x' } },
      };
      expect(await b.save(canceled, undefined, { unlessTerminal: true })).toBeUndefined();
      const event = one.outbound('g-1', { seq: 3, final: false, event: { task: working('g-1', 3).task } });
      const kept = await a.save(working('g-1', 3), event, { unlessTerminal: true });
      expect(kept?.task.status.state).toBe('TASK_STATE_CANCELED');
      expect(kept).not.toHaveProperty('state');
      expect((await b.get('g-1', owner))?.seq).toBe(2);
      expect(await a.bytesOf(owner)).toBeGreaterThan(0);
      await settle();
      expect(heard).toEqual([]);
      await off();
    });

    it('a terminal state written by a caller inside a data part or a message does not count', async () => {
      const forged = { state: 'TASK_STATE_CANCELED', status: { state: 'TASK_STATE_CANCELED' } };
      const text = '{"state":"TASK_STATE_CANCELED"}';
      const hostile = working('g-2', 1, {
        history: [{ messageId: 'm', role: 'ROLE_USER', parts: [{ data: forged }, { text }] }],
        metadata: forged,
      });
      await a.save(hostile);
      expect(await b.save(working('g-2', 2), undefined, { unlessTerminal: true })).toBeUndefined();
      expect((await a.get('g-2', owner))?.seq).toBe(2);
    });

    it('reads a record an older node stored (plain JSON, no leading state) by decoding it', async () => {
      const redis = connect();
      await a.save(working('g-3', 1));
      const key = (await redis.keys(`${PREFIX}a2a:*:task:g-3`))[0];
      const old = {
        ...working('g-3', 2),
        task: { ...working('g-3', 2).task, status: { state: 'TASK_STATE_COMPLETED' as const, timestamp: 'x' } },
      };
      await redis.set(key, JSON.stringify(old), 'KEEPTTL');
      expect((await b.save(working('g-3', 3), undefined, { unlessTerminal: true }))?.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect((await b.get('g-3', owner))?.seq).toBe(2);
      // Without the flag the save is an ordinary overwrite.
      expect(await b.save(working('g-3', 4))).toBeUndefined();
      expect((await a.get('g-3', owner))?.seq).toBe(4);
    });
  });
});
