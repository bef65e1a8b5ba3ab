/**
 * A thin, bounded A2A 1.0 client for a gateway node's upstream agents (issue 28, ADR 0230): a
 * streamed SendStreamingMessage or SubscribeToTask, a SendMessage answered at once (ADR 0350), and
 * CancelTask, on JSON-RPC or HTTP+JSON. Every connection goes to an address checked with the
 * webhook SSRF rules (resolveAndCheck, the socket's lookup pinned to it, the agent's platform-admin
 * upstreamAllow the only way to a private address), redirects are never followed, each SSE event
 * and each answer are bounded in bytes, an answer (or a stream's first bytes) must come within the
 * request timeout, a silent stream ends at the idle timeout, and nothing of the upstream's headers
 * is ever read beyond the status and content type.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { randomUUID } from 'node:crypto';
import { resolveAndCheck, type HostResolver } from '@cp/common/core';
import { upstreamTimeouts, type UpstreamSpec } from '@cp/capabilities';
import type { WireMessage } from '../wire-types';
import { malformed, protocolOf, type UpstreamProtocol } from './upstream-protocol';

export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';
}

export interface UpstreamCall {
  spec: UpstreamSpec;
  /** The exchanged token (never the caller's, never the node's own). */
  token?: string;
  allow: readonly string[];
  resolve?: HostResolver;
  /** Largest single SSE event and largest non-streamed answer, in bytes. */
  maxEventBytes: number;
  signal?: AbortSignal;
}

const pinned = (address: string, family: 4 | 6): LookupFunction =>
  ((_h: string, o: { all?: boolean }, cb: (...a: unknown[]) => void) =>
    o?.all ? cb(null, [{ address, family }]) : cb(null, address, family)) as LookupFunction;

/**
 * Keep-alive sockets, one pool per checked address (ADR 0271): a pooled socket was connected to
 * the address that passed the SSRF check for that very host, so reusing it never reaches an
 * address the check did not pass (a DNS answer that changes selects another pool). Bounded: the
 * oldest pool is closed when there are more than MAX_POOLS.
 */
const MAX_POOLS = 256;
const pools = new Map<string, http.Agent>();
function poolFor(target: URL, address: string): http.Agent {
  const key = `${target.protocol}//${target.host}@${address}`;
  let agent = pools.get(key);
  if (!agent) {
    const options = { keepAlive: true, maxSockets: 256, maxFreeSockets: 64, scheduling: 'lifo' as const };
    agent = target.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    pools.set(key, agent);
    if (pools.size > MAX_POOLS) {
      const [oldest, pool] = pools.entries().next().value!;
      pools.delete(oldest);
      pool.destroy();
    }
  }
  return agent;
}

const joinPath = (base: string, path: string) => `${base.replace(/\/+$/, '')}${path}`;

/** One request to the checked address (`body` undefined: a GET); resolves with the response once its head arrived. */
async function open(
  call: UpstreamCall,
  url: string,
  body: unknown,
  accept: string,
): Promise<{ res: http.IncomingMessage; abort: () => void }> {
  const target = new URL(url);
  const checked = await resolveAndCheck(target, { allow: call.allow, resolve: call.resolve, purpose: 'upstream' });
  if (!checked.ok) throw new UpstreamError(`the upstream address is not allowed: ${checked.reason}`);
  const timeouts = upstreamTimeouts(call.spec);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(target, {
      method: payload === undefined ? 'GET' : 'POST',
      headers: {
        ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }),
        accept,
        ...(call.token ? { authorization: `Bearer ${call.token}` } : {}),
        'a2a-version': call.spec.version,
      },
      lookup: pinned(checked.address, checked.family),
      // Pooled per checked address: every call is checked on its own (DNS rebinding), sockets are reused.
      agent: poolFor(target, checked.address),
    });
    const connect = setTimeout(
      () => req.destroy(new UpstreamError('the upstream did not accept the connection in time')),
      timeouts.connect,
    );
    // The answer's head (a stream's first bytes) must come within the request timeout.
    const head = setTimeout(
      () => req.destroy(new UpstreamError(`the upstream did not answer within ${timeouts.request} ms`)),
      timeouts.request,
    );
    // A pooled socket is connected already: no connect event will come.
    req.on('socket', (s) => (s.connecting ? s.once('connect', () => clearTimeout(connect)) : clearTimeout(connect)));
    const onAbort = () => req.destroy(new UpstreamError('the upstream call was canceled'));
    call.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (e) => {
      clearTimeout(connect);
      clearTimeout(head);
      call.signal?.removeEventListener('abort', onAbort);
      reject(
        e instanceof UpstreamError
          ? e
          : new UpstreamError(`the upstream could not be reached (${(e as NodeJS.ErrnoException).code ?? 'error'})`),
      );
    });
    req.on('response', (res) => {
      clearTimeout(connect);
      clearTimeout(head);
      // A response read to its end leaves its socket to the pool; anything else closes it.
      resolve({
        res,
        abort: () => {
          call.signal?.removeEventListener('abort', onAbort);
          if (!res.complete) req.destroy();
        },
      });
    });
    req.end(payload);
  });
}

