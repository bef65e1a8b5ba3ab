/**
 * ADR 0397: a new SendMessage task the store surely accepts is saved once, with its result, when
 * the handler answers within A2A_SEND_STORE_AFTER_MS; a slower one is saved working at that time
 * (ListTasks shows it) and again with its result; 0, a push config, or an owner the node has not
 * saved for yet store it before the handler runs. The machine's Redis, saves counted on the real
 * connection (each still runs in Redis).
 */
import { Redis } from 'ioredis';
import { financeAgentExample } from '@cp/capabilities';
import { financeBundle, testA2AService } from '../testing/a2a-test-node';
import { fillOwner } from '../testing/fill-owner';
import type { A2AService } from './a2a-service';
import { HandlerRegistry, type HandlerContext, type HandlerResult } from './handler-registry';
import type { RequestContext } from './request-context';
import { RedisTaskStore } from './redis-task-store';
import { RedisTaskEvents } from './task-events';
import type { TaskRecord, TaskStoreLimits } from './task-store';

const PREFIX = `spec-held-${process.pid}-${Date.now()}:`;
const finance = financeAgentExample();
const partner = finance.callers.partner!;
const bundle = financeBundle();
const LIMITS: TaskStoreLimits = { maxTaskBytes: 64_000, maxOwnerBytes: 64_000, retentionMs: 60_000 };
const ANSWER: HandlerResult = { state: 'completed', artifacts: [{ name: 'invoice', parts: [{ text: 'paid' }] }] };

describe('a new SendMessage task is saved once when it is answered within A2A_SEND_STORE_AFTER_MS (ADR 0397)', () => {
  const connections: Redis[] = [];
  const connect = () => {
    const r = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: 2 });
    connections.push(r);
    return r;
  };
  /** What every handler does; `seen` has the task as stored when the handler started (or undefined). */
  let handle: (ctx: HandlerContext) => Promise<HandlerResult> = async () => ANSWER;

  function node(sendStoreAfterMs: number) {
    const redis = connect();
    const evalsha = redis.evalsha.bind(redis) as unknown as (...args: unknown[]) => Promise<unknown>;
    const counted = { saves: 0 };
    redis.evalsha = async (...args: unknown[]) => {
      counted.saves++;
      return evalsha(...args);
    };
    const tasks = new RedisTaskStore(redis, PREFIX, LIMITS);
    const handlers = new HandlerRegistry();
    for (const m of finance.manifests) handlers.register(m.handler, (ctx) => handle(ctx));
    const svc = testA2AService({
      bundle: () => bundle,
      handlers,
      tasks,
      events: new RedisTaskEvents(connect(), connect(), PREFIX),
      limits: { sendStoreAfterMs },
    });
    return { svc, tasks, counted };
  }

  const caller = (principal = partner.principal): RequestContext => ({
    caller: { principal, tenant: partner.tenant, scopes: [...partner.scopes] },
  });
  const ownerOf = (rc: RequestContext) => JSON.stringify([rc.caller!.tenant, rc.caller!.principal]);
  const send = (svc: A2AService, rc: RequestContext) =>
    svc.sendMessage(
      {
        message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'Look up invoice INV-20931' }] },
        metadata: { skillId: 'invoice-lookup' },
      },
      rc,
      [],
    );

  /** Makes the node know the owner (one save for it), then counts from zero. */
  async function known(n: ReturnType<typeof node>, rc: RequestContext): Promise<void> {
    await send(n.svc, rc);
    n.counted.saves = 0;
  }

  afterEach(() => {
    handle = async () => ANSWER;
  });
  afterAll(async () => {
    const keys = await connections[0].keys(`${PREFIX}*`);
    if (keys.length > 0) await connections[0].del(...keys);
    for (const c of connections) c.disconnect();
  });

  it('a task answered at once is saved once, complete, and nothing was stored while its handler ran', async () => {
    const n = node(10_000);
    const rc = caller(`held-${crypto.randomUUID()}`);
    await known(n, rc);
    let storedWhileHandling: TaskRecord | undefined | 'unread';
    handle = async (ctx) => {
      storedWhileHandling = await n.tasks.get(ctx.task.id, ownerOf(rc));
      return ANSWER;
    };
    const { task } = await send(n.svc, rc);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(n.counted.saves).toBe(1);
    expect(storedWhileHandling).toBeUndefined();
    const stored = (await n.tasks.get(task.id, ownerOf(rc)))!;
    expect(stored.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(stored.task.artifacts?.[0].parts).toEqual([{ text: 'paid' }]);
    expect(stored.task.history?.[0].parts).toEqual([{ text: 'Look up invoice INV-20931' }]);
    expect(stored.capabilityId).toBe('invoice-lookup');
    expect((await n.svc.getTask({ id: task.id }, rc)).status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('a handler slower than the hold: the task is stored working when the hold ends (ListTasks shows it), then with its result', async () => {
    const n = node(60);
    const rc = caller(`held-${crypto.randomUUID()}`);
    await known(n, rc);
    let finish!: () => void;
    let taskId = '';
    handle = (ctx) =>
      new Promise((resolve) => {
        taskId = ctx.task.id;
        finish = () => resolve(ANSWER);
      });
    const answer = send(n.svc, rc);
    let listed: string[] = [];
    for (let i = 0; i < 300 && listed.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
      listed = (await n.svc.listTasks({}, rc)).tasks.filter((t) => t.id === taskId).map((t) => t.status.state);
    }
    expect(listed).toEqual(['TASK_STATE_WORKING']);
    expect(n.counted.saves).toBe(1);
    finish();
    expect((await answer).task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(n.counted.saves).toBe(2);
    expect((await n.tasks.get(taskId, ownerOf(rc)))!.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('with 0, and for an owner this node has not saved for, the task is stored before the handler runs', async () => {
    for (const [ms, warm] of [
      [0, true],
      [10_000, false],
    ] as const) {
      const n = node(ms);
      const rc = caller(`held-${crypto.randomUUID()}`);
      if (warm) await known(n, rc);
      let storedWhileHandling: string | undefined;
      handle = async (ctx) => {
        storedWhileHandling = (await n.tasks.get(ctx.task.id, ownerOf(rc)))?.task.status.state;
        return ANSWER;
      };
      await send(n.svc, rc);
      expect({ ms, warm, storedWhileHandling }).toEqual({ ms, warm, storedWhileHandling: 'TASK_STATE_WORKING' });
    }
  });

  it('a held save refused (another replica filled the owner meanwhile) answers with that refusal and stores nothing', async () => {
    const n = node(10_000);
    const rc = caller(`held-${crypto.randomUUID()}`);
    await known(n, rc);
    // Another replica fills the owner to 300 bytes short of its limit.
    const other = new RedisTaskStore(connect(), PREFIX, LIMITS);
    const before = await fillOwner(other, LIMITS.maxOwnerBytes, ownerOf(rc), partner.tenant, 300);
    let taskId = '';
    handle = async (ctx) => {
      taskId = ctx.task.id;
      return ANSWER;
    };
    await expect(send(n.svc, rc)).rejects.toThrow(/your tasks would exceed 64000 stored bytes/);
    expect(await n.tasks.get(taskId, ownerOf(rc))).toBeUndefined();
    expect(await other.bytesOf(ownerOf(rc))).toBe(before);
  });
});
