/**
 * The A2A 1.0 bindings as raw Fastify routes (an encapsulated plugin with its own body parser and
 * error handler, so malformed or oversized bodies get A2A-shaped answers):
 *   JSON-RPC   POST {jsonRpcPath}  SendMessage, SendStreamingMessage, GetTask, CancelTask, ListTasks,
 *              SubscribeToTask, GetExtendedAgentCard
 *   HTTP+JSON  {restBase}/message:send, /message:stream, /tasks, /tasks/{id}, /tasks/{id}:cancel,
 *              /tasks/{id}:subscribe, /extendedAgentCard
 * Streams are Server-Sent Events (one StreamResponse per event; JSON-RPC wraps each in a response
 * envelope). Push-config operations answer PushNotificationNotSupportedError.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { deprecationHeaders, extensionsResponseHeader, EXTENSIONS_HEADER } from '@cp/capabilities';
import { wwwAuthenticate } from '@cp/auth';
import { recordPrincipal } from '@cp/common';
import { A2AError, A2AErrorName } from './a2a-errors';
import type { A2AAuthenticator } from './a2a-authenticator';
import type { A2AService, A2ALog, RequestContext } from './a2a-service';
import { etagMatches } from './card-route';
import type { StreamEvent } from './task-events';
import type { TaskStream } from './task-stream';
import { checkDepth } from './validate-params';
import { checkVersion } from './version';

export interface A2ARoutesOptions {
  service: A2AService;
  authenticator: A2AAuthenticator;
  jsonRpcPath: string;
  restBase: string;
  maxBodyBytes: number;
  maxJsonDepth: number;
  log: A2ALog;
  /** Comment lines on idle streams keep proxies from closing them (default 15 s). */
  heartbeatMs?: number;
}

const JSON_TYPE = 'application/json';
const REST_TYPE = 'application/a2a+json';

