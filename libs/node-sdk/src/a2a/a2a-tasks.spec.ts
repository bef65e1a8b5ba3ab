/**
 * Tasks on the A2A layer (issue 12), each failure of the review reproduced: anonymous callers
 * are not one owner, owner keys do not collide, nesting and bytes are bounded, ListTasks pages
 * by cursor and filters by time, and SendStreamingMessage / SubscribeToTask stream over SSE.
 * Real Fastify, in-memory store and event bus (the Redis ones have their own spec).
 */
import type { FastifyInstance } from 'fastify';
import { mintA2AToken } from '@cp/auth';
import { buildNodeBundle, financeAgentExample, type RegistrySnapshot } from '@cp/capabilities';
import { ActiveBundle } from '../active-bundle';
import { completedWith, serveTestA2A, testConfig as config } from '../testing/a2a-test-node';
import type { A2AService } from './a2a-service';
import { HandlerRegistry, type Handler } from './handler-registry';
import type { ServedBundle } from './served-bundle';
import { InMemoryTaskEvents } from './task-events';
import { InMemoryTaskStore, ANONYMOUS_OWNER, ownerKey, type TaskStoreLimits } from './task-store';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function snapshot(streaming = true): RegistrySnapshot {
  const f = financeAgentExample();
  return {
    agentId: 'finance-agent',
    revision: 1,
    agent: { ...f.agent, protocol: { ...f.agent.protocol, streaming } },
    manifests: f.manifests,
    previewTenants: [],
  };
}

interface Served {
  app: FastifyInstance;
  url: string;
  store: InMemoryTaskStore;
  events: InMemoryTaskEvents;
  service: A2AService;
}

let gate: Promise<void> = Promise.resolve();

const reconcile: Handler = async (ctx) => {
  await ctx.updates.progress('matching lines');
  await gate;
  if (ctx.text.includes('HUGE')) return { state: 'completed', artifacts: [{ parts: [{ text: 'x'.repeat(20_000) }] }] };
  return { state: 'completed', artifacts: [{ name: 'reconciliation', parts: [{ data: { matched: true } }] }] };
};

async function serve(
  options: {
    streaming?: boolean;
    limits?: Partial<TaskStoreLimits>;
    clock?: () => number;
    maxStreams?: number;
    tightened?: boolean;
    events?: InMemoryTaskEvents;
  } = {},
): Promise<Served> {
  const store = new InMemoryTaskStore(
    { maxTaskBytes: 16_384, maxOwnerBytes: 200_000, retentionMs: 60_000, ...options.limits },
    options.clock ?? Date.now,
  );
  const events = options.events ?? new InMemoryTaskEvents();
  const full = new ActiveBundle(buildNodeBundle(snapshot(options.streaming ?? true)));
  let bundle: ServedBundle = full;
  if (options.tightened) {
    // Routing sees reconcile-invoice; the execution policy requires a scope nobody has.
    const f = financeAgentExample();
    const manifests = f.manifests.map((m) => (m.id === 'reconcile-invoice' ? { ...m, requiresScopes: ['recon.admin'] } : m));
    const tight = new ActiveBundle(buildNodeBundle({ ...snapshot(options.streaming ?? true), revision: 2, manifests }));
    bundle = {
      revision: 2,
      publicCard: full.publicCard,
      extendedCardFor: (c) => full.extendedCardFor(c),
      routerIndexFor: (c) => full.routerIndexFor(c),
      policy: tight.policy,
      entitlementContext: tight.entitlementContext,
    };
  }
  const handlers = new HandlerRegistry().register('invoices.v1.lookup', completedWith()).register('recon.v3.reconcile', reconcile);
  const { app, url, service } = await serveTestA2A({
    bundle: () => bundle,
    handlers,
    tasks: store,
    events,
    maxBodyBytes: 1_000_000,
    limits: { maxJsonDepth: 32, maxPartBytes: 32_000, historyPartMaxBytes: 1024, maxStreams: options.maxStreams ?? 100 },
  });
  return { app, url, store, events, service };
}

const rpc = async (url: string, method: string, params: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
};

