/**
 * Issue 27, item 3: push notifications must not turn a few hundred request bytes into tens of
 * megabytes of Redis. The review's attack: an anonymous ~600 KB task, 10 push configs (created
 * through 0.3, whose webhooks get whole tasks) pointing at a webhook that never answers, then
 * continuation messages. Each update's body is stored once (not once per config), trimmed, counted
 * in the owner's byte budget and bounded per task; queued jobs carry no body and finished ones are
 * not kept; a config past the bound is refused naming it; and the hanging webhook does not delay
 * another tenant's notifications.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { mintA2AToken } from '@cp/auth';
import { ANONYMOUS_OWNER } from '@cp/node-sdk';
import { ownerKeys } from '../../libs/node-sdk/src/a2a/redis-task-store';
import { until } from '../support/until';
import { a2aRpc, AGENT, bearer, startSecurityStack, type Json, type SecurityStack } from './support/stack';

const TASK_MAX_QUEUED = 40;

/** A webhook receiver: /slow never answers (the requests stay open), anything else answers 204 at once. */
async function webhook(): Promise<{
  url: string;
  got: { path: string; body: Json }[];
  hanging: http.ServerResponse[];
  server: http.Server;
}> {
  const got: { path: string; body: Json }[] = [];
  const hanging: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      got.push({ path: req.url ?? '', body: JSON.parse(body) as Json });
      if (req.url?.startsWith('/slow')) hanging.push(res);
      else res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, got, hanging, server };
}