type JsonRpcId = string | number | null;
type Binding = 'jsonrpc' | 'rest';

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
      const binding = (request.routeOptions.config as { binding?: Binding }).binding ?? 'rest';
      const a2a =
        error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? new A2AError(A2AErrorName.PayloadTooLarge, `the request body exceeds ${options.maxBodyBytes} bytes`, {
              limit: String(options.maxBodyBytes),
            })
          : error.statusCode !== undefined && error.statusCode < 500
            ? new A2AError(binding === 'jsonrpc' ? A2AErrorName.InvalidRequest : A2AErrorName.InvalidParams, error.message)
            : toA2AError(error, options.log);
      return binding === 'jsonrpc' ? sendJsonRpcError(reply, null, a2a) : sendRestError(reply, a2a);
    });

    scope.post(options.jsonRpcPath, { config: { binding: 'jsonrpc' } }, (request, reply) => jsonRpc(request, reply, options));

    const base = options.restBase.replace(/\/$/, '');
    const rest = (
      handler: (request: FastifyRequest, rc: RequestContext, active: string[]) => Promise<RestAnswer>,
      auth: 'optional' | 'required' = 'optional',
      negotiate = true,
    ) => {
      return async (request: FastifyRequest, reply: FastifyReply) => {
        try {
          checkVersion(request.headers['a2a-version'], (request.query as Record<string, unknown>)['A2A-Version']);
          const { caller, token } = await options.authenticator.authenticate(request.headers, auth === 'required');
          if (caller) recordPrincipal(request.raw, 'a2a', caller.principal);
          const rc: RequestContext = { caller, token, extensions: request.headers['a2a-extensions'] };
          const active = negotiate ? options.service.negotiate(rc) : [];
          const answer = await handler(request, rc, active);
          const header = extensionsResponseHeader(active);
          if (header) void reply.header(EXTENSIONS_HEADER, header);
          if (answer.capabilityId) void reply.headers(deprecationOf(options, answer.capabilityId, rc));
          if (answer.etag) {
            void reply.header('etag', answer.etag);
            const inm = request.headers['if-none-match'];
            if (inm !== undefined && etagMatches(inm, answer.etag)) return await reply.code(304).send();
          }
          return await reply.code(200).header('content-type', REST_TYPE).send(answer.body);
        } catch (error) {
          return sendRestError(reply, toA2AError(error, options.log));
        }
      };
    };
    /** Same checks as `rest`, then the answer is an SSE stream of bare StreamResponse objects. */
    const restStream = (open: (request: FastifyRequest, rc: RequestContext, active: string[]) => Promise<TaskStream>) => {
      return async (request: FastifyRequest, reply: FastifyReply) => {
        let stream: TaskStream;
        let active: string[];
        let rc: RequestContext;
        try {
          checkVersion(request.headers['a2a-version'], (request.query as Record<string, unknown>)['A2A-Version']);
          const { caller, token } = await options.authenticator.authenticate(request.headers, false);
          rc = { caller, token, extensions: request.headers['a2a-extensions'] };
          active = options.service.negotiate(rc);
          stream = await open(request, rc, active);
        } catch (error) {
          return sendRestError(reply, toA2AError(error, options.log));
        }
        return sendStream(
          reply,
          stream,
          active,
          options,
          (e) => `data: ${JSON.stringify(e)}\n\n`,
          deprecationOf(options, stream.capabilityId, rc),
        );
      };
    };
    const cfg = { config: { binding: 'rest' as Binding } };
    const svc = options.service;
    scope.post(
      `${base}/message::send`,
      cfg,
      rest(async (req, rc, active) => taskJson(await svc.sendMessage(parseRestBody(req.body, options.maxJsonDepth), rc, active))),
    );
    scope.post(
      `${base}/message::stream`,
      cfg,
      restStream((req, rc, active) => svc.sendStreamingMessage(parseRestBody(req.body, options.maxJsonDepth), rc, active)),
    );
    scope.get(
      `${base}/extendedAgentCard`,
      cfg,
      rest(
        async (_req, rc) => {
          const card = svc.extendedCard(rc);
          return { body: card.body, etag: card.etag };
        },
        'required',
        false,
      ),
    );
    scope.get(
      `${base}/tasks`,
      cfg,
      rest(async (req, rc) => json(await svc.listTasks(req.query, rc))),
    );
    const getTask = rest(async (req, rc) => {
      const rest = undeclaredTaskOperation((req.params as { '*': string })['*']);
      if (!/^[^/:]+$/.test(rest)) throw new A2AError(A2AErrorName.MethodNotFound, `no operation at GET ${req.url}`);
      return taskJson(
        await svc.getTask(
          { id: taskIdFromPath(rest), historyLength: optionalInt((req.query as Record<string, unknown>).historyLength) },
          rc,
        ),
      );
    });
    scope.get(`${base}/tasks/*`, cfg, (req, reply) => (isSubscribe(req) ? subscribe(req, reply) : getTask(req, reply)));
    // The spec's text says POST for :subscribe and its proto says GET: both are served.
    const subscribe = restStream(async (req, rc) => {
      const m = /^([^/:]+):subscribe$/.exec(undeclaredTaskOperation((req.params as { '*': string })['*']));
      return svc.subscribeToTask({ id: taskIdFromPath(m![1]) }, rc);
    });
    const isSubscribe = (req: FastifyRequest) => /^[^/:]+:subscribe$/.test((req.params as { '*': string })['*']);
    const cancel = rest(async (req, rc) => {
      const rest = undeclaredTaskOperation((req.params as { '*': string })['*']);
      const m = /^([^/:]+):cancel$/.exec(rest);
      if (!m) throw new A2AError(A2AErrorName.MethodNotFound, `no operation at POST ${req.url}`);
      return taskJson(await svc.cancelTask({ id: taskIdFromPath(m[1]) }, rc));
    });
    scope.post(`${base}/tasks/*`, cfg, (req, reply) => (isSubscribe(req) ? subscribe(req, reply) : cancel(req, reply)));
    scope.delete(
      `${base}/tasks/*`,
      cfg,
      rest(async () => {
        throw pushNotSupported();
      }),
    );
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

/**
 * Writes the stream as SSE on the raw response until it ends or the client goes away; either way
 * the stream is closed, which removes its listener.
 */
async function sendStream(
  reply: FastifyReply,
  stream: TaskStream,
  active: string[],
  options: A2ARoutesOptions,
  frame: (event: StreamEvent) => string,
  extra: Record<string, string> = {},
): Promise<void> {
  void reply.hijack();
  const raw = reply.raw;
  const headers: Record<string, string> = {
    ...extra,
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  };
  const ext = extensionsResponseHeader(active);
  if (ext) headers[EXTENSIONS_HEADER.toLowerCase()] = ext;
  raw.writeHead(200, headers);
  let gone = false;
  const onClose = () => {
    gone = true;
    stream.close();
  };
  raw.on('close', onClose);
  const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), options.heartbeatMs ?? 15_000);
  heartbeat.unref();
  try {
    for await (const event of stream) {
      if (gone) break;
      if (!raw.write(frame(event))) await new Promise<void>((resolve) => raw.once('drain', resolve).once('close', resolve));
    }
  } catch (error) {
    options.log.error({ err: (error as Error).message }, 'stream failed');
  } finally {
    clearInterval(heartbeat);
    raw.off('close', onClose);
    stream.close();
    if (!gone) raw.end();
  }
}

