/**
 * The node as a gateway (issue 28, ADR 0230) on a real Fastify server, in front of real node:http
 * upstreams started here: what the caller gets AND what the upstream received (an exchanged token,
 * never the caller's; nothing at all for a caller who is not entitled), and every way a hostile
 * upstream can misbehave ending the task with a clear error that leaks nothing.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { a2aVerifier, mintA2AToken } from '@cp/auth';
import { loadConfig } from '@cp/common';
import { buildNodeBundle, financeAgentExample, type RegistrySnapshot, type UpstreamSpec } from '@cp/capabilities';
import { ActiveBundle } from '../../active-bundle';
import { ToolGateway } from '../../tools/tool-gateway';
import { HandlerRegistry } from '../handler-registry';
import { registerA2AServer } from '../a2a-server';
import { InMemoryTaskEvents } from '../task-events';
import { statusUpdate, TaskRun } from '../task-run';
import { InMemoryTaskStore, ownerKey, type TaskRecord, type TaskStore } from '../task-store';
import { UpstreamGateway, upstreamContextFor } from './upstream-gateway';

const config = loadConfig({ NODE_ENV: 'test' });
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

interface Received {
  authorization?: string;
  body: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}
type Behaviour = (req: http.IncomingMessage, res: http.ServerResponse, body: Record<string, any>) => void; // eslint-disable-line @typescript-eslint/no-explicit-any

const sse = (res: http.ServerResponse) =>
  res.writeHead(200, { 'content-type': 'text/event-stream', 'set-cookie': 'upstream-secret=1', 'x-upstream-secret': 'zebra' });
const send = (res: http.ServerResponse, id: unknown, result: unknown) =>
  res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`);

const answer = (res: http.ServerResponse, id: unknown, result: unknown) => {
  res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'upstream-secret=1', 'x-upstream-secret': 'zebra' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
};

/**
 * A well-behaved 1.0 JSON-RPC upstream: to SendMessage one answer, the completed task with its
 * artifact; to a stream the task, progress, the artifact, completed.
 */
const goodUpstream: Behaviour = (_req, res, body) => {
  if (body.method === 'SendMessage') {
    const artifacts = [{ artifactId: 'a1', name: 'diff', parts: [{ data: { differences: 0 } }] }];
    return answer(res, body.id, { task: { id: 'up-1', contextId: 'up-ctx', status: { state: 'TASK_STATE_COMPLETED' }, artifacts } });
  }
  sse(res);
  const t = { taskId: 'up-1', contextId: 'up-ctx' };
  send(res, body.id, { task: { id: 'up-1', contextId: 'up-ctx', status: { state: 'TASK_STATE_WORKING' } } });
  send(res, body.id, {
    statusUpdate: {
      ...t,
      status: { state: 'TASK_STATE_WORKING', message: { messageId: 'x', role: 'ROLE_AGENT', parts: [{ text: 'matching lines' }] } },
    },
  });
  send(res, body.id, {
    artifactUpdate: { ...t, artifact: { artifactId: 'a1', name: 'diff', parts: [{ data: { differences: 0 } }] }, lastChunk: true },
  });
  send(res, body.id, { statusUpdate: { ...t, status: { state: 'TASK_STATE_COMPLETED' } } });
  res.end();
};

async function upstream(behaviour: Behaviour): Promise<{ server: http.Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as Record<string, unknown>;
      received.push({ authorization: req.headers.authorization, body });
      behaviour(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/a2a/jsonrpc`, received };
}

function snapshot(spec: UpstreamSpec): RegistrySnapshot {
  const f = financeAgentExample();
  const manifests = f.manifests.map((m) => (m.id === 'reconcile-invoice' ? { ...m, upstream: spec } : m));
  return {
    agentId: 'finance-agent',
    revision: 1,
    agent: { ...f.agent, protocol: { ...f.agent.protocol, streaming: true } },
    manifests,
    previewTenants: [],
  };
}

const exchanged: { callerToken: string; capabilityId: string }[] = [];

async function gateway(
  spec: UpstreamSpec,
  allow: string[] = ['127.0.0.1'],
  tasks: TaskStore = new InMemoryTaskStore(),
): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify();
  const bundle = new ActiveBundle(buildNodeBundle(snapshot(spec)));
  registerA2AServer(app, {
    bundle: () => bundle,
    verifier: a2aVerifier(config),
    handlers: new HandlerRegistry(),
    tools: new ToolGateway({ exchange: async () => ({ accessToken: 't', expiresAt: Date.now() + 60_000, scopes: [] }) }, new Map(), silent),
    log: silent,
    tasks,
    events: new InMemoryTaskEvents(),
    upstreams: new UpstreamGateway({
      exchange: async (callerToken, capabilityId) => {
        exchanged.push({ callerToken, capabilityId });
        return `exchanged-for-${capabilityId}`;
      },
      allow: () => allow,
      log: silent,
      maxEventBytes: 4096,
    }),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` };
}