describe('push notifications are bounded and counted in the owner budget (issue 27, item 3)', () => {
  let stack: SecurityStack;
  let hook: Awaited<ReturnType<typeof webhook>>;
  let redis: Redis;
  let prefix: string;
  let bull: string;

  /** Redis bytes (MEMORY USAGE) of every key matching `pattern`. */
  const memory = async (pattern: string): Promise<{ keys: string[]; bytes: number }> => {
    const keys = await redis.keys(pattern);
    let bytes = 0;
    for (const k of keys) bytes += Number((await redis.call('MEMORY', 'USAGE', k, 'SAMPLES', '0')) ?? 0);
    return { keys, bytes };
  };
  const jobHashes = async () => (await redis.keys(`${bull}:a2a-push:*`)).filter((k) => /:a2a-push:[0-9]+$/.test(k));
  const rpc03 = (method: string, params: unknown) => a2aRpc(stack.nodeUrl, method, params, { 'a2a-version': '0.3' });

  beforeAll(async () => {
    hook = await webhook();
    stack = await startSecurityStack(
      'push-backlog',
      {
        MAX_BODY_BYTES: '2097152',
        // The review kept the ~600 KB part in history; so does this test.
        A2A_HISTORY_PART_MAX_BYTES: '1048576',
        A2A_PUSH_TIMEOUT_MS: '60000',
        A2A_PUSH_TASK_MAX_QUEUED: String(TASK_MAX_QUEUED),
      },
      { protocol: { versions: ['1.0', '0.3'], pushNotifications: true, webhookAllow: ['127.0.0.1'] } },
    );
    redis = new Redis(stack.nodeConfig.REDIS_URL);
    prefix = stack.nodeConfig.REDIS_KEY_PREFIX;
    bull = `{${prefix}agent:${AGENT}:bull}`;
  }, 120_000);

  afterAll(async () => {
    for (const res of hook?.hanging ?? []) res.destroy();
    await stack?.close();
    await new Promise((r) => hook?.server.close(r));
    if (redis) {
      const keys = [...(await redis.keys(`${prefix}*`)), ...(await redis.keys(`{${prefix}*`))];
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  });

  it('stores one trimmed body per update, bounded per task, counted in the owner budget; jobs carry no body', async () => {
    const pdf = randomBytes(450_000).toString('base64'); // ~600 KB, kept in the task's history
    const sent = await a2aRpc(stack.nodeUrl, 'SendMessage', {
      message: {
        messageId: 'big',
        role: 'ROLE_USER',
        parts: [{ text: 'what is the status of my invoice?' }, { raw: pdf, mediaType: 'application/pdf' }],
      },
    });
    const task = sent.body.result.task as Json;
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    for (let i = 0; i < 10; i++) {
      const set = await rpc03('tasks/pushNotificationConfig/set', {
        taskId: task.id,
        pushNotificationConfig: { id: `c${i}`, url: `${hook.url}/slow/${i}` },
      });
      expect(set.body.result.pushNotificationConfig.id).toBe(`c${i}`);
    }
    // Continuation messages, more than the review's two: the backlog must stop at its bound.
    for (let i = 0; i < 6; i++) {
      const next = await a2aRpc(stack.nodeUrl, 'SendMessage', {
        message: { messageId: `more-${i}`, taskId: task.id, role: 'ROLE_USER', parts: [{ text: 'still looking for it' }] },
      });
      expect(next.body.result.task.id).toBe(task.id);
    }
    const { base } = ownerKeys(`${prefix}agent:${AGENT}:`, ANONYMOUS_OWNER);
    // Wait until the updates are queued: deliveries have begun and the job count holds still.
    await until('the webhook to be called', () => hook.got.some((g) => g.path.startsWith('/slow')), 30_000);
    let seen = -1;
    await until(
      'the queued jobs to settle',
      async () => {
        const n = (await jobHashes()).length;
        const settled = n === seen;
        seen = n;
        await new Promise((r) => setTimeout(r, 300));
        return settled;
      },
      30_000,
    );
    // The queue and the bodies: well under 1 MiB of Redis (the review measured 45 MiB).
    const queue = await memory(`${bull}*`);
    const bodies = await memory(`${base}push:*`);
    expect(bodies.bytes + queue.bytes).toBeLessThan(1024 * 1024);
    for (const k of await jobHashes()) expect(((await redis.hget(k, 'data')) ?? '').length).toBeLessThan(1024);
    const jobs = Number((await redis.hget(`${base}pushq`, `j:${task.id}`)) ?? 0);
    expect(jobs).toBeGreaterThan(TASK_MAX_QUEUED - 10);
    expect(jobs).toBeLessThanOrEqual(TASK_MAX_QUEUED);

    // Each update's body is stored once and holds no history: a few KB, not 10 copies of 600 KB.
    expect(bodies.keys.length).toBeGreaterThan(0);
    expect(bodies.keys.length).toBeLessThanOrEqual(Math.ceil(TASK_MAX_QUEUED / 10));
    for (const k of bodies.keys) {
      const body = JSON.parse((await redis.hget(k, 'b'))!) as Json;
      expect(body).toMatchObject({ kind: 'task', id: task.id });
      expect(body.history).toBeUndefined();
    }

    // The owner budget counts the task and the queued bodies, and nothing else.
    const sizes = await redis.hgetall(`${base}sizes`);
    expect(Object.keys(sizes).filter((f) => f.startsWith('push:'))).toHaveLength(bodies.keys.length);
    const sum = Object.values(sizes).reduce((n, v) => n + Number(v), 0);
    expect(Number(await redis.get(`${base}bytes`))).toBe(sum);
    expect(sum).toBeGreaterThan(Number(sizes[task.id]));

    // Past the bound a new config is refused, naming it; nothing stored.
    await rpc03('tasks/pushNotificationConfig/delete', { id: task.id, pushNotificationConfigId: 'c9' });
    const refused = await a2aRpc(stack.nodeUrl, 'CreateTaskPushNotificationConfig', {
      taskId: task.id,
      id: 'late',
      url: `${hook.url}/slow/late`,
    });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: -32000, data: [{ reason: 'PUSH_BACKLOG_FULL', metadata: { taskId: task.id } }] });
    expect(refused.body.error.message).toMatch(/undelivered push notifications queued \(at most 40\)/);
    const list = await rpc03('tasks/pushNotificationConfig/list', { id: task.id });
    expect((list.body.result as Json[]).map((c) => c.pushNotificationConfig.id)).not.toContain('late');
  }, 120_000);

  it('another tenant’s notifications arrive while the hanging webhook holds its deliveries; delivered jobs keep nothing', async () => {
    const partner = mintA2AToken(stack.cpConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run']);
    const r = await a2aRpc(
      stack.nodeUrl,
      'SendMessage',
      {
        message: { messageId: 'p1', role: 'ROLE_USER', parts: [{ text: 'reconcile invoice INV-20931 against the PO' }] },
        configuration: { taskPushNotificationConfig: { url: `${hook.url}/fast` } },
      },
      bearer(partner),
    );
    expect(r.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    await until(
      'the partner’s completed notification',
      () => hook.got.some((g) => g.path === '/fast' && g.body.statusUpdate?.status.state === 'TASK_STATE_COMPLETED'),
      30_000,
    );
    // The anonymous webhook's deliveries are still hanging (its deadline is 60 s): nothing waited for them.
    expect(hook.hanging.filter((res) => !res.writableEnded && !res.destroyed).length).toBeGreaterThan(0);
    // Delivered jobs are not kept, and their bodies are freed.
    await until('the partner’s jobs removed', async () => (await redis.zcard(`${bull}:a2a-push:completed`)) === 0 || undefined);
    const partnerBodies = await until('the partner’s bodies freed', async () => {
      const all = await redis.keys(`${prefix}agent:${AGENT}:a2a:{*}:push:*`);
      const mine = [];
      for (const k of all) if ((await redis.hget(k, 't')) === r.body.result.task.id) mine.push(k);
      return mine.length === 0 ? 'none' : undefined;
    });
    expect(partnerBodies).toBe('none');
  }, 60_000);
});