async function jsonRpc(request: FastifyRequest, reply: FastifyReply, options: A2ARoutesOptions): Promise<FastifyReply> {
  let id: JsonRpcId = null;
  try {
    const raw = Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '';
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
    if (typeof e.id === 'string' || typeof e.id === 'number') id = e.id;
    if (e.jsonrpc !== '2.0') throw new A2AError(A2AErrorName.InvalidRequest, 'jsonrpc must be "2.0"');
    if (typeof e.method !== 'string') throw new A2AError(A2AErrorName.InvalidRequest, 'method must be a string');
    if (!('id' in e) || !(typeof e.id === 'string' || (typeof e.id === 'number' && Number.isInteger(e.id)))) {
      throw new A2AError(A2AErrorName.InvalidRequest, 'id must be a string or an integer (A2A has no notifications)');
    }
    if (e.params !== undefined && (typeof e.params !== 'object' || e.params === null || Array.isArray(e.params))) {
      throw new A2AError(A2AErrorName.InvalidParams, 'params must be an object');
    }
    if (e.params !== undefined) checkDepth(e.params, options.maxJsonDepth);
    const method = e.method;
    if (!METHODS.has(method)) throw new A2AError(A2AErrorName.MethodNotFound, `method "${method}" does not exist`, { method });
    checkVersion(request.headers['a2a-version'], (request.query as Record<string, unknown>)['A2A-Version']);
    const svc = options.service;
    const { caller, token } = await options.authenticator.authenticate(request.headers, method === 'GetExtendedAgentCard');
    if (caller) recordPrincipal(request.raw, 'a2a', caller.principal);
    const rc: RequestContext = { caller, token, extensions: request.headers['a2a-extensions'] };
    if (method === 'GetExtendedAgentCard') {
      // The card is sent as its stored bytes inside the envelope: no per-request serialization.
      const card = svc.extendedCard(rc);
      return await reply
        .code(200)
        .header('content-type', JSON_TYPE)
        .send(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${card.body}}`);
    }
    const active = svc.negotiate(rc);
    if (method === 'SendStreamingMessage' || method === 'SubscribeToTask') {
      const stream =
        method === 'SendStreamingMessage' ? await svc.sendStreamingMessage(e.params, rc, active) : await svc.subscribeToTask(e.params, rc);
      const prefix = `data: {"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
      await sendStream(
        reply,
        stream,
        active,
        options,
        (event) => `${prefix}${JSON.stringify(event)}}\n\n`,
        deprecationOf(options, stream.capabilityId, rc),
      );
      return await reply;
    }
    let result: unknown;
    switch (method) {
      case 'SendMessage':
        result = await svc.sendMessage(e.params, rc, active);
        break;
      case 'GetTask':
        result = await svc.getTask(e.params, rc);
        break;
      case 'CancelTask':
        result = await svc.cancelTask(e.params, rc);
        break;
      case 'ListTasks':
        result = await svc.listTasks(e.params, rc);
        break;
      default:
        throw pushNotSupported();
    }
    const header = extensionsResponseHeader(active);
    if (header) void reply.header(EXTENSIONS_HEADER, header);
    if (method !== 'ListTasks') void reply.headers(deprecationOf(options, capabilityOf(result), rc));
    return await reply
      .code(200)
      .header('content-type', JSON_TYPE)
      .send(JSON.stringify({ jsonrpc: '2.0', id, result }));
  } catch (error) {
    return sendJsonRpcError(reply, id, toA2AError(error, options.log));
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

/** A fixed description per error code: no token text ever reaches a header (issue 11 item 12). */
function authenticateHeader(reply: FastifyReply, error: A2AError): void {
  // RFC 9110 §10.2.3: how long to wait (rate budgets, a capability temporarily unavailable).
  if (error.metadata.retryAfterSeconds) void reply.header('retry-after', error.metadata.retryAfterSeconds);
  if (error.kind === A2AErrorName.Unauthenticated) void reply.header('www-authenticate', wwwAuthenticate(error.reason));
}

/** Task sub-paths for operations the card never declares answer their protocol errors, not 404. */
function undeclaredTaskOperation(rest: string): string {
  if (rest.includes('/pushNotificationConfigs')) throw pushNotSupported();
  return rest;
}

/** A malformed percent-encoding in the path is the caller's error, not a 500. */
function taskIdFromPath(segment: string): string {
  // Fastify has already percent-decoded the wildcard (and answers 400 to malformed encoding):
  // decoding again broke ids holding "%" (a 500 the fuzz suite found).
  return segment;
}
