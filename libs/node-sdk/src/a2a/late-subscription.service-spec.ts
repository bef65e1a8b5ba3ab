/**
 * ADR 0380: a stream on a task its node has just created subscribes to other replicas' events
 * only once it has lived A2A_STREAM_REMOTE_AFTER_MS. Two replicas of the A2A layer (each its own
 * task store connection and subscriber), one Redis prefix, the machine's Redis.
 */
import { Redis } from 'ioredis';
import { financeAgentExample } from '@cp/capabilities';
import { financeBundle, testA2AService } from '../testing/a2a-test-node';
import type { A2AService } from './a2a-service';
import { HandlerRegistry, type HandlerResult } from './handler-registry';
import { RedisTaskStore } from './redis-task-store';
import { RedisTaskEvents, type StreamEvent } from './task-events';
import type { TaskStream } from './task-stream';

const PREFIX = `spec-late-${process.pid}-${Date.now()}:`;
const finance = financeAgentExample();
const bundle = financeBundle();
const ANSWER: HandlerResult = { state: 'completed', artifacts: [{ name: 'invoice', parts: [{ text: 'paid' }] }] };

describe('a new task’s stream subscribes to other replicas late, or never (ADR 0380)', () => {
  const connections: Redis[] = [];
  const connect = () => {
    const r = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: 2 });
    connections.push(r);
    return r;
  };
  /** The handler of every replica: answers with `next()` (at once unless a test replaces it). */
  let next: () => Promise<HandlerResult> = async () => ANSWER;

  function replica(streamRemoteAfterMs: number) {
    const subscriber = connect();
    const subscribes: string[] = [];
    const subscribe = subscriber.subscribe.bind(subscriber);
    // Counts the real client's SUBSCRIBE commands (the command still goes to Redis).
    subscriber.subscribe = ((...channels: string[]) => {
      subscribes.push(...channels);
      return subscribe(...channels);
    }) as typeof subscriber.subscribe;
    const events = new RedisTaskEvents(connect(), subscriber, PREFIX);
    const handlers = new HandlerRegistry();
    for (const m of finance.manifests) handlers.register(m.handler, () => next());
    const svc = testA2AService({
      bundle: () => bundle,
      handlers,
      tasks: new RedisTaskStore(connect(), PREFIX, { maxTaskBytes: 65_536, maxOwnerBytes: 1_048_576, retentionMs: 60_000 }),
      events,
      limits: { streamRemoteAfterMs },
    });
    return { svc, events, subscribes };
  }

  const stream = (svc: A2AService) =>
    svc.sendStreamingMessage(
      {
        message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'Look up invoice INV-20931' }] },
        metadata: { skillId: 'invoice-lookup' },
      },
      { caller: null },
      [],
    );

  /** Every event of the stream until it ends, and the task id from its first. */
  async function drain(s: TaskStream, onFirst?: (taskId: string) => Promise<void> | void): Promise<StreamEvent[]> {
    const got: StreamEvent[] = [];
    for await (const e of s) {
      got.push(e);
      if (got.length === 1 && 'task' in e) await onFirst?.(e.task.id);
    }
    return got;
  }

  const kinds = (events: StreamEvent[]) =>
    events.map((e) => ('task' in e ? 'task' : 'statusUpdate' in e ? e.statusUpdate.status.state : 'artifact'));

  const numsub = async (taskId: string) =>
    Number(((await connections[0].pubsub('NUMSUB', `${PREFIX}a2a:task-events:${taskId}`)) as [string, number])[1]);
  /** Subscribers of the task's channel once they settle (an UNSUBSCRIBE is sent as a stream ends, not awaited by it). */
  async function settledNumsub(taskId: string, want: number): Promise<number> {
    let n = await numsub(taskId);
    for (let i = 0; i < 200 && n !== want; i++) {
      await new Promise((r) => setTimeout(r, 10));
      n = await numsub(taskId);
    }
    return n;
  }

  afterEach(() => {
    next = async () => ANSWER;
  });
  afterAll(async () => {
    const keys = await connections[0].keys(`${PREFIX}*`);
    if (keys.length > 0) await connections[0].del(...keys);
    for (const c of connections) c.disconnect();
  });

  it('a stream that ends within the grace never subscribes; with the grace at 0 it subscribes before its first event', async () => {
    const lazy = replica(10_000);
    const events = await drain(await stream(lazy.svc));
    expect(kinds(events)).toEqual(['task', 'TASK_STATE_WORKING', 'artifact', 'TASK_STATE_COMPLETED']);
    expect(lazy.subscribes).toEqual([]);
    expect(lazy.events.listenerCount).toBe(0);

    const eager = replica(0);
    let id = '';
    const eagerEvents = await drain(await stream(eager.svc), (taskId) => void (id = taskId));
    expect(kinds(eagerEvents)).toEqual(kinds(events));
    expect(eager.subscribes).toEqual([`${PREFIX}a2a:task-events:${id}`]);
    expect(eager.events.listenerCount).toBe(0);
    expect(await settledNumsub(id, 0)).toBe(0);
  });

  it('a cancel sent to another replica before the stream subscribed still ends it, read from the store', async () => {
    const one = replica(300);
    const two = replica(300);
    let release!: (r: HandlerResult) => void;
    next = () => new Promise((resolve) => (release = resolve));
    let id = '';
    const started = Date.now();
    const events = await drain(await stream(one.svc), async (taskId) => {
      id = taskId;
      // The handler's working state is stored (it starts once the first save is, ADR 0396), then
      // another replica cancels, before this stream's subscription: nothing is published to it.
      for (let i = 0; i < 200; i++) {
        const stored = await two.svc.getTask({ id: taskId }, { caller: null }).catch(() => undefined);
        if (stored?.status.state === 'TASK_STATE_WORKING') break;
        await new Promise((r) => setTimeout(r, 10));
      }
      await two.svc.cancelTask({ id: taskId }, { caller: null });
    });
    expect(kinds(events)).toEqual(['task', 'TASK_STATE_WORKING', 'TASK_STATE_CANCELED']);
    // Heard by the late subscription's read, not by a save of the handler (it is still running).
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(one.subscribes).toEqual([`${PREFIX}a2a:task-events:${id}`]);
    // The handler's late answer leaves the task canceled and publishes nothing more.
    release(ANSWER);
    await new Promise((r) => setTimeout(r, 50));
    expect((await two.svc.getTask({ id }, { caller: null })).status.state).toBe('TASK_STATE_CANCELED');
    expect(one.events.listenerCount).toBe(0);
    expect(await settledNumsub(id, 0)).toBe(0);
  });

  it('a cancel sent to another replica after the stream subscribed reaches it through the subscription', async () => {
    const one = replica(30);
    const two = replica(30);
    let release!: (r: HandlerResult) => void;
    next = () => new Promise((resolve) => (release = resolve));
    let id = '';
    const events = await drain(await stream(one.svc), async (taskId) => {
      id = taskId;
      // Once subscribed, a PUBLISH reaches the stream.
      expect(await settledNumsub(taskId, 1)).toBe(1);
      await two.svc.cancelTask({ id: taskId }, { caller: null });
    });
    expect(kinds(events)).toEqual(['task', 'TASK_STATE_WORKING', 'TASK_STATE_CANCELED']);
    release(ANSWER);
    expect(one.events.listenerCount).toBe(0);
    expect(await settledNumsub(id, 0)).toBe(0);
  });

  it('a handler finishing around the late subscription: every event once, in order, the subscription released (40 races)', async () => {
    const one = replica(1);
    for (let i = 0; i < 40; i++) {
      const delay = i % 5;
      next = () => new Promise((resolve) => setTimeout(() => resolve(ANSWER), delay));
      let id = '';
      const events = await drain(await stream(one.svc), (taskId) => void (id = taskId));
      expect({ i, kinds: kinds(events) }).toEqual({ i, kinds: ['task', 'TASK_STATE_WORKING', 'artifact', 'TASK_STATE_COMPLETED'] });
      expect(await settledNumsub(id, 0)).toBe(0);
    }
    expect(one.events.listenerCount).toBe(0);
  });
});