/**
 * One upstream object (an SSE event's data, or a whole answer) as the 1.0 StreamResponse it means,
 * whatever the upstream speaks (a 0.3 upstream's are translated). JSON-RPC wraps it in `{ result }`
 * under the request's id; an upstream error (either binding) is an UpstreamError with a bounded
 * message, never the upstream's own words.
 */
function translate(text: string, rpcId: string | undefined, protocol: UpstreamProtocol, noun: 'event' | 'answer'): Record<string, unknown> {
  const what = `an ${noun}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UpstreamError(`the upstream sent ${what} that is not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new UpstreamError(`the upstream sent ${what} that is not an object`);
  const o = parsed as Record<string, unknown>;
  let event: Record<string, unknown>;
  if (rpcId !== undefined) {
    if (o.id !== rpcId) throw new UpstreamError(`the upstream sent ${what} for another request`);
    if (o.error !== undefined) throw new UpstreamError('the upstream refused the message');
    if (typeof o.result !== 'object' || o.result === null || Array.isArray(o.result))
      throw new UpstreamError(`the upstream sent a JSON-RPC ${noun} without a result`);
    event = o.result as Record<string, unknown>;
  } else {
    // A 0.3 REST stream reports a failure as a bare `{code, message}` event.
    if (o.error !== undefined || (typeof o.code === 'number' && typeof o.message === 'string'))
      throw new UpstreamError('the upstream refused the message');
    event = o;
  }
  try {
    return protocol.event(event);
  } catch (error) {
    const reason = malformed(error);
    throw reason ? new UpstreamError(reason) : error;
  }
}

/** A JSON-RPC call to the upstream, or an HTTP+JSON POST to `path` below its URL: where and what to send. */
function request(call: UpstreamCall, method: string, path: string, params: unknown): { url: string; body: unknown; rpcId?: string } {
  if (call.spec.binding !== 'jsonrpc') return { url: joinPath(call.spec.url, path), body: params };
  const rpcId = randomUUID();
  return { url: call.spec.url, body: { jsonrpc: '2.0', id: rpcId, method, params }, rpcId };
}

/** The 1.0 StreamResponse objects of an upstream stream, one at a time. */
async function* streamed(call: UpstreamCall, req: { url: string; body: unknown; rpcId?: string }): AsyncGenerator<Record<string, unknown>> {
  const protocol = protocolOf(call.spec);
  const { res, abort } = await open(call, req.url, req.body, 'text/event-stream');
  try {
    const type = String(res.headers['content-type'] ?? '');
    if (res.statusCode !== 200 || !type.startsWith('text/event-stream')) {
      // Its body is never read into anything the caller sees: an upstream's errors are its own.
      throw new UpstreamError(`the upstream answered HTTP ${res.statusCode ?? 0}`);
    }
    for await (const data of sseData(res, call.maxEventBytes, upstreamTimeouts(call.spec).idle)) {
      yield translate(data, req.rpcId, protocol, 'event');
    }
  } finally {
    abort();
  }
}

