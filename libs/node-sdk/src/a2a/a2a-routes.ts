/**
 * The A2A 1.0 bindings as raw Fastify routes (an encapsulated plugin with its own body parser and
 * error handler, so malformed or oversized bodies get A2A-shaped answers):
 *   JSON-RPC   POST {jsonRpcPath}  SendMessage, SendStreamingMessage, GetTask, CancelTask, ListTasks,
 *              SubscribeToTask, GetExtendedAgentCard
 *   HTTP+JSON  {restBase}/message:send, /message:stream, /tasks, /tasks/{id}, /tasks/{id}:cancel,
 *              /tasks/{id}:subscribe, /extendedAgentCard
 *   0.3 HTTP+JSON {restBase}/v1/message:send, /v1/message:stream, /v1/tasks/{id}, /v1/tasks/{id}:cancel,
 *              /v1/tasks/{id}:subscribe, /v1/tasks/{id}/pushNotificationConfigs[/{configId}], /v1/card
 *              (0.3 proto-JSON translated at the edge, ADR 0165; only where the agent serves 0.3)
 * Streams are Server-Sent Events (one StreamResponse per event; JSON-RPC wraps each in a response
 * envelope). Push-config operations answer PushNotificationNotSupportedError.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { deprecationHeaders, extensionsResponseHeader, EXTENSIONS_HEADER } from '@cp/capabilities';
import { wwwAuthenticate } from '@cp/auth';
import { activeSpan, contextFromHeaders, currentTraceId, inSpan, recordPrincipal, recordTraceId, SpanKind, tracingOn } from '@cp/common';
import type { A2AObserver } from '../observability/observer';
import { A2AError, A2AErrorName } from './a2a-errors';
import type { A2AAuthenticator } from './a2a-authenticator';
import type { A2AService, A2ALog, RequestContext } from './a2a-service';
import { etagMatches } from './card-route';
import { writeSse, type SseFrames } from './sse-writer';
import type { StreamEvent } from './task-events';
import type { TaskStream } from './task-stream';
import type { WireTask } from './wire-types';
import { checkDepth } from './validate-params';
import type { PushService } from './push/push-service';
import { declaredBy } from './served-bundle';
import { cardToV03 } from './v03/card';
import { V03_METHODS } from './v03/jsonrpc-methods';
import { eventToV03 } from './v03/shapes';
import {
  cardToV03Proto,
  eventToV03Proto,
  pushConfigFromV03Proto,
  pushConfigToV03Proto,
  sendRequestFromV03Proto,
  sendResponseToV03Proto,
  taskToV03Proto,
} from './v03/rest-shapes';
import { checkVersion, negotiateVersion, requestedVersion, type ProtocolVersion } from './version';

export interface A2ARoutesOptions {
  service: A2AService;
  authenticator: A2AAuthenticator;
  jsonRpcPath: string;
  restBase: string;
  maxBodyBytes: number;
  maxJsonDepth: number;
  log: A2ALog;
  /** Metrics (NodeMetrics) or the no-op observer. */
  observer: A2AObserver;
  /** Comment lines on idle streams keep proxies from closing them (default 15 s). */
  heartbeatMs?: number;
  /** The push-config operations; absent: PushNotificationNotSupportedError. */
  push?: PushService;
}

const JSON_TYPE = 'application/json';
const REST_TYPE = 'application/a2a+json';

type JsonRpcId = string | number | null;
type Binding = 'jsonrpc' | 'rest';
type Route = (request: FastifyRequest, reply: FastifyReply) => unknown;

/**
 * With tracing on, the route runs in a SERVER span continuing the caller's `traceparent`; the
 * access-log line names the trace. Off: the route itself, nothing added.
 */
function traced(binding: Binding, method: string | undefined, route: Route): Route {
  return (request, reply) => {
    if (!tracingOn()) return route(request, reply);
    const attributes = method === undefined ? { 'a2a.binding': binding } : { 'a2a.binding': binding, 'a2a.method': method };
    return inSpan(
      `a2a.${binding}${method === undefined ? '' : ` ${method}`}`,
      attributes,
      () => {
        recordTraceId(request.raw, currentTraceId());
        return route(request, reply);
      },
      { kind: SpanKind.SERVER, parent: contextFromHeaders(request.headers) },
    );
  };
}

/** Outcome on the span (the metric is counted by the observer). */
function spanOutcome(method: string, outcome: string, tenant?: string): void {
  const span = activeSpan();
  if (!span) return;
  span.setAttribute('a2a.method', method);
  span.setAttribute('a2a.outcome', outcome);
  if (tenant !== undefined) span.setAttribute('a2a.tenant', tenant);
}

const METHODS = new Set([
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
]);