const callerToken = mintA2AToken(config, 'p@acme', 'acme-partner', ['recon.run']);
const rpc = async (url: string, method: string, params: unknown, token = callerToken) => {
  const res = await fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'x', method, params }),
  });
  return { headers: res.headers, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
};
/**
 * SendStreamingMessage read to its end, then the task as stored (GetTask), in SendMessage's shape:
 * the caller streams, so the gateway streams from its upstream too.
 */
const streamed = async (url: string, params: unknown) => {
  const res = await fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${callerToken}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 's', method: 'SendStreamingMessage', params }),
  });
  const text = await res.text();
  const taskId = /"task":\{"id":"([^"]+)"/.exec(text)![1];
  const got = await rpc(url, 'GetTask', { id: taskId });
  return { headers: res.headers, text, body: { result: { task: got.body.result } } };
};
/**
 * An in-memory store whose saves are recorded; `sure`: it says which tasks it surely accepts (a
 * held first save, ADRs 0397, 0402), else every new task is stored before its upstream is called.
 */
function countingStore(sure: boolean): { saved: TaskRecord[]; store: InMemoryTaskStore; counting: TaskStore } {
  const saved: TaskRecord[] = [];
  const store = new InMemoryTaskStore();
  const counting: TaskStore = {
    save: (record, ...rest) => (saved.push(record), store.save(record, ...rest)),
    get: (...args) => store.get(...args),
    list: (...args) => store.list(...args),
    ...(sure ? { surelyAccepts: (record: TaskRecord) => store.surelyAccepts(record) } : {}),
  };
  return { saved, store, counting };
}

const reconcile = { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'reconcile invoice INV-1 against its PO' }] } };

