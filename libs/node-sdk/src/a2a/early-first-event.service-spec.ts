/**
 * ADR 0396: a new task's stream shows its first event once every check has passed and the store
 * surely accepts the task, before the task's first save is stored; a save refused after the first
 * event ends the stream with the refusal (nothing stored). ADR 0401: the handler starts once that
 * event is written and the first save waits for its result or the end of the next turn, so a
 * handler answering at once is saved with it (one save per stream); a slower one leaves the task
 * stored, working, at the end of that turn. Over HTTP
 * (the SSE frames a caller reads), the machine's Redis, one prefix; a second store on that prefix
 * plays another replica.
 */
import { Redis } from 'ioredis';
import { mintA2AToken } from '@cp/auth';
import { financeAgentExample } from '@cp/capabilities';
import { financeBundle, serveTestA2A, testConfig, type TestA2ANode } from '../testing/a2a-test-node';
import { fillOwner as fillOwnerOf } from '../testing/fill-owner';
import { HandlerRegistry, type HandlerResult } from './handler-registry';
import { RedisTaskStore } from './redis-task-store';
import { RedisTaskEvents } from './task-events';
import type { TaskStoreLimits } from './task-store';

const PREFIX = `spec-early-${process.pid}-${Date.now()}:`;
const finance = financeAgentExample();
const partner = finance.callers.partner!;
const partnerToken = mintA2AToken(testConfig, partner.principal, partner.tenant, [...partner.scopes]);
const partnerOwner = JSON.stringify([partner.tenant, partner.principal]);
const ANSWER: HandlerResult = { state: 'completed', artifacts: [{ name: 'invoice', parts: [{ text: 'paid' }] }] };
const bundle = financeBundle();

/** A frame's JSON-RPC body: a result (the task, or an update) or the error that ended the stream. */
interface SseData {
  result: { task: { id: string; status: { state: string } }; statusUpdate?: { status: { state: string } } };
  error: { message: string };
}
const LIMITS: TaskStoreLimits = { maxTaskBytes: 64_000, maxOwnerBytes: 64_000, retentionMs: 60_000 };