export function registerA2ARoutes(app: FastifyInstance, options: A2ARoutesOptions): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // Raw bytes: we parse ourselves to answer -32700 (JSON-RPC) or an AIP-193 body (REST).
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: options.maxBodyBytes }, (_req, body, done) => done(null, body));
    scope.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
      const config = request.routeOptions.config as { binding?: Binding; v03?: boolean };
      const binding = config.binding ?? 'rest';
      const a2a =
        error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? new A2AError(A2AErrorName.PayloadTooLarge, `the request body exceeds ${options.maxBodyBytes} bytes`, {
              limit: String(options.maxBodyBytes),
            })
          : error.statusCode !== undefined && error.statusCode < 500
            ? new A2AError(binding === 'jsonrpc' ? A2AErrorName.InvalidRequest : A2AErrorName.InvalidParams, error.message)
            : toA2AError(error, options.log);
      if (binding === 'jsonrpc') return sendJsonRpcError(reply, null, a2a);
      return config.v03 ? sendV03RestError(reply, a2a) : sendRestError(reply, a2a);
    });

    scope.post(
      options.jsonRpcPath,
      { config: { binding: 'jsonrpc' } },
      traced('jsonrpc', undefined, (request, reply) => jsonRpc(request, reply, options)),
    );

    const base = options.restBase.replace(/\/$/, '');
    const observer = options.observer;
    const rest = (
      method: string,
      handler: (request: FastifyRequest, rc: RequestContext, active: string[]) => Promise<RestAnswer>,
      auth: 'optional' | 'required' = 'optional',
      negotiate = true,
    ) => {
      const card = method === 'GetExtendedAgentCard';
      return traced('rest', method, async (request: FastifyRequest, reply: FastifyReply) => {
        let tenant: string | undefined;
        try {
          checkVersion(request.headers['a2a-version'], (request.query as Record<string, unknown>)['A2A-Version']);
          const { caller, token } = await options.authenticator.authenticate(request.headers, auth === 'required');
          if (caller) recordPrincipal(request.raw, 'a2a', caller.principal);
          tenant = caller?.tenant;
          const rc: RequestContext = { caller, token, extensions: request.headers['a2a-extensions'] };
          const active = negotiate ? options.service.negotiate(rc) : [];
          const answer = await handler(request, rc, active);
          const header = extensionsResponseHeader(active);
          if (header) void reply.header(EXTENSIONS_HEADER, header);
          if (answer.capabilityId) void reply.headers(deprecationOf(options, answer.capabilityId, rc));
          observer.request(method, 'rest', 'ok');
          spanOutcome(method, 'ok', tenant);
          if (answer.etag) {
            void reply.header('etag', answer.etag);
            const inm = request.headers['if-none-match'];
            if (inm !== undefined && etagMatches(inm, answer.etag)) {
              if (card) observer.card('extended', 304);
              return await reply.code(304).send();
            }
          }
          if (card) observer.card('extended', 200);
          return await reply.code(200).header('content-type', REST_TYPE).send(answer.body);
        } catch (error) {
          const a2a = toA2AError(error, options.log);
          observer.request(method, 'rest', a2a.kind);
          spanOutcome(method, a2a.kind, tenant);
          if (card) observer.card('extended', a2a.mapping.http);
          return sendRestError(reply, a2a);
        }
      });
    };
    /** Same checks as `rest`, then the answer is an SSE stream of bare StreamResponse objects. */
    const restStream = (method: string, open: (request: FastifyRequest, rc: RequestContext, active: string[]) => Promise<TaskStream>) => {
      return traced('rest', method, async (request: FastifyRequest, reply: FastifyReply) => {
        let stream: TaskStream;
        let active: string[];
        let rc: RequestContext;
        try {
          checkVersion(request.headers['a2a-version'], (request.query as Record<string, unknown>)['A2A-Version']);
          const { caller, token } = await options.authenticator.authenticate(request.headers, false);
          rc = { caller, token, extensions: request.headers['a2a-extensions'] };
          active = options.service.negotiate(rc);
          stream = await open(request, rc, active);
          observer.request(method, 'rest', 'ok');
          spanOutcome(method, 'ok', caller?.tenant);
        } catch (error) {
          const a2a = toA2AError(error, options.log);
          observer.request(method, 'rest', a2a.kind);
          spanOutcome(method, a2a.kind);
          return sendRestError(reply, a2a);
        }
        return sendStream(
          reply,
          stream,
          active,
          options,
          { event: (e) => `data: ${JSON.stringify(e)}\n\n`, error: (e) => e.toRest() },
          deprecationOf(options, stream.capabilityId, rc),
        );
      });
    };
    const cfg = { config: { binding: 'rest' as Binding } };
    const svc = options.service;
    // rest() and restStream() open the route's SERVER span themselves, so no route goes untraced.
    scope.post(
      `${base}/message::send`,
      cfg,
      rest('SendMessage', async (req, rc, active) =>
        taskJson(await svc.sendMessage(parseRestBody(req.body, options.maxJsonDepth), rc, active)),
      ),
    );
    scope.post(
      `${base}/message::stream`,
      cfg,
      restStream('SendStreamingMessage', (req, rc, active) =>
        svc.sendStreamingMessage(parseRestBody(req.body, options.maxJsonDepth), rc, active),
      ),
    );
    scope.get(
      `${base}/extendedAgentCard`,
      cfg,
      rest(
        'GetExtendedAgentCard',
        async (_req, rc) => {
          const card = await svc.extendedCard(rc);
          return { body: card.body, etag: card.etag };
        },
        'required',
        false,
      ),
    );
    scope.get(
      `${base}/tasks`,
      cfg,
      rest('ListTasks', async (req, rc) => json(await svc.listTasks(req.query, rc))),
    );
    const wildcard = (req: FastifyRequest) => (req.params as { '*': string })['*'];
    const PUSH = /^([^/:]+)\/pushNotificationConfigs(?:\/([^/:]+))?$/;
    const pushPath = (req: FastifyRequest) => PUSH.exec(wildcard(req));
    // One rest() per operation, so each answers under its own name in spans and metrics.
    const getPush = rest('GetTaskPushNotificationConfig', async (req, rc) => {
      const [, taskId, id] = pushPath(req)!;
      return json(await pushOf(options).get({ taskId, id }, rc));
    });
    const listPush = rest('ListTaskPushNotificationConfigs', async (req, rc) =>
      json(await pushOf(options).list({ taskId: pushPath(req)![1] }, rc)),
    );
    const getTask = rest('GetTask', async (req, rc) => {
      const rest = wildcard(req);
      if (!/^[^/:]+$/.test(rest)) throw new A2AError(A2AErrorName.MethodNotFound, `no operation at GET ${req.url}`);
      return taskJson(
        await svc.getTask(
          { id: taskIdFromPath(rest), historyLength: optionalInt((req.query as Record<string, unknown>).historyLength) },
          rc,
        ),
      );
    });
    scope.get(`${base}/tasks/*`, cfg, (req, reply) => {
      const push = pushPath(req);
      const route = isSubscribe(req) ? subscribe : !push ? getTask : push[2] === undefined ? listPush : getPush;
      return route(req, reply);
    });
    // The spec's text says POST for :subscribe and its proto says GET: both are served.
    const subscribe = restStream('SubscribeToTask', async (req, rc) => {
      const m = /^([^/:]+):subscribe$/.exec(wildcard(req));
      return svc.subscribeToTask({ id: taskIdFromPath(m![1]) }, rc);
    });
    const isSubscribe = (req: FastifyRequest) => /^[^/:]+:subscribe$/.test(wildcard(req));
    const createPush = rest('CreateTaskPushNotificationConfig', async (req, rc) => {
      const body = parseRestBody(req.body, options.maxJsonDepth);
      const params = typeof body === 'object' && body !== null && !Array.isArray(body) ? { ...body, taskId: pushPath(req)![1] } : body;
      return json(await pushOf(options).create(params, rc, '1.0'));
    });
    const cancel = rest('CancelTask', async (req, rc) => {
      const m = /^([^/:]+):cancel$/.exec(wildcard(req));
      if (!m) throw new A2AError(A2AErrorName.MethodNotFound, `no operation at POST ${req.url}`);
      return taskJson(await svc.cancelTask({ id: taskIdFromPath(m[1]) }, rc));
    });
    const isCreatePush = (req: FastifyRequest) => {
      const push = pushPath(req);
      return push !== null && push[2] === undefined;
    };
    scope.post(`${base}/tasks/*`, cfg, (req, reply) =>
      (isSubscribe(req) ? subscribe : isCreatePush(req) ? createPush : cancel)(req, reply),
    );
    scope.delete(
      `${base}/tasks/*`,
      cfg,
      rest('DeleteTaskPushNotificationConfig', async (req, rc) => {
        const push = pushPath(req);
        if (!push || push[2] === undefined) throw new A2AError(A2AErrorName.MethodNotFound, `no operation at DELETE ${req.url}`);
        return json(await pushOf(options).delete({ taskId: push[1], id: push[2] }, rc));
      }),
    );
    registerV03Rest(scope, options, base);
  });
}