/** SendStreamingMessage on the upstream: its events as 1.0 StreamResponse objects. */
export function streamMessage(
  call: UpstreamCall,
  message: WireMessage,
  acceptedOutputModes: readonly string[],
): AsyncGenerator<Record<string, unknown>> {
  const protocol = protocolOf(call.spec);
  return streamed(call, request(call, protocol.streamMethod, protocol.streamPath, protocol.send(message, acceptedOutputModes)));
}

/** SubscribeToTask on the upstream (a task its send answered before it ended): its events from now on. */
export function subscribeUpstream(call: UpstreamCall, upstreamTaskId: string): AsyncGenerator<Record<string, unknown>> {
  const protocol = protocolOf(call.spec);
  return streamed(call, request(call, protocol.subscribeMethod, protocol.subscribePath(upstreamTaskId), { id: upstreamTaskId }));
}

/**
 * SendMessage on the upstream, answered at once (ADR 0350): its one answer, a Task or a Message,
 * as a 1.0 StreamResponse. Bounded like any answer: its bytes, and the request timeout.
 */
export async function sendMessage(
  call: UpstreamCall,
  message: WireMessage,
  acceptedOutputModes: readonly string[],
): Promise<Record<string, unknown>> {
  const protocol = protocolOf(call.spec);
  const req = request(call, protocol.sendMethod, protocol.sendPath, protocol.send(message, acceptedOutputModes));
  return translate(await answerOf(call, req), req.rpcId, protocol, 'answer');
}

/**
 * GetTask on the upstream: the task as it stands, as a 1.0 StreamResponse `{ task }` (a task that
 * ended before the node could subscribe to it).
 */
export async function getUpstreamTask(call: UpstreamCall, upstreamTaskId: string): Promise<Record<string, unknown>> {
  const protocol = protocolOf(call.spec);
  const rpc = call.spec.binding === 'jsonrpc';
  const req = rpc
    ? request(call, protocol.getMethod, '', { id: upstreamTaskId })
    : { url: joinPath(call.spec.url, protocol.getPath(upstreamTaskId)), body: undefined };
  // The answer is the Task itself: wrapped as the StreamResponse that carries one (a 0.3 JSON-RPC task says so by its kind).
  const kinds = rpc && call.spec.version === '0.3';
  const wrapping: UpstreamProtocol = { ...protocol, event: (e) => protocol.event(kinds ? e : { task: e }) };
  return translate(await answerOf(call, req), req.rpcId, wrapping, 'answer');
}

/** The whole text of one JSON answer: HTTP 200, a JSON content type, bounded in bytes and time. */
async function answerOf(call: UpstreamCall, req: { url: string; body: unknown }): Promise<string> {
  const { res, abort } = await open(call, req.url, req.body, 'application/json');
  try {
    const type = String(res.headers['content-type'] ?? '');
    // 201: an HTTP+JSON send that created a task (the SDK's 0.3 REST server answers so).
    if (res.statusCode !== 200 && res.statusCode !== 201) throw new UpstreamError(`the upstream answered HTTP ${res.statusCode ?? 0}`);
    // Its content type is not repeated: nothing of the upstream's headers reaches the caller.
    if (!/^application\/(?:[\w.+-]*\+)?json\b/.test(type)) throw new UpstreamError('the upstream answered without a JSON content type');
    return await readBounded(res, call.maxEventBytes, upstreamTimeouts(call.spec).request);
  } finally {
    abort();
  }
}

/**
 * The id of the task a 1.0 upstream holds in `contextId` (ListTasks filtered by that context, one
 * task at most): a context the node chose for one new task, so the task it names is that one
 * (ADR 0371). Undefined when the upstream has none there (yet) or names none that is valid; an
 * UpstreamError when it refuses (a 0.3 upstream has no ListTasks: never asked).
 */