describe('the node as a gateway to an upstream agent', () => {
  const closers: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of closers) await c();
  });
  const start = async (behaviour: Behaviour, allow?: string[], tasks?: TaskStore) => {
    const up = await upstream(behaviour);
    const gw = await gateway({ url: up.url, binding: 'jsonrpc', version: '1.0', timeouts: { idle: 2000, request: 1500 } }, allow, tasks);
    closers.push(
      () => gw.app.close(),
      () => new Promise((r) => up.server.close(r)),
    );
    return { up, gw };
  };

  it('forwards with an exchanged token (never the caller’s) and keeps its own task, updates and artifacts', async () => {
    const { up, gw } = await start(goodUpstream);
    const { body, headers } = await rpc(gw.url, 'SendMessage', reconcile);
    const task = body.result.task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.id).not.toBe('up-1');
    expect(task.contextId).not.toBe('up-ctx');
    expect(task.artifacts).toEqual([expect.objectContaining({ artifactId: 'a1', parts: [{ data: { differences: 0 } }] })]);
    expect(task.metadata.routing.capabilityId).toBe('reconcile-invoice');
    expect(headers.get('x-upstream-secret')).toBeNull();
    expect(headers.get('set-cookie')).toBeNull();
    expect(up.received).toHaveLength(1);
    expect(up.received[0].authorization).toBe('Bearer exchanged-for-reconcile-invoice');
    expect(JSON.stringify(up.received[0])).not.toContain(callerToken);
    // The caller waits for one answer: so does the node (ADR 0350).
    expect(up.received[0].body.method).toBe('SendMessage');
    // A context of the node's choosing for a new upstream task (ADR 0371), none of the node's ids.
    expect(up.received[0].body.params.message).toEqual({
      messageId: 'm1',
      role: 'ROLE_USER',
      parts: reconcile.message.parts,
      contextId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(up.received[0].body.params.message.contextId).not.toBe(task.contextId);
    expect(exchanged.at(-1)).toEqual({ callerToken, capabilityId: 'reconcile-invoice' });
  });

  it('streams from the upstream when the caller streams: its progress, artifact and end reach the caller as they come', async () => {
    const { up, gw } = await start(goodUpstream);
    const { text, headers, body } = await streamed(gw.url, reconcile);
    expect(up.received.map((r) => r.body.method)).toEqual(['SendStreamingMessage']);
    expect(up.received[0].authorization).toBe('Bearer exchanged-for-reconcile-invoice');
    expect(text).toContain('matching lines');
    expect(text.indexOf('"artifactUpdate"')).toBeLessThan(text.indexOf('TASK_STATE_COMPLETED'));
    expect(body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(body.result.task.artifacts).toEqual([expect.objectContaining({ artifactId: 'a1' })]);
    expect(headers.get('x-upstream-secret')).toBeNull();
  });

  it('an upstream answering at once costs one save besides the working state (a stream: besides the submitted one, ADR 0370); the link is saved with an input-required result, never alone (ADR 0320)', async () => {
    const { saved, store, counting } = countingStore(false);
    const oneRead =
      (state: string): Behaviour =>
      (_req, res, body) => {
        if (body.method === 'SendMessage') {
          const status = { state, message: { messageId: 'q', role: 'ROLE_AGENT', parts: [{ text: 'which PO?' }] } };
          const artifacts = [{ artifactId: 'a9', parts: [{ text: 'matched' }] }];
          return answer(res, body.id, { task: { id: 'up-9', contextId: 'up-ctx-9', status, artifacts } });
        }
        sse(res);
        const t = { taskId: 'up-9', contextId: 'up-ctx-9' };
        const frame = (result: unknown) => `data: ${JSON.stringify({ jsonrpc: '2.0', id: body.id, result })}\n\n`;
        res.end(
          frame({ task: { id: 'up-9', contextId: 'up-ctx-9', status: { state: 'TASK_STATE_WORKING' } } }) +
            frame({ artifactUpdate: { ...t, artifact: { artifactId: 'a9', parts: [{ text: 'matched' }] }, lastChunk: true } }) +
            frame({
              statusUpdate: { ...t, status: { state, message: { messageId: 'q', role: 'ROLE_AGENT', parts: [{ text: 'which PO?' }] } } },
            }),
        );
      };
    const { gw } = await start(oneRead('TASK_STATE_COMPLETED'), undefined, counting);
    const { body } = await rpc(gw.url, 'SendMessage', reconcile);
    expect(body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(body.result.task.artifacts).toEqual([expect.objectContaining({ artifactId: 'a9', parts: [{ text: 'matched' }] })]);
    const mine = saved.filter((r) => r.task.id === body.result.task.id);
    // The task's first save (working, ADR 0285) and its result: nothing for the link or the artifact on their own.
    expect(mine.map((r) => r.task.status.state)).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    expect(mine.every((r) => r.upstream === undefined)).toBe(true);

    // A stream: the task is stored submitted before the upstream is asked, then working with what
    // the upstream's first read brought, in one save with the result (ADR 0370); the caller still
    // hears submitted, working, the artifact and completed, in that order.
    const streams = await start(oneRead('TASK_STATE_COMPLETED'), undefined, counting);
    const got = await streamed(streams.gw.url, reconcile);
    expect(got.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const ofStream = saved.filter((r) => r.task.id === got.body.result.task.id);
    expect(ofStream.map((r) => r.task.status.state)).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_COMPLETED']);
    const heard = [
      ...got.text.matchAll(/"(task|statusUpdate|artifactUpdate)":\{.*?(?:"state":"(TASK_STATE_[A-Z_]+)"|"artifactId":"(a9)")/g),
    ].map((m) => m[2] ?? m[3]);
    expect(heard).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'a9', 'TASK_STATE_COMPLETED']);

    // Input required in the same read: the link is stored with that state, so a continuation finds it.
    const asks = await start(oneRead('TASK_STATE_INPUT_REQUIRED'), undefined, counting);
    const asked = (await rpc(asks.gw.url, 'SendMessage', reconcile)).body.result.task;
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const stored = await store.get(asked.id, ownerKey({ tenant: 'acme-partner', principal: 'p@acme' }));
    expect(stored?.upstream).toEqual({ taskId: 'up-9', contextId: 'up-ctx-9' });
    // The artifact is saved as an update (an input-required result holds none); the link rides on
    // the next save, never one of its own.
    const asking = saved.filter((r) => r.task.id === asked.id);
    expect(asking.map((r) => [r.task.status.state, r.upstream !== undefined])).toEqual([
      ['TASK_STATE_WORKING', false],
      ['TASK_STATE_WORKING', true],
      ['TASK_STATE_INPUT_REQUIRED', true],
    ]);
  });

  it('a forwarded stream the store surely accepts is saved once when its upstream answers in one read; a slower upstream’s first answer stores it (ADR 0402)', async () => {
    const { saved, store, counting } = countingStore(true);
    const frame = (id: unknown, result: unknown) => `data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`;
    const t = { taskId: 'up-7', contextId: 'up-ctx-7' };
    const task = { id: 'up-7', contextId: 'up-ctx-7', status: { state: 'TASK_STATE_WORKING' } };
    const artifact = { artifactUpdate: { ...t, artifact: { artifactId: 'a7', parts: [{ text: 'matched' }] }, lastChunk: true } };
    const completed = { statusUpdate: { ...t, status: { state: 'TASK_STATE_COMPLETED' } } };
    const heardIn = (text: string) =>
      [...text.matchAll(/"(task|statusUpdate|artifactUpdate)":\{.*?(?:"state":"(TASK_STATE_[A-Z_]+)"|"artifactId":"(a7)")/g)].map(
        (m) => m[2] ?? m[3],
      );

    const oneRead = await start(
      (_req, res, body) => {
        sse(res);
        res.end(frame(body.id, { task }) + frame(body.id, artifact) + frame(body.id, completed));
      },
      undefined,
      counting,
    );
    // The store surely accepts an owner it has seen below half its bytes: the first call is stored first.
    const warm = await streamed(oneRead.gw.url, reconcile);
    expect(saved.filter((r) => r.task.id === warm.body.result.task.id).map((r) => r.task.status.state)).toEqual([
      'TASK_STATE_SUBMITTED',
      'TASK_STATE_COMPLETED',
    ]);
    const got = await streamed(oneRead.gw.url, reconcile);
    expect(got.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(saved.filter((r) => r.task.id === got.body.result.task.id).map((r) => r.task.status.state)).toEqual(['TASK_STATE_COMPLETED']);
    expect(heardIn(got.text)).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'a7', 'TASK_STATE_COMPLETED']);

    // The upstream names its task, then works on: its first answer ends the hold, so the caller's
    // first event and the stored task (working, linked) do not wait for the result.
    let finish!: () => void;
    const later = new Promise<void>((r) => (finish = r));
    const slow = await start(
      (_req, res, body) => {
        sse(res);
        res.write(frame(body.id, { task }));
        void later.then(() => res.end(frame(body.id, artifact) + frame(body.id, completed)));
      },
      undefined,
      counting,
    );
    const res = await fetch(`${slow.gw.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${callerToken}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 's', method: 'SendStreamingMessage', params: reconcile }),
    });
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const id = /"task":\{"id":"([^"]+)"/.exec(first)![1];
    const stored = await store.get(id, ownerKey({ tenant: 'acme-partner', principal: 'p@acme' }));
    expect(stored?.task.status.state).toBe('TASK_STATE_WORKING');
    expect(stored?.upstream).toEqual({ taskId: 'up-7', contextId: 'up-ctx-7' });
    finish();
    let rest = first;
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
    expect(heardIn(rest)).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'a7', 'TASK_STATE_COMPLETED']);
    expect(saved.filter((r) => r.task.id === id).map((r) => r.task.status.state)).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
  });

  it('a cancel another replica stored before the upstream named its task ends the upstream task once its link is kept (ADR 0320)', async () => {
    const store = new InMemoryTaskStore();
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const held: http.ServerResponse[] = [];
    const { up, gw } = await start(
      (_req, res, body) => {
        if (body.method === 'CancelTask') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: body.id,
              result: { id: 'up-c', contextId: 'up-ctx-c', status: { state: 'TASK_STATE_CANCELED' } },
            }),
          );
          return;
        }
        // Names its task only once released, then works on silently (held open until the test ends).
        sse(res);
        held.push(res);
        void released.then(() =>
          send(res, body.id, { task: { id: 'up-c', contextId: 'up-ctx-c', status: { state: 'TASK_STATE_WORKING' } } }),
        );
      },
      undefined,
      store,
    );
    closers.push(async () => held.forEach((r) => r.end()));
    const streamed = await fetch(`${gw.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${callerToken}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 's', method: 'SendStreamingMessage', params: reconcile }),
    });
    const reader = streamed.body!.getReader();
    let text = '';
    while (!/"task":\{"id":"[^"]+"/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
    const taskId = /"task":\{"id":"([^"]+)"/.exec(text)![1];
    const waitFor = async (what: string, ok: () => boolean) => {
      for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
      if (!ok()) throw new Error(`timed out waiting for ${what}`);
    };
    await waitFor('the upstream call', () => up.received.length === 1);
    // Another replica's CancelTask: the canceled state stored there, with no link yet to reach the upstream.
    const owner = ownerKey({ tenant: 'acme-partner', principal: 'p@acme' });
    await new TaskRun((await store.get(taskId, owner))!, store, new InMemoryTaskEvents()).apply((t) => {
      const task = { ...t, status: { state: 'TASK_STATE_CANCELED' as const, timestamp: new Date().toISOString() } };
      return { task, event: statusUpdate(task) };
    });
    release();
    await waitFor('CancelTask at the upstream', () => up.received.some((r) => r.body.method === 'CancelTask'));
    const cancel = up.received.find((r) => r.body.method === 'CancelTask')!;
    expect(cancel.body.params).toEqual({ id: 'up-c' });
    expect(cancel.authorization).toBe('Bearer exchanged-for-reconcile-invoice');
    expect((await store.get(taskId, owner))?.task.status.state).toBe('TASK_STATE_CANCELED');
    await reader.cancel();
  });

  /**
   * A 1.0 upstream answering SendMessage only once its task ended: it holds the answer until
   * `release` (or a CancelTask) and lists its task in the context it was given as `listed` says.
   */
  const holdingUpstream = (listed: (contextId: string) => unknown[]) => {
    let held: { res: http.ServerResponse; id: unknown; contextId: string } | undefined;
    let release = (_state: string) => {};
    const behaviour: Behaviour = (_req, res, b) => {
      if (b.method === 'SendMessage') {
        held = { res, id: b.id, contextId: b.params.message.contextId };
        release = (state) => {
          if (!res.headersSent) answer(res, b.id, { task: { id: 'up-h', contextId: held!.contextId, status: { state } } });
        };
        return;
      }
      if (b.method === 'ListTasks') return answer(res, b.id, { tasks: listed(held!.contextId), nextPageToken: '' });
      if (b.method === 'CancelTask') {
        answer(res, b.id, { id: 'up-h', contextId: held?.contextId, status: { state: 'TASK_STATE_CANCELED' } });
        if (b.params.id === 'up-h') release('TASK_STATE_CANCELED');
      }
    };
    return { behaviour, release: (state: string) => release(state) };
  };
  const waitFor = async (what: string, ok: () => boolean) => {
    for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
    if (!ok()) throw new Error(`timed out waiting for ${what}`);
  };
  /** The node task of a SendMessage still waiting, found by its owner (ListTasks), and canceled there. */
  const cancelPending = async (url: string) => {
    const listed = await rpc(url, 'ListTasks', {});
    const pending = (listed.body.result.tasks as { id: string; contextId: string; status: { state: string } }[]).find(
      (t) => t.status.state === 'TASK_STATE_WORKING',
    )!;
    const canceled = await rpc(url, 'CancelTask', { id: pending.id });
    expect(canceled.body.result.status.state).toBe('TASK_STATE_CANCELED');
    return pending;
  };

  it('a CancelTask while a SendMessage waits for its 1.0 upstream reaches the upstream task at once, found in the context the node chose for it (ADR 0371)', async () => {
    const upstreamHolds = holdingUpstream((contextId) => [{ id: 'up-h', contextId, status: { state: 'TASK_STATE_WORKING' } }]);
    const { up, gw } = await start(upstreamHolds.behaviour);
    const sent = rpc(gw.url, 'SendMessage', reconcile);
    await waitFor('the upstream call', () => up.received.length === 1);
    const pending = await cancelPending(gw.url);
    // The upstream answers only after a CancelTask for its task: this one came before any answer.
    await waitFor('CancelTask at the upstream', () => up.received.some((r) => r.body.method === 'CancelTask'));
    const [send, list, cancel, ...rest] = up.received;
    const chosen = send.body.params.message.contextId;
    expect(typeof chosen).toBe('string');
    // None of the node's ids: a context of its own, for this one task.
    expect(chosen).not.toBe(pending.contextId);
    expect(chosen).not.toBe(pending.id);
    expect(list.body).toMatchObject({ method: 'ListTasks', params: { contextId: chosen, pageSize: 1 } });
    expect(list.authorization).toBe('Bearer exchanged-for-reconcile-invoice');
    expect(cancel.body).toMatchObject({ method: 'CancelTask', params: { id: 'up-h' } });
    expect(cancel.authorization).toBe('Bearer exchanged-for-reconcile-invoice');
    const answered = (await sent).body.result.task;
    expect(answered.id).toBe(pending.id);
    expect(answered.status.state).toBe('TASK_STATE_CANCELED');
    // Once: the answer naming the task afterwards sends no second CancelTask.
    expect(rest.filter((r) => r.body.method === 'CancelTask')).toEqual([]);
  });

  it('a CancelTask while a SendMessage waits reaches the upstream task only once the answer names it when ListTasks names none that is valid (ADR 0371)', async () => {
    const upstreamHolds = holdingUpstream(() => [
      { id: 'x'.repeat(201), contextId: 'whatever', status: { state: 'TASK_STATE_WORKING' } },
      { id: 'someone-elses', contextId: 'another-context', status: { state: 'TASK_STATE_WORKING' } },
      'hunter2',
    ]);
    const { up, gw } = await start(upstreamHolds.behaviour);
    const sent = rpc(gw.url, 'SendMessage', reconcile);
    await waitFor('the upstream call', () => up.received.length === 1);
    await cancelPending(gw.url);
    await waitFor('ListTasks at the upstream', () => up.received.some((r) => r.body.method === 'ListTasks'));
    await new Promise((r) => setTimeout(r, 50));
    expect(up.received.filter((r) => r.body.method === 'CancelTask')).toEqual([]);
    // The upstream's answer names its task (waiting for input): the node cancels it then, once.
    upstreamHolds.release('TASK_STATE_INPUT_REQUIRED');
    expect((await sent).body.result.task.status.state).toBe('TASK_STATE_CANCELED');
    await waitFor('CancelTask at the upstream', () => up.received.some((r) => r.body.method === 'CancelTask'));
    expect(up.received.filter((r) => r.body.method === 'CancelTask').map((r) => r.body.params)).toEqual([{ id: 'up-h' }]);
  });

  it('a CancelTask on another replica while a SendMessage waits reaches the upstream task at once, in the context the node task’s id gives (ADR 0386)', async () => {
    const store = new InMemoryTaskStore();
    const upstreamHolds = holdingUpstream((contextId) => [{ id: 'up-h', contextId, status: { state: 'TASK_STATE_WORKING' } }]);
    const { up, gw } = await start(upstreamHolds.behaviour, undefined, store);
    // The second replica: same store, same upstream, its own gateway (nothing of the forwarding in its memory).
    const other = await gateway(
      { url: up.url, binding: 'jsonrpc', version: '1.0', timeouts: { idle: 2000, request: 1500 } },
      undefined,
      store,
    );
    closers.push(() => other.app.close());
    const sent = rpc(gw.url, 'SendMessage', reconcile);
    await waitFor('the upstream call', () => up.received.length === 1);
    const pending = await cancelPending(other.url);
    await waitFor('CancelTask at the upstream', () => up.received.some((r) => r.body.method === 'CancelTask'));
    const [send, list, cancel] = up.received;
    const chosen = send.body.params.message.contextId;
    expect(chosen).toBe(upstreamContextFor(pending.id));
    expect(list.body).toMatchObject({ method: 'ListTasks', params: { contextId: chosen, pageSize: 1 } });
    expect(cancel.body).toMatchObject({ method: 'CancelTask', params: { id: 'up-h' } });
    expect(cancel.authorization).toBe('Bearer exchanged-for-reconcile-invoice');
    expect((await sent).body.result.task.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('the context a held SendMessage is put in is one per node task, UUID-shaped, and carries none of the node task’s id', () => {
    const ids = Array.from({ length: 50 }, (_, i) => `${i}-6b1c2f4e-9a0d-4c1e-8f7a-2d5e3b9c1a7f`);
    const contexts = ids.map(upstreamContextFor);
    expect(new Set(contexts).size).toBe(ids.length);
    expect(upstreamContextFor(ids[0])).toBe(contexts[0]);
    for (const [i, c] of contexts.entries()) {
      expect(c).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(c).not.toContain(ids[i].slice(2, 10));
    }
  });

  it('the context is the one every replica computes, whichever build (ADR 0386): SHA-256 of a fixed label and the id, as version 8', () => {
    // Computed apart, the way the first build did (createHash): a replica of another build finds the same context.
    const apart = (id: string) => {
      const h = createHash('sha256').update(`cp-upstream-context\n${id}`).digest();
      h[6] = (h[6] & 0x0f) | 0x80;
      h[8] = (h[8] & 0x3f) | 0x80;
      const x = h.toString('hex', 0, 16);
      return [x.slice(0, 8), x.slice(8, 12), x.slice(12, 16), x.slice(16, 20), x.slice(20)].join('-');
    };
    for (const id of ['6b1c2f4e-9a0d-4c1e-8f7a-2d5e3b9c1a7f', 'ü-non-ascii', '']) expect(upstreamContextFor(id)).toBe(apart(id));
  });

  it('never calls the upstream for a caller who is not entitled', async () => {
    const { up, gw } = await start(goodUpstream);
    const before = exchanged.length;
    const { body } = await rpc(
      gw.url,
      'SendMessage',
      { ...reconcile, metadata: { skillId: 'reconcile-invoice' } },
      mintA2AToken(config, 'q@acme', 'acme-partner', []),
    );
    expect(body.error).toBeDefined();
    expect(up.received).toHaveLength(0);
    expect(exchanged.length).toBe(before);
  });

  it('refuses a loopback upstream the agent’s upstreamAllow does not name (SSRF at the node)', async () => {
    const { up, gw } = await start(goodUpstream, []);
    const { body } = await rpc(gw.url, 'SendMessage', reconcile);
    expect(body.result.task.status.state).toBe('TASK_STATE_FAILED');
    expect(JSON.stringify(body.result.task.status)).toContain('not allowed');
    expect(up.received).toHaveLength(0);
  });

  it.each<[string, Behaviour, string]>([
    [
      'events for another task',
      (_q, res, b) => {
        sse(res);
        send(res, b.id, { task: { id: 'up-1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } });
        send(res, b.id, { statusUpdate: { taskId: 'someone-elses', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } });
        res.end();
      },
      'another task',
    ],
    [
      'task ids past their bound (a 201-character context id: kept with the task, it could steer nothing)',
      (_q, res, b) => {
        sse(res);
        send(res, b.id, { task: { id: 'up-1', contextId: 'c'.repeat(201), status: { state: 'TASK_STATE_WORKING' } } });
        res.end();
      },
      'without valid task ids',
    ],
    [
      'invalid JSON',
      (_q, res) => {
        sse(res);
        res.end('data: {not json\n\n');
      },
      'not JSON',
    ],
    [
      'an oversized event',
      (_q, res, b) => {
        sse(res);
        send(res, b.id, {
          task: { id: 'up-1', contextId: 'c', status: { state: 'TASK_STATE_WORKING', message: { parts: [{ text: 'x'.repeat(10_000) }] } } },
        });
        res.end();
      },
      'larger than 4096',
    ],
    [
      'a lost connection',
      (_q, res, b) => {
        sse(res);
        send(res, b.id, { task: { id: 'up-1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } });
        setTimeout(() => res.socket?.destroy(), 20);
      },
      'lost',
    ],
    [
      'silence past the idle timeout',
      (_q, res, b) => {
        sse(res);
        send(res, b.id, { task: { id: 'up-1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } });
      },
      'silent',
    ],
    [
      'an event after the task ended',
      (_q, res, b) => {
        sse(res);
        send(res, b.id, { task: { id: 'up-1', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } });
        send(res, b.id, { artifactUpdate: { taskId: 'up-1', contextId: 'c', artifact: { artifactId: 'late', parts: [] } } });
        res.end();
      },
      'after the task ended',
    ],
    [
      'a redirect',
      (_q, res) => {
        res.writeHead(307, { location: 'http://169.254.169.254/' });
        res.end();
      },
      'HTTP 307',
    ],
    [
      'an error with internal details',
      (_q, res) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'db password hunter2 at 10.0.0.5' } }));
      },
      'HTTP 500',
    ],
  ])('ends a streamed task with a clear error on %s, leaking nothing', async (_name, behaviour, words) => {
    const { gw } = await start(behaviour);
    const { body } = await streamed(gw.url, reconcile);
    const task = body.result.task;
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    const text = JSON.stringify(task);
    expect(text).toContain(words);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('zebra');
  });

  it('follows an answer about a task still working with a subscription to that task (ADR 0350)', async () => {
    const { up, gw } = await start((_q, res, b) => {
      if (b.method === 'SendMessage')
        return answer(res, b.id, { task: { id: 'up-1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } });
      sse(res);
      send(res, b.id, { task: { id: 'up-1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } });
      send(res, b.id, {
        artifactUpdate: { taskId: 'up-1', contextId: 'c', artifact: { artifactId: 'late', parts: [{ text: 'done' }] }, lastChunk: true },
      });
      send(res, b.id, { statusUpdate: { taskId: 'up-1', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } });
      res.end();
    });
    const { body } = await rpc(gw.url, 'SendMessage', reconcile);
    expect(body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(body.result.task.artifacts).toEqual([expect.objectContaining({ artifactId: 'late', parts: [{ text: 'done' }] })]);
    expect(up.received.map((r) => [r.body.method, r.body.params.id])).toEqual([
      ['SendMessage', undefined],
      ['SubscribeToTask', 'up-1'],
    ]);
    expect(up.received[1].authorization).toBe('Bearer exchanged-for-reconcile-invoice');
  });

  it('reads the task as it stands when it ended before the subscription (GetTask), and completes with it', async () => {
    const { up, gw } = await start((_q, res, b) => {
      if (b.method === 'SendMessage')
        return answer(res, b.id, { task: { id: 'up-2', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } });
      if (b.method === 'GetTask') {
        const artifacts = [{ artifactId: 'g1', parts: [{ text: 'read back' }] }];
        return answer(res, b.id, { id: 'up-2', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' }, artifacts });
      }
      // SubscribeToTask on a task that ended: refused, as the SDK does.
      answer(res, b.id, undefined);
    });
    const { body } = await rpc(gw.url, 'SendMessage', reconcile);
    expect(body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(body.result.task.artifacts).toEqual([expect.objectContaining({ artifactId: 'g1', parts: [{ text: 'read back' }] })]);
    expect(up.received.map((r) => r.body.method)).toEqual(['SendMessage', 'SubscribeToTask', 'GetTask']);
    expect(up.received[2].body.params).toEqual({ id: 'up-2' });
  });

  it.each<[string, Behaviour, string]>([
    [
      'an answer for another request',
      (_q, res) => answer(res, 'not-the-id', { task: { id: 'up-1', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } }),
      'for another request',
    ],
    [
      'invalid JSON',
      (_q, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"jsonrpc": "2.0", hunter2');
      },
      'not JSON',
    ],
    ['an answer without a result', (_q, res, b) => answer(res, b.id, 'hunter2'), 'JSON-RPC answer without a result'],
    [
      'an oversized answer',
      (_q, res, b) =>
        answer(res, b.id, {
          task: {
            id: 'up-1',
            contextId: 'c',
            status: { state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'x'.repeat(10_000) }] } },
          },
        }),
      'larger than 4096',
    ],
    [
      'a connection lost in the middle of the answer',
      (_q, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
        res.write('{"jsonrpc":"2.0",');
        setTimeout(() => res.socket?.destroy(), 20);
      },
      'lost',
    ],
    ['no answer within the request timeout', () => undefined, 'did not answer within 1500 ms'],
    [
      'an answer begun but not finished within the request timeout',
      (_q, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"jsonrpc":"2.0",');
      },
      'did not answer within 1500 ms',
    ],
    [
      'an answer that is not JSON',
      (_q, res) => {
        res.writeHead(200, { 'content-type': 'text/html; hunter2' });
        res.end('<html>hunter2</html>');
      },
      'without a JSON content type',
    ],
    [
      'a JSON-RPC error with internal details',
      (_q, res, b) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: b.id, error: { code: -32603, message: 'db password hunter2 at 10.0.0.5' } }));
      },
      'refused the message',
    ],
    ['an answer of an unknown kind', (_q, res, b) => answer(res, b.id, { hunter2: { id: 'up-1' } }), 'unknown kind'],
    [
      'an answer about a task still working whose subscription is refused',
      (_q, res, b) => {
        if (b.method === 'SendMessage')
          return answer(res, b.id, { task: { id: 'up-1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } });
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":"hunter2"}');
      },
      'HTTP 404',
    ],
    [
      'a redirect',
      (_q, res) => {
        res.writeHead(307, { location: 'http://169.254.169.254/' });
        res.end();
      },
      'HTTP 307',
    ],
  ])('ends a task whose caller waits with a clear error on %s, leaking nothing', async (_name, behaviour, words) => {
    const { up, gw } = await start(behaviour);
    const { body, headers } = await rpc(gw.url, 'SendMessage', reconcile);
    expect(up.received[0].body.method).toBe('SendMessage');
    const task = body.result.task;
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    const text = JSON.stringify(task);
    expect(text).toContain('the upstream agent did not complete this task');
    expect(text).toContain(words);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('zebra');
    expect(headers.get('x-upstream-secret')).toBeNull();
  });
});
