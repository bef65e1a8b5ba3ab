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
import { randomUUID } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import ipaddr from 'ipaddr.js';
import { resolveAndCheck, type AddressCheckResult, type HostResolver } from '@cp/common/core';
import { upstreamTimeouts, type UpstreamSpec } from '@cp/capabilities';
import type { WireMessage } from '../wire-types';
import { HEADER_VALUE, httpRequest, UpstreamError, type HttpResponse, type HttpTarget } from './upstream-http';
import { malformed, protocolOf, type UpstreamProtocol } from './upstream-protocol';

export { UpstreamError };

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

const joinPath = (base: string, path: string) => `${base.replace(/\/+$/, '')}${path}`;

/** A URL's parts, parsed once per URL (bounded: the oldest goes first). */
const MAX_URLS = 1024;
const parsedUrls = new Map<string, URL>();
function parsed(url: string): URL {
  let target = parsedUrls.get(url);
  if (!target) {
    target = new URL(url);
    parsedUrls.set(url, target);
    if (parsedUrls.size > MAX_URLS) parsedUrls.delete(parsedUrls.keys().next().value!);
  }
  return target;
}

/**
 * The SSRF check of an upstream URL (resolveAndCheck, every rule of the webhooks'). A host that is
 * an address has nothing to resolve: its answer depends on the address and the allow list alone, so
 * it is kept per allow list (a new bundle's list is another array) and URL. A host name is resolved
 * and checked on every call (ADR 0271: a DNS answer that changes is seen at once).
 */
const checkedLiterals = new WeakMap<readonly string[], Map<string, AddressCheckResult | 'resolve'>>();
async function check(target: URL, call: UpstreamCall): Promise<AddressCheckResult> {
  let byUrl = checkedLiterals.get(call.allow);
  if (!byUrl) checkedLiterals.set(call.allow, (byUrl = new Map<string, AddressCheckResult | 'resolve'>()));
  let checked = byUrl.get(target.href);
  if (checked === undefined) {
    const literal = ipaddr.isValid(target.hostname.replace(/^\[|\]$/g, ''));
    checked = literal ? await resolveAndCheck(target, { allow: call.allow, purpose: 'upstream' }) : 'resolve';
    if (byUrl.size >= MAX_URLS) byUrl.clear();
    byUrl.set(target.href, checked);
  }
  return checked === 'resolve' ? resolveAndCheck(target, { allow: call.allow, resolve: call.resolve, purpose: 'upstream' }) : checked;
}

/**
 * Where a request to `target` goes once its host's address was checked, made once per URL and
 * checked address (a host name whose DNS answer changes gets another; at most MAX_TARGETS per URL).
 */
const MAX_TARGETS = 16;
const targets = new WeakMap<URL, Map<string, HttpTarget>>();
function httpTarget(target: URL, address: string): HttpTarget {
  let byAddress = targets.get(target);
  if (!byAddress) targets.set(target, (byAddress = new Map<string, HttpTarget>()));
  let t = byAddress.get(address);
  if (!t) {
    const https = target.protocol === 'https:';
    t = {
      https,
      hostname: target.hostname.replace(/^\[|\]$/g, ''),
      host: target.host,
      port: target.port === '' ? (https ? 443 : 80) : Number(target.port),
      address,
    };
    if (byAddress.size >= MAX_TARGETS) byAddress.clear();
    byAddress.set(address, t);
  }
  return t;
}

/**
 * One request to the checked address (`body` undefined: a GET); resolves with the response once its
 * head arrived. Keep-alive connections are pooled per checked address (ADR 0271, ADR 0385).
 */