describe('a new task’s stream shows its first event while the task is being stored (ADR 0396)', () => {
  const connections: Redis[] = [];
  const nodes: TestA2ANode[] = [];
  const connect = () => {
    const r = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: 2 });
    connections.push(r);
    return r;
  };
  let handled = 0;
  /** Set by a test: the handlers wait for it (a slow handler). */
  let slow: Promise<void> | undefined;

  /** Another replica's save: one task of the owner's, padded so the owner holds its limit less `room` bytes. */
  const fillOwner = (owner: string, tenant: string, room: number) =>
    fillOwnerOf(new RedisTaskStore(connect(), PREFIX, LIMITS), LIMITS.maxOwnerBytes, owner, tenant, room);

  /**
   * A node on the real Redis whose task connection holds every save's reply while `hold` is set
   * (the script has run in Redis; only its answer waits), so a test sees what leaves before it.
   */
  async function node(streamFirstEvent: 'early' | 'stored' = 'early') {
    const taskRedis = connect();
    const evalsha = taskRedis.evalsha.bind(taskRedis) as unknown as (...args: unknown[]) => Promise<unknown>;
    const gate = { hold: false, waiting: [] as (() => void)[], saves: 0 };
    taskRedis.evalsha = async (...args: unknown[]) => {
      gate.saves++;
      const reply = await evalsha(...args);
      if (gate.hold) await new Promise<void>((resolve) => gate.waiting.push(resolve));
      return reply;
    };
    const handlers = new HandlerRegistry();
    for (const m of finance.manifests)
      handlers.register(m.handler, async () => {
        handled++;
        await slow;
        return ANSWER;
      });
    const tasks = new RedisTaskStore(taskRedis, PREFIX, LIMITS);
    const n = await serveTestA2A({
      bundle: () => bundle,
      handlers,
      tasks,
      events: new RedisTaskEvents(connect(), connect(), PREFIX),
      // The gate holds only the saves' replies, not a read's: a stream's late look at the stored task
      // (ADR 0380) would see past them, which a real connection (replies in order) never does.
      limits: { streamFirstEvent, streamRemoteAfterMs: 60_000 },
    });
    nodes.push(n);
    const release = () => {
      gate.hold = false;
      for (const w of gate.waiting.splice(0)) w();
    };
    return { ...n, tasks, gate, release };
  }

  const body = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
  const send = (url: string, token?: string) =>
    fetch(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'a2a-version': '1.0',
        accept: 'text/event-stream',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: body('SendStreamingMessage', {
        message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'Look up invoice INV-20931' }] },
        metadata: { skillId: 'invoice-lookup' },
      }),
    });
  const getTask = async (url: string, id: string, token?: string) =>
    (await (
      await fetch(`${url}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: body('GetTask', { id }),
      })
    ).json()) as { result?: { status: { state: string } }; error?: { code: number; message: string } };

  /** Reads SSE frames as they come: `next()` gives the next whole frame (event name and data). */
  function frames(res: Response) {
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    return async (): Promise<{ event: string; data: SseData } | undefined> => {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const raw = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (raw.startsWith(':')) continue;
          const event = /^event: (.*)$/m.exec(raw)?.[1] ?? 'message';
          const data = JSON.parse(/^data: (.*)$/m.exec(raw)![1]) as SseData;
          return { event, data };
        }
        const { done, value } = await reader.read();
        if (done) return undefined;
        buffer += decoder.decode(value, { stream: true });
      }
    };
  }

  beforeEach(() => {
    handled = 0;
    slow = undefined;
  });
  afterAll(async () => {
    for (const n of nodes) await n.app.close();
    const keys = await connections[0].keys(`${PREFIX}*`);
    if (keys.length > 0) await connections[0].del(...keys);
    for (const c of connections) c.disconnect();
  });

  it('the first event leaves before the first save is stored; a handler answering in that turn is saved with it, once (ADR 0401)', async () => {
    const n = await node('early');
    n.gate.hold = true;
    const res = await send(n.url);
    expect(res.status).toBe(200);
    const next = frames(res);
    const first = await next();
    expect(first?.data.result.task.status.state).toBe('TASK_STATE_SUBMITTED');
    const id = first!.data.result.task.id;
    // The save's reply is held: the handler has answered, its result went with the first save (one
    // save in all), and nothing reaches the stream before that save is stored.
    await new Promise((r) => setTimeout(r, 100));
    expect(handled).toBe(1);
    expect(n.gate.saves).toBe(1);
    n.release();
    const rest: string[] = [];
    for (let f = await next(); f; f = await next()) {
      expect(f.event).toBe('message');
      rest.push(f.data.result.statusUpdate?.status.state ?? 'artifact');
    }
    expect(rest).toEqual(['TASK_STATE_WORKING', 'artifact', 'TASK_STATE_COMPLETED']);
    expect(handled).toBe(1);
    expect(n.gate.saves).toBe(1);
    expect((await getTask(n.url, id)).result?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('a handler that does not answer in that turn finds its task stored, working, at the end of the turn; its result is a second save', async () => {
    const n = await node('early');
    let answer!: () => void;
    slow = new Promise<void>((r) => (answer = r));
    const next = frames(await send(n.url));
    const id = (await next())!.data.result.task.id;
    // Another replica reads it from the store while the handler still runs.
    const other = new RedisTaskStore(connect(), PREFIX, LIMITS);
    const stored = await other.get(id, 'anonymous');
    expect(stored?.task.status.state).toBe('TASK_STATE_WORKING');
    expect(stored?.seq).toBe(2);
    expect(n.gate.saves).toBe(1);
    expect(handled).toBe(1);
    answer();
    const rest: string[] = [];
    for (let f = await next(); f; f = await next()) rest.push(f.data.result.statusUpdate?.status.state ?? 'artifact');
    expect(rest).toEqual(['TASK_STATE_WORKING', 'artifact', 'TASK_STATE_COMPLETED']);
    expect(n.gate.saves).toBe(2);
    expect((await other.get(id, 'anonymous'))?.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('with A2A_STREAM_FIRST_EVENT=stored nothing reaches the caller before the first save returns', async () => {
    const n = await node('stored');
    n.gate.hold = true;
    let answered = false;
    const pending = send(n.url).then((r) => {
      answered = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(n.gate.saves).toBe(1);
    expect(answered).toBe(false);
    n.release();
    const next = frames(await pending);
    expect((await next())?.data.result.task.status.state).toBe('TASK_STATE_SUBMITTED');
    while (await next());
    expect(handled).toBe(1);
  });

  it('a first save refused after the first event ends the stream with that refusal: nothing was stored, the slot came back', async () => {
    const n = await node('early');
    // This node saves one task for the partner: it now knows the owner far below its limit.
    const warm = frames(await send(n.url, partnerToken));
    while (await warm());
    expect(handled).toBe(1);
    // Another replica fills the owner's bytes meanwhile, to 300 bytes short of its limit.
    const before = await fillOwner(partnerOwner, partner.tenant, 300);
    expect(before).toBe(LIMITS.maxOwnerBytes - 300);

    const res = await send(n.url, partnerToken);
    expect(res.status).toBe(200);
    const next = frames(res);
    const first = await next();
    const id = first!.data.result.task.id;
    expect(first!.event).toBe('message');
    const last = await next();
    expect(last?.event).toBe('error');
    expect(last?.data.error.message).toMatch(/your tasks would exceed 64000 stored bytes/);
    expect(JSON.stringify(last?.data)).not.toMatch(/xxxx|redis|lua|stack/i);
    expect(await next()).toBeUndefined();
    // The handler had started (ADR 0401); what it answered was refused with the task.
    expect(handled).toBe(2);
    expect((await getTask(n.url, id, partnerToken)).error?.message).toMatch(/was not found/);
    expect(await new RedisTaskStore(connections[0], PREFIX, LIMITS).bytesOf(partnerOwner)).toBe(before);
    expect(n.service.openStreams).toBe(0);
    // The owner over half its limit is no longer surely accepted: the next refusal is an answer, not an event.
    const refused = await send(n.url, partnerToken);
    expect(refused.headers.get('content-type')).toMatch(/application\/json/);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/would exceed 64000 stored bytes/);
    expect(handled).toBe(2);
  });

  it('an owner this node has not saved for yet is stored first: its refusal is an error answer, never an event', async () => {
    // Fill a fresh owner from "another replica", then call a node that never saved for it.
    const principal = `spec-early-${crypto.randomUUID()}`;
    const token = mintA2AToken(testConfig, principal, partner.tenant, [...partner.scopes]);
    const owner = JSON.stringify([partner.tenant, principal]);
    await fillOwner(owner, partner.tenant, 300);
    const n = await node('early');
    n.gate.hold = true;
    const pending = send(n.url, token);
    // Stored first: the answer waits for the save's reply.
    await new Promise((r) => setTimeout(r, 200));
    expect(n.gate.saves).toBe(1);
    n.release();
    const res = await pending;
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/would exceed 64000 stored bytes/);
    expect(handled).toBe(0);
  });

  it('the store surely accepts only what it can tell: connected, within the task limit, the anonymous pool or an owner it saw below half its limit', async () => {
    const redis = connect();
    const store = new RedisTaskStore(redis, PREFIX, LIMITS);
    const record = (owner: string, text = 'hi') => ({
      owner,
      tenant: 't',
      seq: 1,
      updatedAt: Date.now(),
      task: {
        id: crypto.randomUUID(),
        contextId: 'c',
        status: { state: 'TASK_STATE_SUBMITTED' as const, timestamp: new Date().toISOString() },
        metadata: { text },
      },
    });
    const stranger = JSON.stringify(['t', `p-${crypto.randomUUID()}`]);
    expect(store.surelyAccepts(record('anonymous'))).toBe(true);
    expect(store.surelyAccepts(record('anonymous', 'z'.repeat(64_001)))).toBe(false);
    expect(store.surelyAccepts(record(stranger))).toBe(false);
    await store.save(record(stranger));
    expect(store.surelyAccepts(record(stranger))).toBe(true);
    expect(store.surelyAccepts(record(stranger, 'w'.repeat(33_000)))).toBe(false);
    // The save reuses the bytes sized for a record of the same content, never for another.
    const sized = record(stranger);
    expect(store.surelyAccepts(sized)).toBe(true);
    await store.save({ ...sized, seq: 2 });
    expect(await store.get(sized.task.id, stranger)).toEqual({ ...sized, seq: 2 });
    const again = record(stranger);
    expect(store.surelyAccepts(again)).toBe(true);
    await store.save({ ...again });
    expect(await store.get(again.task.id, stranger)).toEqual(again);
    redis.disconnect();
    await new Promise((r) => setTimeout(r, 50));
    expect(store.surelyAccepts(record('anonymous'))).toBe(false);
  });
});
