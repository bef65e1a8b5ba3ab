/**
 * Push notifications on a real Fastify server (in-memory tasks and configs, deliveries made at once
 * by deliverOnce) with a local webhook receiver; the system resolver answers `localhost`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { a2aVerifier, mintA2AToken } from '@cp/auth';
import { loadConfig } from '@cp/common';
import { buildNodeBundle, financeAgentExample } from '@cp/capabilities';
import { ActiveBundle } from '../../active-bundle';
import { ToolGateway } from '../../tools/tool-gateway';
import { registerA2AServer } from '../a2a-server';
import { HandlerRegistry } from '../handler-registry';
import { InMemoryTaskEvents } from '../task-events';
import { InMemoryTaskStore } from '../task-store';
import { DEFAULT_PUSH_BACKLOG_LIMITS, InMemoryPushBacklog } from './push-backlog';
import { notificationTask } from './push-bodies';
import { InMemoryPushConfigStore } from './push-configs';
import { deliverOnce, RetryableDeliveryError, type PushDelivery, type PushJob } from './push-delivery';

const config = loadConfig({ NODE_ENV: 'test' });
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function bundle(push: boolean, webhookAllow: string[]): ActiveBundle {
  const f = financeAgentExample();
  return new ActiveBundle(
    buildNodeBundle({
      agentId: 'finance-agent',
      revision: 1,
      agent: { ...f.agent, protocol: { ...f.agent.protocol, pushNotifications: push, webhookAllow } },
      manifests: f.manifests,
      previewTenants: [],
    }),
  );
}

describe('push notifications (A2A 1.0 §3.1.7–3.1.10, §4.3)', () => {
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
  });

  async function setup(push: boolean, allow: string[], hold = false, limits = DEFAULT_PUSH_BACKLOG_LIMITS) {
    const got: { path: string; headers: http.IncomingHttpHeaders; body: Json }[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        got.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(body) as Json });
        res.writeHead(req.url === '/gone' ? 404 : req.url === '/down' ? 503 : 200).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise((r) => server.close(r)));
    const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const store = new InMemoryPushConfigStore();
    const backlog = new InMemoryPushBacklog(limits);
    const b = bundle(push, allow);
    const deps = { store, backlog, allow: () => b.webhookAllow, timeoutMs: 2000, log: silent };
    const outcomes: string[] = [];
    const queued: PushJob[] = [];
    // Delivered at once, one job after the other, unless the test holds them in `queued` (a webhook that never answers).
    const delivery: PushDelivery = {
      enqueue: async (jobs: PushJob[]) => {
        if (hold) return void queued.push(...jobs);
        for (const job of jobs) {
          outcomes.push(await deliverOnce(job, deps).catch((e: Error) => (e instanceof RetryableDeliveryError ? 'retry' : 'final')));
          await backlog.release(job.owner, job.bodyId);
        }
      },
      close: async () => undefined,
    };
    const app: FastifyInstance = Fastify();
    const server2 = registerA2AServer(app, {
      bundle: () => b,
      verifier: a2aVerifier(config),
      handlers: new HandlerRegistry()
        .register('invoices.v1.lookup', async (ctx) => {
          await ctx.updates.progress('looking');
          return { state: 'completed', artifacts: [{ parts: [{ data: { ok: true } }] }] };
        })
        .register('recon.v3.reconcile', async () => ({ state: 'input-required', text: 'which?' })),
      tools: new ToolGateway(
        { exchange: async () => ({ accessToken: 't', expiresAt: Date.now() + 60_000, scopes: [] }) },
        new Map(),
        silent,
      ),
      log: silent,
      tasks: new InMemoryTaskStore(),
      events: new InMemoryTaskEvents(),
      push: { store, backlog, delivery },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => app.close());
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/a2a/jsonrpc`;
    const rpc = async (method: string, params: unknown, token?: string) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      return (await res.json()) as Json;
    };
    return { hook, got, rpc, outcomes, push: server2.push!, store, backlog, queued };
  }

  const alice = () => mintA2AToken(config, 'alice', 'acme-partner', ['recon.run']);
  const bob = () => mintA2AToken(config, 'bob', 'acme-partner', ['recon.run']);
  const msg = (text: string) => ({ message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] } });

  it('is refused when the agent does not declare push (the protocol switch), changing nothing', async () => {
    const s = await setup(false, ['127.0.0.1']);
    const r = await s.rpc('SendMessage', {
      ...msg('status of invoice INV-1?'),
      configuration: { taskPushNotificationConfig: { url: `${s.hook}/h` } },
    });
    expect(r.error).toMatchObject({ code: -32003, data: [{ reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED', domain: 'a2a-protocol.org' }] });
    for (const method of [
      'CreateTaskPushNotificationConfig',
      'GetTaskPushNotificationConfig',
      'ListTaskPushNotificationConfigs',
      'DeleteTaskPushNotificationConfig',
    ]) {
      expect((await s.rpc(method, { taskId: 't', id: 'x', url: `${s.hook}/h` })).error.code).toBe(-32003);
    }
  });

  it('refuses a DNS name that resolves to loopback when only the IP is allowed… and the IP itself when nothing is', async () => {
    const s = await setup(true, []);
    const task = (await s.rpc('SendMessage', msg('reconcile invoice INV-1 against the PO'), alice())).result.task;
    const byName = await s.rpc(
      'CreateTaskPushNotificationConfig',
      { taskId: task.id, url: `http://localhost:${new URL(s.hook).port}/h` },
      alice(),
    );
    expect(byName.error).toMatchObject({ code: -32602, data: [{ reason: 'WEBHOOK_URL_REFUSED', metadata: { field: 'params.url' } }] });
    expect(byName.error.message).toMatch(/"localhost" resolves to 127\.0\.0\.1 \(loopback\)/);
    const byIp = await s.rpc('CreateTaskPushNotificationConfig', { taskId: task.id, url: `${s.hook}/h` }, alice());
    expect(byIp.error.message).toMatch(/127\.0\.0\.1 \(loopback\), which is not allowed/);
    expect(await s.store.list(task.id)).toEqual([]);
  });

  it('delivers every update of a task in order, with Authorization and the notification token', async () => {
    const s = await setup(true, ['127.0.0.1']);
    const r = await s.rpc(
      'SendMessage',
      {
        ...msg('status of invoice INV-20931?'),
        configuration: {
          taskPushNotificationConfig: { url: `${s.hook}/h`, token: 'tk', authentication: { scheme: 'Basic', credentials: 'dTpw' } },
        },
      },
      alice(),
    );
    await s.push.idle();
    expect(s.got.map((g) => Object.keys(g.body)[0])).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
    expect(s.got[0].body.task.id).toBe(r.result.task.id);
    expect(s.got.at(-1)!.body.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    expect(s.got.every((g) => g.headers.authorization === 'Basic dTpw' && g.headers['x-a2a-notification-token'] === 'tk')).toBe(true);
    expect(s.outcomes).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
  });

  it('keeps one caller’s configs from another, and classifies failures: 5xx retry, 4xx final, deleted config skipped', async () => {
    const s = await setup(true, ['127.0.0.1']);
    const task = (await s.rpc('SendMessage', msg('reconcile invoice INV-1 against the PO'), alice())).result.task;
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    for (const [id, path] of [
      ['down', '/down'],
      ['gone', '/gone'],
      ['later-deleted', '/x'],
    ]) {
      expect((await s.rpc('CreateTaskPushNotificationConfig', { taskId: task.id, id, url: `${s.hook}${path}` }, alice())).result.id).toBe(
        id,
      );
    }
    expect((await s.rpc('ListTaskPushNotificationConfigs', { taskId: task.id }, bob())).error.code).toBe(-32001);
    expect((await s.rpc('DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'down' }, bob())).error.code).toBe(-32001);
    expect((await s.rpc('GetTaskPushNotificationConfig', { taskId: task.id, id: 'down' })).error.code).toBe(-32001);
    expect((await s.rpc('ListTaskPushNotificationConfigs', { taskId: task.id }, alice())).result.configs.map((c: Json) => c.id)).toEqual([
      'down',
      'gone',
      'later-deleted',
    ]);
    await s.rpc('DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'later-deleted' }, alice());
    await s.rpc('CancelTask', { id: task.id }, alice());
    await s.push.idle();
    expect(s.outcomes).toEqual(['retry', 'final']);
    expect(s.got.map((g) => g.path)).toEqual(['/down', '/gone']);
  });

  it('queues one body per update whatever the number of configs, and refuses configs and updates past the backlog bound', async () => {
    const s = await setup(true, ['127.0.0.1'], true, { ...DEFAULT_PUSH_BACKLOG_LIMITS, maxTaskJobs: 10 });
    const task = (await s.rpc('SendMessage', msg('reconcile invoice INV-1 against the PO'), alice())).result.task;
    for (let i = 0; i < 5; i++) {
      const created = await s.rpc('CreateTaskPushNotificationConfig', { taskId: task.id, id: `c${i}`, url: `${s.hook}/h${i}` }, alice());
      expect(created.result.id).toBe(`c${i}`);
    }
    const update = (state: string) => ({
      statusUpdate: { taskId: task.id, contextId: task.contextId, status: { state, timestamp: new Date().toISOString() } },
    });
    // One update for five configs: five jobs naming one body.
    s.push.notify(task.id, update('TASK_STATE_WORKING') as never);
    await s.push.idle();
    expect(s.queued.length).toBe(5);
    expect(new Set(s.queued.map((j) => j.bodyId)).size).toBe(1);
    s.push.notify(task.id, update('TASK_STATE_INPUT_REQUIRED') as never);
    await s.push.idle();
    expect([s.queued.length, s.backlog.size]).toEqual([10, 2]);
    // The task's backlog is full: a new config is refused, naming the bound, and nothing is stored.
    const refused = await s.rpc('CreateTaskPushNotificationConfig', { taskId: task.id, id: 'c9', url: `${s.hook}/h9` }, alice());
    expect(refused.error).toMatchObject({ code: -32000, data: [{ reason: 'PUSH_BACKLOG_FULL', metadata: { taskId: task.id } }] });
    expect(refused.error.message).toContain('10 undelivered push notifications queued (at most 10)');
    expect((await s.store.list(task.id)).map((c) => c.id)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    // A further update is not queued for anyone.
    s.push.notify(task.id, update('TASK_STATE_CANCELED') as never);
    await s.push.idle();
    expect([s.queued.length, s.backlog.size]).toEqual([10, 2]);
    // Settling jobs frees their body once the last of them is done.
    for (const j of s.queued.splice(0, 5)) await s.backlog.release(j.owner, j.bodyId);
    expect(s.backlog.size).toBe(1);
  });

  it('a task in a notification carries no history, and its artifacts only while it stays small', () => {
    const big = { parts: [{ text: 'x'.repeat(70_000) }], artifactId: 'a' };
    const task = {
      id: 't',
      contextId: 'c',
      status: { state: 'TASK_STATE_COMPLETED' as const, timestamp: 'now' },
      history: [{ messageId: 'm', role: 'ROLE_USER' as const, parts: [{ text: 'y'.repeat(1000) }] }],
      artifacts: [{ parts: [{ text: 'ok' }], artifactId: 'small' }],
    };
    expect(notificationTask(task)).toEqual({ id: 't', contextId: 'c', status: task.status, artifacts: task.artifacts });
    const trimmed = notificationTask({ ...task, artifacts: [big] });
    expect(trimmed.artifacts).toBeUndefined();
    expect(trimmed.metadata).toEqual({ 'cp.artifactsOmitted': 1 });
    expect(JSON.stringify(trimmed).length).toBeLessThan(1000);
  });
});
