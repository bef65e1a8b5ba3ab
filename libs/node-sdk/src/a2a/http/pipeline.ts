/**
 * The one request sequence every A2A binding runs (ADR 0219): the binding resolves the operation
 * (version check, method or route, params), then authenticate, record the principal, negotiate
 * extensions, call the service, set the extension and deprecation headers, count the metric and
 * mark the span, answer; any error is mapped once (unknown errors hidden behind a logged id) and
 * answered in the binding's own error shape. Unary and stream answers differ only at the end.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { deprecationHeaders, extensionsResponseHeader, EXTENSIONS_HEADER } from '@cp/capabilities';
import { wwwAuthenticate } from '@cp/auth';
import {
  activeSpan,
  contextFromHeaders,
  currentTraceId,
  inSpan,
  recordPrincipal,
  recordTraceId,
  SpanKind,
  tracingOn,
} from '@cp/common/core';
import type { A2AObserver } from '../../observability/observer';
import { A2AError, A2AErrorName } from '../a2a-errors';
import type { A2AAuthenticator } from '../a2a-authenticator';
import type { A2AService, A2ALog, RequestContext } from '../a2a-service';
import type { PushService } from '../push/push-service';
import { writeSse, type SseFrames } from '../sse-writer';
import type { TaskStream } from '../task-stream';
import type { ProtocolVersion } from '../version';
import { EXTENDED_CARD, type Answer, type Operation, type OperationDeps } from './operations';

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

export type Binding = 'jsonrpc' | 'rest';
export type Route = (request: FastifyRequest, reply: FastifyReply) => unknown;

/** One request, resolved by its binding: the operation, the version it speaks, and its params. */
export interface Resolved {
  op: Operation;
  version: ProtocolVersion;
  /** Read after authentication and negotiation (a malformed body never outranks a missing token). */
  params: () => unknown;
  /** The 1.0 result of a unary operation → this binding's and version's answer. */
  encode: (result: unknown) => Answer;
}

/** How one binding (and version) answers: its error shape, its unary answer, its stream frames. */
export interface Wire {
  binding: Binding;
  error(reply: FastifyReply, error: A2AError): FastifyReply;
  /** Sends a unary answer; returns the HTTP status sent (304 when the ETag matched). */
  answer(reply: FastifyReply, answer: Answer): Promise<number>;
  frames: SseFrames;
}

/**
 * With tracing on, the route runs in a SERVER span continuing the caller's `traceparent`; the
 * access-log line names the trace. Off: the route itself, nothing added.
 */