/** The whole SSE body of a stream that ends by itself, as parsed `data:` payloads. */
async function sse(
  url: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string | null; events: Json[] }> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', accept: 'text/event-stream', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const events = text
    .split('\n\n')
    .map((frame) => frame.split('\n').find((l) => l.startsWith('data: ')))
    .filter((l): l is string => l !== undefined)
    .map((l) => JSON.parse(l.slice(6)) as Json);
  return { status: res.status, type: res.headers.get('content-type'), events: events.length > 0 ? events : [JSON.parse(text) as Json] };
}

const token = (subject: string, tenant: string, scopes: string[] = []) => ({
  authorization: `Bearer ${mintA2AToken(config, subject, tenant, scopes)}`,
});
const partner = () => token('p@acme', 'acme-partner', ['recon.run']);
let n = 0;
const msg = (text: string, extra: Json = {}) => ({ message: { messageId: `m${++n}`, role: 'ROLE_USER', parts: [{ text }], ...extra } });
const LOOKUP = 'What is the status of invoice INV-20931?';
const RECON = 'reconcile invoice INV-1 against its PO';

async function until<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** An SSE response read event by event. `done()` drains and tells whether the server ended it. */
async function openSse(url: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', accept: 'text/event-stream', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: abort.signal,
  });
  if (res.headers.get('content-type') !== 'text/event-stream') throw new Error(`not a stream: ${res.status} ${await res.text()}`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const next = async (): Promise<Json> => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = frame.split('\n').find((l) => l.startsWith('data: '));
        if (data) return JSON.parse(data.slice(6)) as Json;
        continue;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error('stream ended');
      buffer += decoder.decode(value, { stream: true });
    }
  };
  const done = async (): Promise<boolean> => {
    for (;;) {
      const r = await reader.read();
      if (r.done) return true;
    }
  };
  return { next, done, abort: () => abort.abort() };
}

function nested(depth: number): Json {
  let v: Json = { leaf: true };
  for (let i = 1; i < depth; i++) v = { a: v };
  return v;
}