interface RestAnswer {
  body: string;
  etag?: string;
  /** The capability the answered task is bound to: a deprecated one adds its headers. */
  capabilityId?: string;
}

const json = (value: unknown): RestAnswer => ({ body: JSON.stringify(value) });
/** A Task, or a SendMessage result holding one: answered with the deprecation headers of its capability. */
const taskJson = (value: unknown): RestAnswer => ({ body: JSON.stringify(value), capabilityId: capabilityOf(value) });

/** The capability a routed task is bound to (`metadata.routing.capabilityId`, set by the node itself). */
function capabilityOf(value: unknown): string | undefined {
  const task = (value as { task?: unknown } | null)?.task ?? value;
  const id = (task as { metadata?: { routing?: { capabilityId?: unknown } } } | null)?.metadata?.routing?.capabilityId;
  return typeof id === 'string' ? id : undefined;
}

/** Deprecation, Sunset and Link for a deprecated capability (issue 21); none for any other. */
function deprecationOf(options: A2ARoutesOptions, capabilityId: string | undefined, rc: RequestContext): Record<string, string> {
  const announcement = options.service.deprecation(capabilityId, rc);
  if (!announcement) return {};
  const links = { publicCard: '/.well-known/agent-card.json', extendedCard: `${options.restBase.replace(/\/$/, '')}/extendedAgentCard` };
  return deprecationHeaders(announcement, links, rc.caller);
}
const pushNotSupported = () => new A2AError(A2AErrorName.PushNotificationNotSupported, 'this agent does not declare push notifications');