export function traced(binding: Binding, method: string | undefined, route: Route): Route {
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

function succeeded(options: A2ARoutesOptions, binding: Binding, method: string, tenant: string | undefined): void {
  options.observer.request(method, binding, 'ok');
  spanOutcome(method, 'ok', tenant);
}

/**
 * The failure half of the sequence: the error mapped, counted under `method` (a known method name
 * or `unknown`: a caller cannot mint label values), marked on the span, answered by the binding.
 */
export function refuse(
  reply: FastifyReply,
  options: A2ARoutesOptions,
  wire: Wire,
  error: unknown,
  method = 'unknown',
  tenant?: string,
): FastifyReply {
  const a2a = toA2AError(error, options.log);
  options.observer.request(method, wire.binding, a2a.kind);
  spanOutcome(method, a2a.kind, tenant);
  if (method === EXTENDED_CARD) options.observer.card('extended', a2a.mapping.http);
  return wire.error(reply, a2a);
}

/** The operations' view of the node: the service, and push or PushNotificationNotSupportedError. */
export function operationDeps(options: A2ARoutesOptions): OperationDeps {
  return {
    service: options.service,
    push: () => {
      if (!options.push) throw new A2AError(A2AErrorName.PushNotificationNotSupported, 'this agent does not declare push notifications');
      return options.push;
    },
  };
}

/** The request context of an authenticated (or anonymous) caller. */
export async function requestContext(
  request: FastifyRequest,
  options: A2ARoutesOptions,
  op: Operation,
  version: ProtocolVersion,
): Promise<RequestContext> {
  const { caller, token } = await options.authenticator.authenticate(request.headers, op.auth === 'required');
  if (caller) recordPrincipal(request.raw, 'a2a', caller.principal);
  return { caller, token, extensions: request.headers['a2a-extensions'], version };
}

/** The whole sequence for one request; `resolve` is the binding's own first step. */
export async function runOperation(
  request: FastifyRequest,
  reply: FastifyReply,
  options: A2ARoutesOptions,
  wire: Wire,
  resolve: () => Resolved,
): Promise<unknown> {
  let method: string | undefined;
  let tenant: string | undefined;
  let stream: { stream: TaskStream; active: string[]; rc: RequestContext };
  try {
    const call = resolve();
    const op = call.op;
    method = op.method;
    const rc = await requestContext(request, options, op, call.version);
    tenant = rc.caller?.tenant;
    const active = op.negotiate ? options.service.negotiate(rc) : [];
    const deps = operationDeps(options);
    if (op.kind === 'stream') {
      stream = { stream: await op.open(deps, call.params(), rc, active), active, rc };
      succeeded(options, wire.binding, method, tenant);
    } else {
      const answer = call.encode(await op.call(deps, call.params(), rc, active));
      const header = extensionsResponseHeader(active);
      if (header) void reply.header(EXTENSIONS_HEADER, header);
      if (answer.capabilityId) void reply.headers(deprecationOf(options, answer.capabilityId, rc));
      succeeded(options, wire.binding, method, tenant);
      const status = await wire.answer(reply, answer);
      if (method === EXTENDED_CARD) options.observer.card('extended', status);
      return await reply;
    }
  } catch (error) {
    return refuse(reply, options, wire, error, method, tenant);
  }
  // The stream has begun (the reply is hijacked): from here on a failure ends it with an error frame.
  return sendStream(
    reply,
    stream.stream,
    stream.active,
    options,
    wire.frames,
    deprecationOf(options, stream.stream.capabilityId, stream.rc),
  );
}

export function toA2AError(error: unknown, log: A2ALog): A2AError {
  if (error instanceof A2AError) return error;
  // Unknown errors are hidden behind an id that is logged.
  const errorId = randomUUID();
  log.error({ errorId, err: (error as Error)?.message, stack: (error as Error)?.stack }, 'unexpected error on an A2A endpoint');
  return new A2AError(A2AErrorName.Internal, `internal error (id ${errorId})`, { errorId });
}

/** A fixed description per error code: no token text ever reaches a header (issue 11 item 12). */
export function authenticateHeader(reply: FastifyReply, error: A2AError): void {
  // RFC 9110 §10.2.3: how long to wait (rate budgets, a capability temporarily unavailable).
  if (error.metadata.retryAfterSeconds) void reply.header('retry-after', error.metadata.retryAfterSeconds);
  if (error.kind === A2AErrorName.Unauthenticated) void reply.header('www-authenticate', wwwAuthenticate(error.reason));
}

/** Deprecation, Sunset and Link for a deprecated capability (issue 21); none for any other. */
function deprecationOf(options: A2ARoutesOptions, capabilityId: string | undefined, rc: RequestContext): Record<string, string> {
  const announcement = options.service.deprecation(capabilityId, rc);
  if (!announcement) return {};
  const links = { publicCard: '/.well-known/agent-card.json', extendedCard: `${options.restBase.replace(/\/$/, '')}/extendedAgentCard` };
  return deprecationHeaders(announcement, links, rc.caller);
}

/** The response headers of an SSE answer, then the stream itself under the stream guards (sse-writer.ts). */
async function sendStream(
  reply: FastifyReply,
  stream: TaskStream,
  active: string[],
  options: A2ARoutesOptions,
  frames: SseFrames,
  extra: Record<string, string>,
): Promise<FastifyReply> {
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
  return reply;
}