describe('A2A tasks', () => {
  const servers: FastifyInstance[] = [];
  let s: Served;
  beforeAll(async () => {
    s = await serve();
    servers.push(s.app);
  });
  afterAll(async () => {
    for (const x of servers) await x.close();
  });

  describe('anonymous callers', () => {
    it('get no ListTasks: another anonymous client never sees their tasks listed', async () => {
      const created = await rpc(s.url, 'SendMessage', msg(LOOKUP));
      expect(created.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      const listed = await rpc(s.url, 'ListTasks', {});
      expect(listed.status).toBe(401);
      expect(listed.body.error).toMatchObject({ code: -32000, data: [{ reason: 'TOKEN_MISSING' }] });
      expect(JSON.stringify(listed.body)).not.toContain(created.body.result.task.id);
      const rest = await fetch(`${s.url}/a2a/rest/tasks`, { headers: { 'a2a-version': '1.0' } });
      expect(rest.status).toBe(401);
    });

    it('reach an anonymous task only by its id; a token holder cannot reach it, nor an anonymous caller theirs', async () => {
      const anon = (await rpc(s.url, 'SendMessage', msg(LOOKUP))).body.result.task;
      expect(anon.id).toMatch(/^[0-9a-f-]{36}$/);
      expect((await rpc(s.url, 'GetTask', { id: anon.id })).body.result.id).toBe(anon.id);
      expect((await rpc(s.url, 'GetTask', { id: anon.id }, partner())).body.error.code).toBe(-32001);
      const owned = (await rpc(s.url, 'SendMessage', msg(LOOKUP), partner())).body.result.task;
      expect((await rpc(s.url, 'GetTask', { id: owned.id })).body.error.code).toBe(-32001);
      expect((await rpc(s.url, 'CancelTask', { id: owned.id })).body.error.code).toBe(-32001);
    });
  });

  it('owner keys are unambiguous: tenant acme/x + subject y never sees tenant acme + subject x/y', async () => {
    const a = token('y', 'acme/x');
    const b = token('x/y', 'acme');
    const task = (await rpc(s.url, 'SendMessage', msg(LOOKUP), a)).body.result.task;
    expect((await rpc(s.url, 'GetTask', { id: task.id }, a)).body.result.id).toBe(task.id);
    expect((await rpc(s.url, 'GetTask', { id: task.id }, b)).body.error.code).toBe(-32001);
    expect((await rpc(s.url, 'ListTasks', {}, b)).body.result.tasks).toEqual([]);
    expect((await rpc(s.url, 'ListTasks', {}, a)).body.result.tasks.map((t: Json) => t.id)).toEqual([task.id]);
  });

  describe('nesting', () => {
    it('refuses 100,000-deep message.metadata as invalid params at parse time; nothing is stored and ListTasks keeps working', async () => {
      const before = s.store.size;
      const deep = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
      const body = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"d","role":"ROLE_USER","parts":[{"text":"${LOOKUP}"}],"metadata":${deep}}}}`;
      const res = await fetch(`${s.url}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body,
      });
      const json = (await res.json()) as Json;
      expect(res.status).toBe(200);
      expect(json.error).toMatchObject({ code: -32602, message: 'params: nests deeper than 32 levels' });
      expect(s.store.size).toBe(before);
      expect((await rpc(s.url, 'ListTasks', {}, partner())).body.result).toBeDefined();
    });

    it('accepts 32 levels in message metadata and refuses 33; a deep data part is refused on REST too', async () => {
      // params (1) → message (2) → metadata: nested(d) reaches d + 2 levels.
      const meta = (depth: number) => msg(LOOKUP, { metadata: nested(depth) });
      const ok = await rpc(s.url, 'SendMessage', meta(30));
      expect(ok.body.error).toBeUndefined();
      expect(ok.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect((await rpc(s.url, 'SendMessage', meta(31))).body.error).toMatchObject({
        code: -32602,
        message: 'params: nests deeper than 32 levels',
        data: [{ reason: 'INVALID_PARAMS' }],
      });
      expect((await rpc(s.url, 'ListTasks', { metadata: nested(40) }, partner())).body.error.code).toBe(-32602);
      const rest = await fetch(`${s.url}/a2a/rest/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0' },
        body: JSON.stringify({ message: { messageId: 'dp', role: 'ROLE_USER', parts: [{ text: LOOKUP }, { data: nested(40) }] } }),
      });
      expect(rest.status).toBe(400);
      expect(((await rest.json()) as Json).error).toMatchObject({
        status: 'INVALID_ARGUMENT',
        message: 'params: nests deeper than 32 levels',
      });
    });
  });

  describe('bytes', () => {
    it('refuses a part over the part limit with PART_TOO_LARGE and a body over the body limit with 413; nothing stored', async () => {
      const before = s.store.size;
      const big = await rpc(s.url, 'SendMessage', {
        message: { messageId: 'b', role: 'ROLE_USER', parts: [{ text: LOOKUP }, { text: 'y'.repeat(40_000) }] },
      });
      expect(big.body.error).toMatchObject({
        code: -32000,
        message: 'params.message.parts[1]: the part is 40011 bytes; a part may be at most 32000',
        data: [{ reason: 'PART_TOO_LARGE' }],
      });
      const body = await rpc(s.url, 'SendMessage', {
        message: { messageId: 'c', role: 'ROLE_USER', parts: [{ text: 'z'.repeat(1_100_000) }] },
      });
      expect(body.status).toBe(413);
      expect(body.body.error.data[0].reason).toBe('PAYLOAD_TOO_LARGE');
      expect(s.store.size).toBe(before);
    });

    it('keeps a large part out of stored history (the handler still saw it)', async () => {
      const pdf = { raw: Buffer.alloc(6000, 7).toString('base64'), mediaType: 'application/pdf', filename: 'INV-20931.pdf' };
      const r = await rpc(s.url, 'SendMessage', { message: { messageId: 'h', role: 'ROLE_USER', parts: [{ text: LOOKUP }, pdf] } });
      const task = (await rpc(s.url, 'GetTask', { id: r.body.result.task.id })).body.result;
      const stored = task.history[0].parts[1];
      expect(stored.raw).toBeUndefined();
      expect(stored).toMatchObject({
        text: '[part of 8067 bytes not kept in history]',
        metadata: { omitted: { bytes: 8067, mediaType: 'application/pdf', filename: 'INV-20931.pdf' } },
      });
    });

    it('a result over the per-task limit leaves the task FAILED, not half-stored', async () => {
      const r = await rpc(s.url, 'SendMessage', msg(`${RECON} HUGE`), partner());
      expect(r.body.result.task.status.state).toBe('TASK_STATE_FAILED');
      expect(r.body.result.task.status.message.parts[0].text).toMatch(
        /^the result was not kept: the task would hold \d+ bytes; a task may hold at most 16384$/,
      );
      expect(r.body.result.task.artifacts).toBeUndefined();
    });

    it('refuses a named owner past its limit (OWNER_QUOTA_EXCEEDED), storing nothing; the anonymous pool evicts its oldest instead', async () => {
      const small = await serve({ limits: { maxOwnerBytes: 6_000 } });
      servers.push(small.app);
      const me = token('budget', 'acme');
      const answers: Json[] = [];
      for (let i = 0; i < 12; i++) answers.push((await rpc(small.url, 'SendMessage', msg(LOOKUP), me)).body);
      const refused = answers.filter((a) => a.error);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused[0].error).toMatchObject({ code: -32000, data: [{ reason: 'OWNER_QUOTA_EXCEEDED' }] });
      // Anonymous callers share one pool: every call is served, the oldest tasks make room (ADR 0201).
      const anonymous: Json[] = [];
      for (let i = 0; i < 12; i++) anonymous.push((await rpc(small.url, 'SendMessage', msg(LOOKUP))).body);
      expect(anonymous.filter((a) => a.error)).toEqual([]);
      expect(small.store.bytesOf(ANONYMOUS_OWNER)).toBeLessThanOrEqual(6_000);
      const first = await rpc(small.url, 'GetTask', { id: anonymous[0].result.task.id });
      expect(first.body.error).toMatchObject({ code: -32001 });
      const last = await rpc(small.url, 'GetTask', { id: anonymous[11].result.task.id });
      expect(last.body.result.id).toBe(anonymous[11].result.task.id);
      // Another owner has a budget of its own.
      expect((await rpc(small.url, 'SendMessage', msg(LOOKUP), partner())).body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    });
  });

  describe('ListTasks', () => {
    it('pages by an opaque cursor: a task created between pages is not returned twice', async () => {
      const me = token('pager', 'acme');
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        ids.push((await rpc(s.url, 'SendMessage', msg(LOOKUP), me)).body.result.task.id);
        await new Promise((r) => setTimeout(r, 5));
      }
      const first = (await rpc(s.url, 'ListTasks', { pageSize: 2 }, me)).body.result;
      expect(first.tasks.map((t: Json) => t.id)).toEqual([ids[2], ids[1]]);
      expect(first.totalSize).toBe(3);
      expect(first.nextPageToken).not.toMatch(/^\d+$/);
      await rpc(s.url, 'SendMessage', msg(LOOKUP), me);
      const second = (await rpc(s.url, 'ListTasks', { pageSize: 2, pageToken: first.nextPageToken }, me)).body.result;
      expect(second.tasks.map((t: Json) => t.id)).toEqual([ids[0]]);
      expect(second.nextPageToken).toBe('');
      for (const bad of ['2', 'not a token', 'W10', 'x'.repeat(600)]) {
        expect((await rpc(s.url, 'ListTasks', { pageToken: bad }, me)).body.error).toMatchObject({
          code: -32602,
          message: 'params.pageToken: must be a token from a previous page',
        });
      }
    });

    it('honours statusTimestampAfter and refuses an invalid one', async () => {
      const me = token('timer', 'acme');
      const old = (await rpc(s.url, 'SendMessage', msg(LOOKUP), me)).body.result.task;
      await new Promise((r) => setTimeout(r, 20));
      const mid = new Date().toISOString();
      await new Promise((r) => setTimeout(r, 20));
      const recent = (await rpc(s.url, 'SendMessage', msg(LOOKUP), me)).body.result.task;
      const after = (await rpc(s.url, 'ListTasks', { statusTimestampAfter: mid }, me)).body.result;
      expect(after.tasks.map((t: Json) => t.id)).toEqual([recent.id]);
      expect(after.tasks.map((t: Json) => t.id)).not.toContain(old.id);
      const rest = await fetch(`${s.url}/a2a/rest/tasks?statusTimestampAfter=${encodeURIComponent(mid)}`, {
        headers: { 'a2a-version': '1.0', ...me },
      });
      expect(((await rest.json()) as Json).tasks.map((t: Json) => t.id)).toEqual([recent.id]);
      for (const bad of ['yesterday', '2026-13-45T99:00:00Z', 12, '2026-11-30']) {
        expect((await rpc(s.url, 'ListTasks', { statusTimestampAfter: bad }, me)).body.error).toMatchObject({
          code: -32602,
          data: [{ metadata: { field: 'params.statusTimestampAfter' } }],
        });
      }
    });
  });

  describe('streaming', () => {
    it('SendStreamingMessage (JSON-RPC): the Task, working, progress, the artifact, then completed', async () => {
      const r = await sse(
        s.url,
        '/a2a/jsonrpc',
        { jsonrpc: '2.0', id: 'st', method: 'SendStreamingMessage', params: msg(RECON) },
        partner(),
      );
      expect(r.type).toBe('text/event-stream');
      expect(r.events.every((e) => e.jsonrpc === '2.0' && e.id === 'st')).toBe(true);
      const results = r.events.map((e) => e.result);
      expect(Object.keys(results[0])).toEqual(['task']);
      expect(results[0].task.status.state).toBe('TASK_STATE_SUBMITTED');
      const kinds = results.slice(1).map((x) => (x.statusUpdate ? x.statusUpdate.status.state : 'artifact'));
      expect(kinds).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_WORKING', 'artifact', 'TASK_STATE_COMPLETED']);
      expect(results[2].statusUpdate.status.message.parts[0].text).toBe('matching lines');
      expect(results[3].artifactUpdate).toMatchObject({
        taskId: results[0].task.id,
        lastChunk: true,
        artifact: { name: 'reconciliation' },
      });
      // The task's metadata (how it was routed) is the Task's, shown once; an update says its status only (ADR 0400).
      expect(results[0].task.metadata.routing).toMatchObject({ capabilityId: 'reconcile-invoice' });
      for (const x of results.filter((r) => r.statusUpdate))
        expect(Object.keys(x.statusUpdate).sort()).toEqual(['contextId', 'status', 'taskId']);
      expect(s.events.listenerCount).toBe(0);
    });

    it('starts the handler before the stream’s subscription is confirmed; the stream still carries every event, in order (ADR 0355)', async () => {
      /** A bus whose subscriptions are confirmed only when released (the listener is in place at once, as on Redis). */
      class HeldSubscriptions extends InMemoryTaskEvents {
        release: () => void = () => undefined;
        private readonly held = new Promise<void>((resolve) => (this.release = resolve));
        override async subscribe(taskId: string, listener: Parameters<InMemoryTaskEvents['subscribe']>[1]) {
          const unsubscribe = await super.subscribe(taskId, listener);
          await this.held;
          return unsubscribe;
        }
      }
      const events = new HeldSubscriptions();
      const held = await serve({ events });
      let open = () => undefined as void;
      gate = new Promise<void>((resolve) => (open = resolve));
      try {
        const streamed = sse(
          held.url,
          '/a2a/jsonrpc',
          { jsonrpc: '2.0', id: 'h', method: 'SendStreamingMessage', params: msg(RECON) },
          partner(),
        );
        // The handler's progress is stored while the subscription is still unconfirmed.
        const progressed = async () => {
          const page = await held.store.list(ownerKey({ tenant: 'acme-partner', principal: 'p@acme' }), { pageSize: 10 });
          return page.records.some((r) => JSON.stringify(r.task.status).includes('matching lines'));
        };
        for (let i = 0; i < 200 && !(await progressed()); i++) await new Promise((r) => setTimeout(r, 10));
        expect(await progressed()).toBe(true);
        events.release();
        open();
        const results = (await streamed).events.map((e) => e.result);
        expect(results[0].task.status.state).toBe('TASK_STATE_SUBMITTED');
        const kinds = results.slice(1).map((x) => (x.statusUpdate ? x.statusUpdate.status.state : 'artifact'));
        expect(kinds).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_WORKING', 'artifact', 'TASK_STATE_COMPLETED']);
        expect(events.listenerCount).toBe(0);
      } finally {
        open();
        gate = Promise.resolve();
        await held.app.close();
      }
    });

    it('SendStreamingMessage (REST): bare StreamResponse events; refusals are plain errors before any event', async () => {
      const r = await sse(s.url, '/a2a/rest/message:stream', msg(RECON), partner());
      expect(r.events[0].task.id).toBeDefined();
      expect(r.events.at(-1)!.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    });

    it('checks entitlement before the first event exactly as SendMessage: the same error, no stream, no task', async () => {
      const t = await serve({ tightened: true });
      servers.push(t.app);
      const plain = await rpc(t.url, 'SendMessage', msg(RECON), partner());
      expect(plain.body.error).toMatchObject({ code: -32004, data: [{ reason: 'CAPABILITY_UNAVAILABLE' }] });
      const rpcRefused = await sse(
        t.url,
        '/a2a/jsonrpc',
        { jsonrpc: '2.0', id: 7, method: 'SendStreamingMessage', params: msg(RECON) },
        partner(),
      );
      expect(rpcRefused.type).toMatch(/^application\/json/);
      expect(rpcRefused.events[0].error).toEqual(plain.body.error);
      const restRefused = await sse(t.url, '/a2a/rest/message:stream', msg(RECON), partner());
      expect(restRefused.status).toBe(400);
      expect(restRefused.type).toMatch(/^application\/a2a\+json/);
      expect(restRefused.events[0].error.details[0].reason).toBe('CAPABILITY_UNAVAILABLE');
      expect(t.store.size).toBe(0);
      expect(t.events.listenerCount).toBe(0);
      expect(t.service.openStreams).toBe(0);
    });

    it('SubscribeToTask: the current Task first, then the rest; terminal → UnsupportedOperation; another owner → TaskNotFound', async () => {
      let open!: () => void;
      gate = new Promise((r) => (open = r));
      const sent = rpc(s.url, 'SendMessage', msg(RECON), partner());
      const id = await until(async () => {
        const me = (await rpc(s.url, 'ListTasks', { status: 'TASK_STATE_WORKING' }, partner())).body.result.tasks;
        return me.find((t: Json) => t.status.message?.parts[0].text === 'matching lines')?.id as string | undefined;
      });
      const sub = await openSse(s.url, `/a2a/rest/tasks/${id}:subscribe`, undefined, partner());
      const first = await sub.next();
      expect(first.task).toMatchObject({ id, status: { state: 'TASK_STATE_WORKING' } });
      open();
      gate = Promise.resolve();
      const rest = [await sub.next(), await sub.next()];
      expect(rest[0].artifactUpdate.artifact.name).toBe('reconciliation');
      expect(rest[1].statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
      expect(first.task.metadata.routing.capabilityId).toBe('reconcile-invoice');
      expect(rest[1].statusUpdate.metadata).toBeUndefined();
      expect(await sub.done()).toBe(true);
      expect((await sent).body.result.task.status.state).toBe('TASK_STATE_COMPLETED');

      const terminal = await rpc(s.url, 'SubscribeToTask', { id }, partner());
      expect(terminal.body.error).toMatchObject({ code: -32004, data: [{ reason: 'UNSUPPORTED_OPERATION', metadata: { taskId: id } }] });
      expect((await rpc(s.url, 'SubscribeToTask', { id }, token('other', 'acme-partner'))).body.error.code).toBe(-32001);
      expect((await rpc(s.url, 'SubscribeToTask', { id })).body.error.code).toBe(-32001);
    });

    it('leaves no stream or listener behind when the client disconnects', async () => {
      let open!: () => void;
      gate = new Promise((r) => (open = r));
      const streams = await Promise.all(
        Array.from({ length: 5 }, () =>
          openSse(s.url, '/a2a/jsonrpc', { jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: msg(RECON) }, partner()),
        ),
      );
      for (const st of streams) expect((await st.next()).result.task).toBeDefined();
      expect(s.service.openStreams).toBe(5);
      expect(s.events.listenerCount).toBe(5);
      for (const st of streams) st.abort();
      await until(async () => s.service.openStreams === 0 && s.events.listenerCount === 0);
      open();
      gate = Promise.resolve();
    });

    it("refuses a stream past the node's stream limit with 503 TOO_MANY_STREAMS", async () => {
      const few = await serve({ maxStreams: 1 });
      servers.push(few.app);
      let open!: () => void;
      gate = new Promise((r) => (open = r));
      const one = await openSse(few.url, '/a2a/rest/message:stream', msg(RECON), partner());
      await one.next();
      const two = await rpc(few.url, 'SendStreamingMessage', msg(RECON), partner());
      expect(two.status).toBe(503);
      expect(two.body.error.data[0].reason).toBe('TOO_MANY_STREAMS');
      open();
      gate = Promise.resolve();
      expect(await one.done()).toBe(true);
    });

    it('takes the stream slot before the task is saved: of two streams racing for the last slot, the refused one stores nothing (ADR 0377)', async () => {
      const few = await serve({ maxStreams: 1 });
      servers.push(few.app);
      let open!: () => void;
      gate = new Promise((r) => (open = r));
      // Both pass the early check together (no stream is open yet); only one gets the slot.
      const [one, two] = await Promise.all([
        few.service.sendStreamingMessage(msg(RECON), { caller: financeAgentExample().callers.partner }, []).then(
          (stream) => ({ stream }),
          (error: unknown) => ({ error }),
        ),
        few.service.sendStreamingMessage(msg(RECON), { caller: financeAgentExample().callers.partner }, []).then(
          (stream) => ({ stream }),
          (error: unknown) => ({ error }),
        ),
      ]);
      const refused = [one, two].filter((r) => 'error' in r);
      expect(refused).toHaveLength(1);
      expect((refused[0] as { error: { reason?: string } }).error.reason).toBe('TOO_MANY_STREAMS');
      const owner = ownerKey(financeAgentExample().callers.partner);
      expect((await few.store.list(owner, { pageSize: 10 })).records).toHaveLength(1);
      expect(few.service.openStreams).toBe(1);
      open();
      gate = Promise.resolve();
      const stream = ([one, two].find((r) => 'stream' in r) as { stream: AsyncIterable<unknown> }).stream;
      for await (const _event of stream) void _event;
      await until(async () => few.service.openStreams === 0 && few.events.listenerCount === 0);
    });

    it('answers a malformed task id in a REST path 400 on get, cancel and subscribe, never 500', async () => {
      const h = { 'a2a-version': '1.0', ...partner() };
      for (const [method, path] of [
        ['GET', '/a2a/rest/tasks/%E0%A4%A'],
        ['POST', '/a2a/rest/tasks/%E0%A4%A:cancel'],
        ['POST', '/a2a/rest/tasks/%E0%A4%A:subscribe'],
      ] as const) {
        const res = await fetch(`${s.url}${path}`, { method, headers: h });
        expect(res.status).toBe(400);
        // Fastify's router refuses most malformed paths itself; ours catches what reaches the routes.
        expect(await res.text()).not.toMatch(/internal/i);
      }
    });

    it('refuses both streaming operations when the card does not declare streaming', async () => {
      const off = await serve({ streaming: false });
      servers.push(off.app);
      const r = await rpc(off.url, 'SendStreamingMessage', msg(LOOKUP));
      expect(r.body.error).toMatchObject({ code: -32004, message: 'this agent does not declare streaming (capabilities.streaming)' });
      const rest = await fetch(`${off.url}/a2a/rest/tasks/abc:subscribe`, { method: 'POST', headers: { 'a2a-version': '1.0' } });
      expect(rest.status).toBe(400);
      expect(((await rest.json()) as Json).error.details[0].reason).toBe('UNSUPPORTED_OPERATION');
    });
  });
});