function optionalInt(v: unknown): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : (v as number);
}

function parseRestBody(body: unknown, maxDepth: number): unknown {
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : '';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new A2AError(A2AErrorName.InvalidParams, 'the request body is not valid JSON', {}, 'PARSE_ERROR');
  }
  checkDepth(value, maxDepth);
  return value;
}

/** The response headers of an SSE answer, then the stream itself under the stream guards (sse-writer.ts). */
async function sendStream(
  reply: FastifyReply,
  stream: TaskStream,
  active: string[],
  options: A2ARoutesOptions,
  frames: SseFrames,
  extra: Record<string, string> = {},
): Promise<void> {
  void reply.hijack();
  const headers: Record<string, string> = {
    ...extra,
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  };
  const ext = extensionsResponseHeader(active);
  if (ext) headers[EXTENSIONS_HEADER.toLowerCase()] = ext;
  const guards = { ...options.service.streamLimits, heartbeatMs: options.heartbeatMs ?? 15_000 };
  await writeSse(reply.raw, stream, headers, frames, guards, options.log);
}

interface Envelope {
  id: JsonRpcId;
  method: string;
  params: unknown;
  /** No `id` member: JSON-RPC 2.0 §4.1, the server must not reply. */
  notification: boolean;
}

function parseEnvelope(body: unknown, maxJsonDepth: number): Envelope {
  const raw = Buffer.isBuffer(body) ? body.toString('utf8') : '';
  let envelope: unknown;
  try {
    envelope = JSON.parse(raw);
  } catch {
    throw new A2AError(A2AErrorName.ParseError, 'the request body is not valid JSON');
  }
  if (Array.isArray(envelope)) throw new A2AError(A2AErrorName.InvalidRequest, 'batch requests are not supported');
  if (typeof envelope !== 'object' || envelope === null)
    throw new A2AError(A2AErrorName.InvalidRequest, 'the request must be a JSON-RPC 2.0 object');
  const e = envelope as Record<string, unknown>;
  const id: JsonRpcId = typeof e.id === 'string' || typeof e.id === 'number' ? e.id : null;
  const fail = (error: A2AError) => Object.assign(error, { rpcId: id });
  if (e.jsonrpc !== '2.0') throw fail(new A2AError(A2AErrorName.InvalidRequest, 'jsonrpc must be "2.0"'));
  if (typeof e.method !== 'string') throw fail(new A2AError(A2AErrorName.InvalidRequest, 'method must be a string'));
  const notification = !('id' in e);
  if (!notification && !(typeof e.id === 'string' || (typeof e.id === 'number' && Number.isInteger(e.id)))) {
    throw fail(new A2AError(A2AErrorName.InvalidRequest, 'id must be a string or an integer'));
  }
  if (e.params !== undefined && (typeof e.params !== 'object' || e.params === null || Array.isArray(e.params))) {
    throw fail(new A2AError(A2AErrorName.InvalidParams, 'params must be an object', { field: 'params' }));
  }
  if (e.params !== undefined) {
    try {
      checkDepth(e.params, maxJsonDepth);
    } catch (error) {
      throw fail(error as A2AError);
    }
  }
  return { id, method: e.method, params: e.params, notification };
}