export async function findUpstreamTask(call: UpstreamCall, contextId: string): Promise<string | undefined> {
  if (call.spec.version !== '1.0') return undefined;
  const query = { contextId, pageSize: 1 };
  const req =
    call.spec.binding === 'jsonrpc'
      ? request(call, 'ListTasks', '', query)
      : { url: joinPath(call.spec.url, `/tasks?${new URLSearchParams({ contextId, pageSize: '1' }).toString()}`), body: undefined };
  const text = await answerOf(call, req);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UpstreamError('the upstream sent an answer that is not JSON');
  }
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  let listed = parsed;
  if (req.rpcId !== undefined) {
    if (!isObject(parsed) || parsed.id !== req.rpcId || parsed.error !== undefined)
      throw new UpstreamError('the upstream refused to list its tasks');
    listed = parsed.result;
  }
  const tasks = isObject(listed) && Array.isArray(listed.tasks) ? (listed.tasks as unknown[]) : [];
  const task = tasks.find((t): t is Record<string, unknown> => isObject(t) && t.contextId === contextId);
  const id = task?.id;
  return typeof id === 'string' && id !== '' && id.length <= 200 ? id : undefined;
}

/** CancelTask on the upstream (best effort: the node's task is canceled whatever it answers). */
export async function cancelUpstream(call: UpstreamCall, upstreamTaskId: string): Promise<void> {
  const protocol = protocolOf(call.spec);
  const params = { id: upstreamTaskId };
  const req = request(call, protocol.cancelMethod, protocol.cancelPath(upstreamTaskId), params);
  const { res, abort } = await open(call, req.url, req.body, 'application/json');
  try {
    await readBounded(res, call.maxEventBytes, upstreamTimeouts(call.spec).request);
  } finally {
    abort();
  }
}

/** A whole answer, at most `max` bytes, within `timeoutMs` of its head. */
function readBounded(res: http.IncomingMessage, max: number, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (error: UpstreamError) => {
      clearTimeout(timer);
      res.destroy();
      reject(error);
    };
    const timer = setTimeout(() => fail(new UpstreamError(`the upstream did not answer within ${timeoutMs} ms`)), timeoutMs);
    res.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) fail(new UpstreamError(`the upstream answer is larger than ${max} bytes`));
      else chunks.push(c);
    });
    res.on('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    res.on('error', () => fail(new UpstreamError('the upstream connection was lost')));
    res.on('close', () => {
      if (!res.complete) fail(new UpstreamError('the upstream connection was lost'));
    });
  });
}

/**
 * The `data` of each SSE event. An event larger than `max`, a silence longer than `idleMs` or a
 * connection lost before the stream ended is an UpstreamError.
 */
async function* sseData(res: http.IncomingMessage, max: number, idleMs: number): AsyncGenerator<string> {
  let buffer = '';
  let idle: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(idle);
    idle = setTimeout(() => res.destroy(new UpstreamError(`the upstream was silent for more than ${idleMs} ms`)), idleMs);
  };
  arm();
  res.setEncoding('utf8');
  try {
    for await (const chunk of res as AsyncIterable<string>) {
      arm();
      buffer += chunk;
      let at: number;
      while ((at = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const raw = buffer.slice(0, at);
        if (raw.length > max) throw new UpstreamError(`the upstream sent an event larger than ${max} bytes`);
        buffer = buffer.slice(at + (buffer[at] === '\r' ? 4 : 2));
        const data = raw
          .split(/\r?\n/)
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).replace(/^ /, ''))
          .join('\n');
        if (data !== '') yield data;
      }
      if (buffer.length > max) throw new UpstreamError(`the upstream sent an event larger than ${max} bytes`);
    }
  } catch (error) {
    throw error instanceof UpstreamError ? error : new UpstreamError('the upstream connection was lost');
  } finally {
    clearTimeout(idle);
  }
  if (!res.complete) throw new UpstreamError('the upstream connection was lost');
}
