/**
 * The A2A 1.0 bindings as raw Fastify routes (an encapsulated plugin with its own body parser and
 * error handler, so malformed or oversized bodies get A2A-shaped answers):
 *   JSON-RPC   POST {jsonRpcPath}  SendMessage, GetTask, CancelTask, ListTasks, GetExtendedAgentCard
 *   HTTP+JSON  {restBase}/message:send, /tasks, /tasks/{id}, /tasks/{id}:cancel, /extendedAgentCard
 * Streaming and push-config operations answer UnsupportedOperationError /
 * PushNotificationNotSupportedError: this node serves neither.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { extensionsResponseHeader, EXTENSIONS_HEADER } from '@cp/capabilities';
import { wwwAuthenticate } from '@cp/auth';
import { recordPrincipal } from '@cp/common';
import { A2AError, A2AErrorName } from './a2a-errors';
import type { A2AAuthenticator } from './a2a-authenticator';
import type { A2AService, A2ALog, RequestContext } from './a2a-service';
import { etagMatches } from './card-route';
import { checkVersion } from './version';

export interface A2ARoutesOptions {
  service: A2AService;
  authenticator: A2AAuthenticator;
  jsonRpcPath: string;
  restBase: string;
  maxBodyBytes: number;
  log: A2ALog;
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
          if (answer.etag) {
            void reply.header('etag', answer.etag);
            const inm = request.headers['if-none-match'];
            if (inm !== undefined && etagMatches(inm, answer.etag)) return reply.code(304).send();
          }
          return reply.code(200).header('content-type', REST_TYPE).send(answer.body);
        } catch (error) {
          return sendRestError(reply, toA2AError(error, options.log));
        }
      };
    };
    const cfg = { config: { binding: 'rest' as Binding } };
    const svc = options.service;
    scope.post(
      `${base}/message::send`,
      cfg,
      rest(async (req, rc, active) => json(await svc.sendMessage(parseRestBody(req.body), rc, active))),
    );
    scope.post(
      `${base}/message::stream`,
      cfg,
      rest(async () => {
        throw unsupported('streaming (SendStreamingMessage)');
      }),
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
      rest(async (req, rc) => json(svc.listTasks(req.query, rc))),
    );
    scope.get(
      `${base}/tasks/*`,
      cfg,
      rest(async (req, rc) => {
        // Fastify has already percent-decoded the wildcard: decoding again broke ids with "%" (500).
        const rest = undeclaredTaskOperation((req.params as { '*': string })['*']);
        if (!/^[^/:]+$/.test(rest)) throw new A2AError(A2AErrorName.MethodNotFound, `no operation at GET ${req.url}`);
        return json(svc.getTask({ id: rest, historyLength: optionalInt((req.query as Record<string, unknown>).historyLength) }, rc));
      }),
    );
    scope.post(
      `${base}/tasks/*`,
      cfg,
      rest(async (req, rc) => {
        const rest = undeclaredTaskOperation((req.params as { '*': string })['*']);
        const m = /^([^/:]+):cancel$/.exec(rest);
        if (!m) throw new A2AError(A2AErrorName.MethodNotFound, `no operation at POST ${req.url}`);
        return json(svc.cancelTask({ id: m[1] }, rc));
      }),
    );
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
}

const json = (value: unknown): RestAnswer => ({ body: JSON.stringify(value) });
const unsupported = (what: string) => new A2AError(A2AErrorName.UnsupportedOperation, `this agent does not serve ${what}`);
const pushNotSupported = () => new A2AError(A2AErrorName.PushNotificationNotSupported, 'this agent does not declare push notifications');

function optionalInt(v: unknown): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : (v as number);
}

function parseRestBody(body: unknown): unknown {
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : '';
  try {
    return JSON.parse(text);
  } catch {
    throw new A2AError(A2AErrorName.InvalidParams, 'the request body is not valid JSON', {}, 'PARSE_ERROR');
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
      return reply
        .code(200)
        .header('content-type', JSON_TYPE)
        .send(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${card.body}}`);
    }
    const active = svc.negotiate(rc);
    let result: unknown;
    switch (method) {
      case 'SendMessage':
        result = await svc.sendMessage(e.params, rc, active);
        break;
      case 'GetTask':
        result = svc.getTask(e.params, rc);
        break;
      case 'CancelTask':
        result = svc.cancelTask(e.params, rc);
        break;
      case 'ListTasks':
        result = svc.listTasks(e.params, rc);
        break;
      case 'SendStreamingMessage':
        throw unsupported('streaming (SendStreamingMessage)');
      case 'SubscribeToTask':
        throw unsupported('streaming (SubscribeToTask)');
      default:
        throw pushNotSupported();
    }
    const header = extensionsResponseHeader(active);
    if (header) void reply.header(EXTENSIONS_HEADER, header);
    return reply
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
  if (rest.endsWith(':subscribe')) throw unsupported('streaming (SubscribeToTask)');
  return rest;
}