/** What one JSON-RPC call resolved to: the 1.0 method to run, its params, and how answers translate back. */
interface Resolved {
  method: string;
  params: unknown;
  version: ProtocolVersion;
  result: (r: unknown) => unknown;
  event: (e: StreamEvent) => unknown;
}

/**
 * The version first (a missing A2A-Version is 0.3), then the method in that version's names: a
 * 0.3 call to a node that serves no 0.3 is VersionNotSupportedError, never method-not-found.
 */
function resolveCall(request: FastifyRequest, env: Envelope, svc: A2AService): Resolved {
  const served = declaredBy(svc.current()).versions.jsonrpc;
  const version = negotiateVersion(request.headers['a2a-version'], (request.query as Record<string, unknown>)['A2A-Version'], served);
  if (version === '1.0') {
    if (!METHODS.has(env.method))
      throw new A2AError(A2AErrorName.MethodNotFound, `method "${env.method}" does not exist`, { method: env.method });
    return { method: env.method, params: env.params, version, result: (r) => r, event: (e) => e };
  }
  const m = V03_METHODS[env.method];
  if (!m) {
    if (METHODS.has(env.method)) {
      throw new A2AError(
        A2AErrorName.VersionNotSupported,
        `"${env.method}" is an A2A 1.0 method; send the header A2A-Version: 1.0 (a request without it is A2A 0.3)`,
        { requested: '0.3', method: env.method },
      );
    }
    throw new A2AError(A2AErrorName.MethodNotFound, `method "${env.method}" does not exist in A2A 0.3`, { method: env.method });
  }
  return { method: m.v1, params: m.params(env.params), version, result: m.result, event: eventToV03 };
}