async function open(call: UpstreamCall, url: string, body: unknown, accept: string): Promise<HttpResponse> {
  const target = parsed(url);
  const checked = await check(target, call);
  if (!checked.ok) throw new UpstreamError(`the upstream address is not allowed: ${checked.reason}`);
  const timeouts = upstreamTimeouts(call.spec);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  // The token comes from the control plane's exchange; a line break in it would be a header of its own.
  if (call.token !== undefined && !HEADER_VALUE.test(call.token)) throw new UpstreamError('the upstream token is not a valid header value');
  let headers = `accept: ${accept}\r\na2a-version: ${call.spec.version}\r\n`;
  if (payload !== undefined) headers += 'content-type: application/json\r\n';
  if (call.token) headers += `authorization: Bearer ${call.token}\r\n`;
  return httpRequest(httpTarget(target, checked.address), {
    method: payload === undefined ? 'GET' : 'POST',
    path: `${target.pathname}${target.search}`,
    headers,
    body: payload,
    connectTimeoutMs: timeouts.connect,
    headTimeoutMs: timeouts.request,
    signal: call.signal,
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
  const res = await open(call, req.url, req.body, 'text/event-stream');
  try {
    if (res.status !== 200 || !res.contentType.startsWith('text/event-stream')) {
      // Its body is never read into anything the caller sees: an upstream's errors are its own.
      throw new UpstreamError(`the upstream answered HTTP ${res.status}`);
    }
    for await (const data of sseData(res, call.maxEventBytes, upstreamTimeouts(call.spec).idle)) {
      yield translate(data, req.rpcId, protocol, 'event');
    }
  } finally {
    res.abort();
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
  const res = await open(call, req.url, req.body, 'application/json');
  try {
    // 201: an HTTP+JSON send that created a task (the SDK's 0.3 REST server answers so).
    if (res.status !== 200 && res.status !== 201) throw new UpstreamError(`the upstream answered HTTP ${res.status}`);
    // Its content type is not repeated: nothing of the upstream's headers reaches the caller.
    if (!/^application\/(?:[\w.+-]*\+)?json\b/.test(res.contentType))
      throw new UpstreamError('the upstream answered without a JSON content type');
    return await readBounded(res, call.maxEventBytes, upstreamTimeouts(call.spec).request);
  } finally {
    res.abort();
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
  const res = await open(call, req.url, req.body, 'application/json');
  try {
    await readBounded(res, call.maxEventBytes, upstreamTimeouts(call.spec).request);
  } finally {
    res.abort();
  }
}

/** A whole answer, at most `max` bytes, within `timeoutMs` of its head. */
function readBounded(res: HttpResponse, max: number, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const fail = (error: UpstreamError) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      res.abort();
      reject(error);
    };
    const timer = setTimeout(() => fail(new UpstreamError(`the upstream did not answer within ${timeoutMs} ms`)), timeoutMs);
    res.read({
      data: (c) => {
        if (done) return;
        size += c.length;
        if (size > max) fail(new UpstreamError(`the upstream answer is larger than ${max} bytes`));
        else chunks.push(c);
      },
      end: () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8'));
      },
      error: (e) => fail(e),
    });
  });
}

/** Unread text of an upstream stream past which its reading pauses (each event is bounded apart). */
const PAUSE_AT = 256 * 1024;

/**
 * The `data` of each SSE event. An event larger than `max`, a silence longer than `idleMs` or a
 * connection lost before the stream ended is an UpstreamError.
 */
async function* sseData(res: HttpResponse, max: number, idleMs: number): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let buffer = '';
  let ended = false;
  let failure: UpstreamError | undefined;
  let wake: (() => void) | undefined;
  let paused = false;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  let idle: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(idle);
    idle = setTimeout(() => {
      failure ??= new UpstreamError(`the upstream was silent for more than ${idleMs} ms`);
      res.abort();
      notify();
    }, idleMs);
  };
  arm();
  res.read({
    data: (c) => {
      arm();
      buffer += decoder.write(c);
      if (buffer.length > PAUSE_AT && !paused) {
        paused = true;
        res.pause();
      }
      notify();
    },
    end: () => {
      buffer += decoder.end();
      ended = true;
      notify();
    },
    error: (e) => {
      failure ??= e;
      notify();
    },
  });
  try {
    for (;;) {
      let at: number;
      while ((at = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const raw = buffer.slice(0, at);
        if (raw.length > max) throw new UpstreamError(`the upstream sent an event larger than ${max} bytes`);
        buffer = buffer.slice(at + (buffer[at] === '\r' ? 4 : 2));
        let data = '';
        let first = true;
        for (const line of raw.split(/\r?\n/)) {
          if (!line.startsWith('data:')) continue;
          data += (first ? '' : '\n') + (line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
          first = false;
        }
        if (data !== '') yield data;
      }
      if (buffer.length > max) throw new UpstreamError(`the upstream sent an event larger than ${max} bytes`);
      if (failure) throw failure;
      if (ended) return;
      if (paused) {
        paused = false;
        res.resume();
      }
      await new Promise<void>((r) => (wake = r));
    }
  } finally {
    clearTimeout(idle);
  }
}