async function jsonRpc(request: FastifyRequest, reply: FastifyReply, options: A2ARoutesOptions): Promise<FastifyReply> {
  let id: JsonRpcId = null;
  // A label value: a known method name only (a caller cannot mint series).
  let method = 'unknown';
  let tenant: string | undefined;
  const observer = options.observer;
  let env: Envelope;
  try {
    env = parseEnvelope(request.body, options.maxJsonDepth);
  } catch (error) {
    const a2a = toA2AError(error, options.log);
    observer.request(method, 'jsonrpc', a2a.kind);
    spanOutcome(method, a2a.kind, tenant);
    return sendJsonRpcError(reply, (error as { rpcId?: JsonRpcId }).rpcId ?? null, a2a);
  }
  if (env.notification) {
    // JSON-RPC 2.0: a notification is processed but never answered, not even with an error.
    void runNotification(request, env, options);
    return reply.code(204).send();
  }
  id = env.id;
  try {
    const call = resolveCall(request, env, options.service);
    const svc = options.service;
    method = call.method;
    const { caller, token } = await options.authenticator.authenticate(request.headers, method === 'GetExtendedAgentCard');
    if (caller) recordPrincipal(request.raw, 'a2a', caller.principal);
    tenant = caller?.tenant;
    const rc: RequestContext = { caller, token, extensions: request.headers['a2a-extensions'], version: call.version };
    if (method === 'GetExtendedAgentCard') {
      // The card is sent as its stored bytes inside the envelope: no per-request serialization.
      const card = await svc.extendedCard(rc);
      const body = call.version === '0.3' ? JSON.stringify(cardToV03(JSON.parse(card.body) as Record<string, unknown>)) : card.body;
      observer.request(method, 'jsonrpc', 'ok');
      observer.card('extended', 200);
      spanOutcome(method, 'ok', tenant);
      return await reply
        .code(200)
        .header('content-type', JSON_TYPE)
        .send(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${body}}`);
    }
    const active = svc.negotiate(rc);
    if (method === 'SendStreamingMessage' || method === 'SubscribeToTask') {
      const stream =
        method === 'SendStreamingMessage'
          ? await svc.sendStreamingMessage(call.params, rc, active)
          : await svc.subscribeToTask(call.params, rc);
      observer.request(method, 'jsonrpc', 'ok');
      spanOutcome(method, 'ok', tenant);
      const prefix = `data: {"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
      await sendStream(
        reply,
        stream,
        active,
        options,
        {
          event: (event) => `${prefix}${JSON.stringify(call.event(event))}}\n\n`,
          error: (e) => ({ jsonrpc: '2.0', id, error: e.toJsonRpc() }),
        },
        deprecationOf(options, stream.capabilityId, rc),
      );
      return await reply;
    }
    const result = call.result(await unary(method, call.params, rc, active, options));
    const header = extensionsResponseHeader(active);
    if (header) void reply.header(EXTENSIONS_HEADER, header);
    if (method !== 'ListTasks') void reply.headers(deprecationOf(options, capabilityOf(result), rc));
    observer.request(method, 'jsonrpc', 'ok');
    spanOutcome(method, 'ok', tenant);
    return await reply
      .code(200)
      .header('content-type', JSON_TYPE)
      .send(JSON.stringify({ jsonrpc: '2.0', id, result }));
  } catch (error) {
    const a2a = toA2AError(error, options.log);
    observer.request(method, 'jsonrpc', a2a.kind);
    spanOutcome(method, a2a.kind, tenant);
    if (method === 'GetExtendedAgentCard') observer.card('extended', a2a.mapping.http);
    return sendJsonRpcError(reply, id, a2a);
  }
}

/** The unary 1.0 methods, shared by answered calls and notifications. */
async function unary(method: string, params: unknown, rc: RequestContext, active: string[], options: A2ARoutesOptions): Promise<unknown> {
  const svc = options.service;
  switch (method) {
    case 'SendMessage':
      return svc.sendMessage(params, rc, active);
    case 'GetTask':
      return svc.getTask(params, rc);
    case 'CancelTask':
      return svc.cancelTask(params, rc);
    case 'ListTasks':
      return svc.listTasks(params, rc);
    case 'CreateTaskPushNotificationConfig':
      return pushOf(options).create(params, rc, rc.version ?? '1.0');
    case 'GetTaskPushNotificationConfig':
      return pushOf(options).get(params, rc);
    case 'ListTaskPushNotificationConfigs':
      return pushOf(options).list(params, rc);
    case 'DeleteTaskPushNotificationConfig':
      return pushOf(options).delete(params, rc);
    default:
      throw new A2AError(A2AErrorName.MethodNotFound, `method "${method}" does not exist`, { method });
  }
}

function pushOf(options: A2ARoutesOptions): PushService {
  if (!options.push) throw pushNotSupported();
  return options.push;
}

/**
 * A notification runs like a call (same checks, same usage counting) and its answer is dropped;
 * a streaming method runs as its unary form, since nobody reads the stream.
 */
async function runNotification(request: FastifyRequest, env: Envelope, options: A2ARoutesOptions): Promise<void> {
  try {
    const call = resolveCall(request, env, options.service);
    // Reads answer nobody; a streamed send runs as a plain send.
    if (call.method === 'GetExtendedAgentCard' || call.method === 'SubscribeToTask') return;
    const method = call.method === 'SendStreamingMessage' ? 'SendMessage' : call.method;
    const { caller, token } = await options.authenticator.authenticate(request.headers, false);
    const rc: RequestContext = { caller, token, extensions: request.headers['a2a-extensions'], version: call.version };
    await unary(method, call.params, rc, options.service.negotiate(rc), options);
  } catch (error) {
    const a2a = error instanceof A2AError ? error : undefined;
    if (a2a) options.log.info({ method: env.method, reason: a2a.errorInfo().reason }, 'JSON-RPC notification refused (not answered)');
    else options.log.error({ method: env.method, err: (error as Error)?.message }, 'JSON-RPC notification failed (not answered)');
  }
}

function toA2AError(error: unknown, log: A2ALog): A2AError {
  if (error instanceof A2AError) return error;
  // Unknown errors are hidden behind an id that is logged.
  const errorId = randomUUID();
  log.error({ errorId, err: (error as Error)?.message, stack: (error as Error)?.stack }, 'unexpected error on an A2A endpoint');
  return new A2AError(A2AErrorName.Internal, `internal error (id ${errorId})`, { errorId });
}

/** JSON-RPC errors answer HTTP 200 (as a2a-js does), except transport-level ones and server faults. */
function jsonRpcHttpStatus(error: A2AError): number {
  const s = error.mapping.http;
  return s === 401 || s === 413 || s === 429 || s === 503 || s >= 500 ? s : 200;
}

function sendJsonRpcError(reply: FastifyReply, id: JsonRpcId, error: A2AError): FastifyReply {
  authenticateHeader(reply, error);
  return reply
    .code(jsonRpcHttpStatus(error))
    .header('content-type', JSON_TYPE)
    .send(JSON.stringify({ jsonrpc: '2.0', id, error: error.toJsonRpc() }));
}

function sendRestError(reply: FastifyReply, error: A2AError): FastifyReply {
  authenticateHeader(reply, error);
  return reply.code(error.mapping.http).header('content-type', REST_TYPE).send(JSON.stringify(error.toRest()));
}

/** A 0.3 HTTP+JSON error: the 1.0 HTTP status with the 0.3 body `{code, message, data}` (ADR 0165). */
function sendV03RestError(reply: FastifyReply, error: A2AError): FastifyReply {
  authenticateHeader(reply, error);
  return reply.code(error.mapping.http).header('content-type', JSON_TYPE).send(JSON.stringify(error.toJsonRpc()));
}

/** A fixed description per error code: no token text ever reaches a header (issue 11 item 12). */
function authenticateHeader(reply: FastifyReply, error: A2AError): void {
  // RFC 9110 §10.2.3: how long to wait (rate budgets, a capability temporarily unavailable).
  if (error.metadata.retryAfterSeconds) void reply.header('retry-after', error.metadata.retryAfterSeconds);
  if (error.kind === A2AErrorName.Unauthenticated) void reply.header('www-authenticate', wwwAuthenticate(error.reason));
}

/** A malformed percent-encoding in the path is the caller's error, not a 500. */
function taskIdFromPath(segment: string): string {
  // Fastify has already percent-decoded the wildcard (and answers 400 to malformed encoding):
  // decoding again broke ids holding "%" (a 500 the fuzz suite found).
  return segment;
}

/**
 * A2A 0.3 HTTP+JSON under `{restBase}/v1` (ADR 0165): the same service calls as the 1.0 routes,
 * with 0.3 proto-JSON translated in and out, 0.3 error bodies (`{code, message, data}`), and the
 * same authentication, metrics, deprecation headers and usage counting.
 */
function registerV03Rest(scope: FastifyInstance, options: A2ARoutesOptions, base: string): void {
  const svc = options.service;
  const observer = options.observer;
  const v1 = `${base}/v1`;
  const cfg = { config: { binding: 'rest' as Binding, v03: true } };
  const served = (request: FastifyRequest): void => {
    if (!declaredBy(svc.current()).versions.rest.has('0.3')) {
      throw new A2AError(
        A2AErrorName.VersionNotSupported,
        'A2A 0.3 over HTTP+JSON is not served by this agent; supported: 1.0 (paths without /v1)',
        { requested: '0.3', supported: '1.0' },
      );
    }
    const query = (request.query as Record<string, unknown>)['A2A-Version'];
    if (/^1\./.test(requestedVersion(request.headers['a2a-version'], query))) {
      throw new A2AError(A2AErrorName.VersionNotSupported, 'the /v1 paths are A2A 0.3; A2A 1.0 paths have no /v1 prefix', {
        requested: '1.0',
        supported: '0.3',
      });
    }
    negotiateVersion(request.headers['a2a-version'], query, new Set(['0.3']));
  };
  const context = async (request: FastifyRequest, required: boolean) => {
    served(request);
    const { caller, token } = await options.authenticator.authenticate(request.headers, required);
    if (caller) recordPrincipal(request.raw, 'a2a', caller.principal);
    return { caller, token, extensions: request.headers['a2a-extensions'], version: '0.3' } satisfies RequestContext;
  };
  const fail = (reply: FastifyReply, method: string, error: unknown, card = false) => {
    const a2a = toA2AError(error, options.log);
    observer.request(method, 'rest', a2a.kind);
    spanOutcome(method, a2a.kind);
    if (card) observer.card('extended', a2a.mapping.http);
    return sendV03RestError(reply, a2a);
  };
  const unaryV03 = (method: string, handler: (request: FastifyRequest, rc: RequestContext, active: string[]) => Promise<RestAnswer>) =>
    traced('rest', method, async (request: FastifyRequest, reply: FastifyReply) => {
      const card = method === 'GetExtendedAgentCard';
      try {
        const rc = await context(request, card);
        const active = card ? [] : svc.negotiate(rc);
        const answer = await handler(request, rc, active);
        const header = extensionsResponseHeader(active);
        if (header) void reply.header(EXTENSIONS_HEADER, header);
        if (answer.capabilityId) void reply.headers(deprecationOf(options, answer.capabilityId, rc));
        observer.request(method, 'rest', 'ok');
        spanOutcome(method, 'ok', rc.caller?.tenant);
        if (card) observer.card('extended', 200);
        return await reply.code(200).header('content-type', JSON_TYPE).send(answer.body);
      } catch (error) {
        return fail(reply, method, error, card);
      }
    });
  const streamV03 = (method: string, open: (request: FastifyRequest, rc: RequestContext, active: string[]) => Promise<TaskStream>) =>
    traced('rest', method, async (request: FastifyRequest, reply: FastifyReply) => {
      let stream: TaskStream;
      let rc: RequestContext;
      let active: string[];
      try {
        rc = await context(request, false);
        active = svc.negotiate(rc);
        stream = await open(request, rc, active);
        observer.request(method, 'rest', 'ok');
        spanOutcome(method, 'ok', rc.caller?.tenant);
      } catch (error) {
        return fail(reply, method, error);
      }
      return sendStream(
        reply,
        stream,
        active,
        options,
        { event: (e) => `data: ${JSON.stringify(eventToV03Proto(e))}\n\n`, error: (e) => e.toJsonRpc() },
        deprecationOf(options, stream.capabilityId, rc),
      );
    });
  const body = (request: FastifyRequest) => parseRestBody(request.body, options.maxJsonDepth);
  const wildcard = (request: FastifyRequest) => (request.params as { '*': string })['*'];
  const PUSH = /^([^/:]+)\/pushNotificationConfigs(?:\/([^/:]+))?$/;
  const notFound = (request: FastifyRequest) =>
    new A2AError(A2AErrorName.MethodNotFound, `no A2A 0.3 operation at ${request.method} ${request.url.split('?')[0].slice(0, 200)}`);
  const task = (value: unknown): RestAnswer => ({
    body: JSON.stringify(taskToV03Proto(value as WireTask)),
    capabilityId: capabilityOf(value),
  });

  scope.post(
    `${v1}/message::send`,
    cfg,
    unaryV03('SendMessage', async (request, rc, active) => {
      const result = await svc.sendMessage(sendRequestFromV03Proto(body(request)), rc, active);
      return { body: JSON.stringify(sendResponseToV03Proto(result)), capabilityId: capabilityOf(result) };
    }),
  );
  scope.post(
    `${v1}/message::stream`,
    cfg,
    streamV03('SendStreamingMessage', (request, rc, active) =>
      svc.sendStreamingMessage(sendRequestFromV03Proto(body(request)), rc, active),
    ),
  );
  scope.get(
    `${v1}/card`,
    cfg,
    unaryV03('GetExtendedAgentCard', async (_request, rc) => {
      const card = await svc.extendedCard(rc);
      return { body: JSON.stringify(cardToV03Proto(JSON.parse(card.body) as Record<string, unknown>)) };
    }),
  );
  const subscribe = streamV03('SubscribeToTask', async (request, rc) => {
    const m = /^([^/:]+):subscribe$/.exec(wildcard(request));
    if (!m) throw notFound(request);
    return svc.subscribeToTask({ id: m[1] }, rc);
  });
  const isSubscribe = (request: FastifyRequest) => /^[^/:]+:subscribe$/.test(wildcard(request));
  const getPush = unaryV03('GetTaskPushNotificationConfig', async (request, rc) => {
    const [, taskId, id] = PUSH.exec(wildcard(request))!;
    return { body: JSON.stringify(pushConfigToV03Proto(await pushOf(options).get({ taskId, id }, rc))) };
  });
  const listPush = unaryV03('ListTaskPushNotificationConfigs', async (request, rc) => {
    const { configs } = await pushOf(options).list({ taskId: PUSH.exec(wildcard(request))![1] }, rc);
    return { body: JSON.stringify({ configs: configs.map(pushConfigToV03Proto) }) };
  });
  const read = unaryV03('GetTask', async (request, rc) => {
    const id = wildcard(request);
    if (!/^[^/:]+$/.test(id)) throw notFound(request);
    const historyLength = optionalInt((request.query as Record<string, unknown>).historyLength);
    return task(await svc.getTask({ id, ...(historyLength !== undefined ? { historyLength } : {}) }, rc));
  });
  const createPush = unaryV03('CreateTaskPushNotificationConfig', async (request, rc) => {
    const created = await pushOf(options).create(pushConfigFromV03Proto(PUSH.exec(wildcard(request))![1], body(request)), rc, '0.3');
    return { body: JSON.stringify(pushConfigToV03Proto(created)) };
  });
  const write = unaryV03('CancelTask', async (request, rc) => {
    const m = /^([^/:]+):cancel$/.exec(wildcard(request));
    if (!m) throw notFound(request);
    return task(await svc.cancelTask({ id: m[1] }, rc));
  });
  // One unaryV03() per operation, so each answers under its own name in spans and metrics.
  scope.get(`${v1}/tasks/*`, cfg, (request, reply) => {
    const push = PUSH.exec(wildcard(request));
    return (isSubscribe(request) ? subscribe : !push ? read : push[2] === undefined ? listPush : getPush)(request, reply);
  });
  scope.post(`${v1}/tasks/*`, cfg, (request, reply) => {
    const push = PUSH.exec(wildcard(request));
    return (isSubscribe(request) ? subscribe : push && push[2] === undefined ? createPush : write)(request, reply);
  });
  scope.delete(
    `${v1}/tasks/*`,
    cfg,
    unaryV03('DeleteTaskPushNotificationConfig', async (request, rc) => {
      const push = PUSH.exec(wildcard(request));
      if (!push || push[2] === undefined) throw notFound(request);
      await pushOf(options).delete({ taskId: push[1], id: push[2] }, rc);
      return { body: '{}' };
    }),
  );
}
