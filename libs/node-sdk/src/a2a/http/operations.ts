/**
 * The A2A operations, one row each (ADR 0219): the 1.0 method name, its HTTP+JSON routes, its 0.3
 * names and translations (or "not in 0.3"), the auth rule, unary or stream, and the service call.
 * Every binding is driven by this table: the JSON-RPC method lists (1.0 and 0.3), the REST routes of
 * both versions and the notification rule are derived from it, so adding an A2A method is one row
 * here plus its service method and tests.
 */
import type { PushService } from '../push/push-service';
import type { A2AService, RequestContext } from '../a2a-service';
import type { ServedCard } from '../served-bundle';
import type { StreamEvent } from '../task-events';
import type { TaskStream } from '../task-stream';
import type { WireTask } from '../wire-types';
import { cardToV03, cardToV03Proto } from '../v03/card';
import { V03_PARAMS } from '../v03/jsonrpc-methods';
import {
  pushConfigFromV03Proto,
  pushConfigToV03,
  pushConfigToV03Proto,
  sendRequestFromV03Proto,
  sendResponseToV03Proto,
  taskToV03,
  taskToV03Proto,
} from '../v03/shapes';
import type { PushConfigView } from '../push/push-configs';

export type Verb = 'GET' | 'POST' | 'DELETE';

/** A route under the REST base; `{name}` is one path segment (no `/` or `:`), read into `RestInput.path`. */
export interface RestRoute {
  verb: Verb;
  path: string;
}

/** What a REST route hands the operation: path segments, the query, and the body (parsed on demand). */
export interface RestInput {
  path: Record<string, string>;
  query: Record<string, unknown>;
  body: () => unknown;
}

/** What the operations reach: the service and, when the agent declares it, push. */
export interface OperationDeps {
  service: A2AService;
  /** PushNotificationNotSupportedError when the agent serves no push. */
  push(): PushService;
}

/** An answer as it goes on the wire: JSON text (never re-serialized), its ETag, its capability. */
export interface Answer {
  json: string;
  etag?: string;
  /** The capability the answered task is bound to: a deprecated one adds its headers. */
  capabilityId?: string;
}

interface OperationBase {
  /** The 1.0 method name (JSON-RPC method, span and metric label). */
  method: string;
  /** `required`: Unauthenticated without a bearer token, before anything else runs. */
  auth: 'optional' | 'required';
  /** false: A2A-Extensions is not negotiated (and no extension header is answered). */
  negotiate: boolean;
  /** The HTTP+JSON 1.0 routes and how their path, query and body become the 1.0 params. */
  rest: { routes: RestRoute[]; params: (input: RestInput) => unknown };
  /** The 0.3 names and translations (ADR 0160, 0165), or explicitly absent from 0.3. */
  v03: V03Binding | 'not in 0.3';
}

export interface UnaryOperation extends OperationBase {
  kind: 'unary';
  call(deps: OperationDeps, params: unknown, rc: RequestContext, active: string[]): Promise<unknown>;
  /** The 1.0 answer (default: the result as JSON, no deprecation headers). */
  encode?: (result: unknown) => Answer;
  /** A JSON-RPC notification runs the call (its answer dropped) or is skipped (a read nobody hears). */
  notification: 'run' | 'skip';
}

export interface StreamOperation extends OperationBase {
  kind: 'stream';
  open(deps: OperationDeps, params: unknown, rc: RequestContext, active: string[]): Promise<TaskStream>;
  /** A JSON-RPC notification has no reader: it runs as this unary method, or is skipped. */
  notification: 'skip' | { runAs: string };
}

export type Operation = UnaryOperation | StreamOperation;

export interface V03Binding {
  /** The 0.3 JSON-RPC method, its params in and (unary) its result out; streams translate per event. */
  jsonrpc: { method: string; params: (params: unknown) => unknown; result: (result: unknown) => unknown };
  /** The 0.3 HTTP+JSON routes under `{restBase}/v1` (default: the 1.0 routes), params in, answer out. */
  rest: { routes?: RestRoute[]; params?: (input: RestInput) => unknown; answer: (result: unknown) => unknown };
}

/** A Task, or a SendMessage result holding one: answered with the deprecation headers of its capability. */
const taskAnswer = (result: unknown): Answer => ({ json: JSON.stringify(result), capabilityId: capabilityOf(result) });

/** The capability a routed task is bound to (`metadata.routing.capabilityId`, set by the node itself). */
export function capabilityOf(value: unknown): string | undefined {
  const task = (value as { task?: unknown } | null)?.task ?? value;
  const id = (task as { metadata?: { routing?: { capabilityId?: unknown } } } | null)?.metadata?.routing?.capabilityId;
  return typeof id === 'string' ? id : undefined;
}

function optionalInt(v: unknown): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : (v as number);
}

const TASK = '/tasks/{id}';
const PUSH_CONFIGS = '/tasks/{taskId}/pushNotificationConfigs';
const PUSH_CONFIG = '/tasks/{taskId}/pushNotificationConfigs/{id}';
const task = (r: unknown) => taskToV03(r as WireTask);
const taskProto = (r: unknown) => taskToV03Proto(r as WireTask);
const pushConfig = (r: unknown) => pushConfigToV03(r as PushConfigView);
const pushConfigProto = (r: unknown) => pushConfigToV03Proto(r as PushConfigView);
const cardJson = (r: unknown) => JSON.parse((r as ServedCard).body) as Record<string, unknown>;
const identity = (r: unknown) => r;

export const OPERATIONS: readonly Operation[] = [
  {
    method: 'SendMessage',
    kind: 'unary',
    auth: 'optional',
    negotiate: true,
    notification: 'run',
    call: (d, params, rc, active) => d.service.sendMessage(params, rc, active),
    encode: taskAnswer,
    rest: { routes: [{ verb: 'POST', path: '/message:send' }], params: (i) => i.body() },
    v03: {
      jsonrpc: { method: 'message/send', params: V03_PARAMS.send, result: (r) => taskToV03((r as { task: WireTask }).task) },
      rest: { params: (i) => sendRequestFromV03Proto(i.body()), answer: sendResponseToV03Proto },
    },
  },
  {
    method: 'SendStreamingMessage',
    kind: 'stream',
    auth: 'optional',
    negotiate: true,
    notification: { runAs: 'SendMessage' },
    open: (d, params, rc, active) => d.service.sendStreamingMessage(params, rc, active),
    rest: { routes: [{ verb: 'POST', path: '/message:stream' }], params: (i) => i.body() },
    v03: {
      jsonrpc: { method: 'message/stream', params: V03_PARAMS.send, result: identity },
      rest: { params: (i) => sendRequestFromV03Proto(i.body()), answer: identity },
    },
  },
  {
    method: 'GetTask',
    kind: 'unary',
    auth: 'optional',
    negotiate: true,
    notification: 'run',
    call: (d, params, rc) => d.service.getTask(params, rc),
    encode: taskAnswer,
    rest: {
      routes: [{ verb: 'GET', path: TASK }],
      params: (i) => ({ id: i.path.id, historyLength: optionalInt(i.query.historyLength) }),
    },
    v03: {
      jsonrpc: { method: 'tasks/get', params: V03_PARAMS.taskQuery, result: task },
      rest: {
        params: (i) => {
          const historyLength = optionalInt(i.query.historyLength);
          return { id: i.path.id, ...(historyLength !== undefined ? { historyLength } : {}) };
        },
        answer: taskProto,
      },
    },
  },
  {
    method: 'ListTasks',
    kind: 'unary',
    auth: 'optional',
    negotiate: true,
    notification: 'run',
    call: (d, params, rc) => d.service.listTasks(params, rc),
    rest: { routes: [{ verb: 'GET', path: '/tasks' }], params: (i) => i.query },
    // 0.3 has no task listing (neither `tasks/list` nor `GET /v1/tasks`).
    v03: 'not in 0.3',
  },
  {
    method: 'CancelTask',
    kind: 'unary',
    auth: 'optional',
    negotiate: true,
    notification: 'run',
    call: (d, params, rc) => d.service.cancelTask(params, rc),
    encode: taskAnswer,
    rest: { routes: [{ verb: 'POST', path: '/tasks/{id}:cancel' }], params: (i) => ({ id: i.path.id }) },
    v03: { jsonrpc: { method: 'tasks/cancel', params: V03_PARAMS.taskQuery, result: task }, rest: { answer: taskProto } },
  },
  {
    method: 'SubscribeToTask',
    kind: 'stream',
    auth: 'optional',
    negotiate: true,
    notification: 'skip',
    open: (d, params, rc) => d.service.subscribeToTask(params, rc),
    // The spec's text says POST for :subscribe and its proto says GET: both are served.
    rest: {
      routes: [
        { verb: 'GET', path: '/tasks/{id}:subscribe' },
        { verb: 'POST', path: '/tasks/{id}:subscribe' },
      ],
      params: (i) => ({ id: i.path.id }),
    },
    v03: { jsonrpc: { method: 'tasks/resubscribe', params: V03_PARAMS.taskQuery, result: identity }, rest: { answer: identity } },
  },
  {
    method: 'CreateTaskPushNotificationConfig',
    kind: 'unary',
    auth: 'optional',
    negotiate: true,
    notification: 'run',
    call: (d, params, rc) => d.push().create(params, rc, rc.version ?? '1.0'),
    rest: {
      routes: [{ verb: 'POST', path: PUSH_CONFIGS }],
      params: (i) => {
        const body = i.body();
        return typeof body === 'object' && body !== null && !Array.isArray(body) ? { ...body, taskId: i.path.taskId } : body;
      },
    },
    v03: {
      jsonrpc: { method: 'tasks/pushNotificationConfig/set', params: V03_PARAMS.setPush, result: pushConfig },
      rest: { params: (i) => pushConfigFromV03Proto(i.path.taskId, i.body()), answer: pushConfigProto },
    },
  },
  {
    method: 'GetTaskPushNotificationConfig',
    kind: 'unary',
    auth: 'optional',
    negotiate: true,
    notification: 'run',
    call: (d, params, rc) => d.push().get(params, rc),
    rest: { routes: [{ verb: 'GET', path: PUSH_CONFIG }], params: (i) => ({ taskId: i.path.taskId, id: i.path.id }) },
    v03: {
      jsonrpc: { method: 'tasks/pushNotificationConfig/get', params: V03_PARAMS.getPush, result: pushConfig },
      rest: { answer: pushConfigProto },
    },
  },
  {
    method: 'ListTaskPushNotificationConfigs',
    kind: 'unary',
    auth: 'optional',
    negotiate: true,
    notification: 'run',
    call: (d, params, rc) => d.push().list(params, rc),
    rest: { routes: [{ verb: 'GET', path: PUSH_CONFIGS }], params: (i) => ({ taskId: i.path.taskId }) },
    v03: {
      jsonrpc: {
        method: 'tasks/pushNotificationConfig/list',
        params: V03_PARAMS.listPush,
        result: (r) => (r as { configs: PushConfigView[] }).configs.map(pushConfigToV03),
      },
      rest: { answer: (r) => ({ configs: (r as { configs: PushConfigView[] }).configs.map(pushConfigToV03Proto) }) },
    },
  },
  {
    method: 'DeleteTaskPushNotificationConfig',
    kind: 'unary',
    auth: 'optional',
    negotiate: true,
    notification: 'run',
    call: (d, params, rc) => d.push().delete(params, rc),
    rest: { routes: [{ verb: 'DELETE', path: PUSH_CONFIG }], params: (i) => ({ taskId: i.path.taskId, id: i.path.id }) },
    v03: {
      jsonrpc: { method: 'tasks/pushNotificationConfig/delete', params: V03_PARAMS.deletePush, result: () => null },
      rest: { answer: () => ({}) },
    },
  },
  {
    method: 'GetExtendedAgentCard',
    kind: 'unary',
    auth: 'required',
    negotiate: false,
    notification: 'skip',
    call: (d, _params, rc) => d.service.extendedCard(rc),
    // The card is sent as its stored bytes: no per-request serialization.
    encode: (r) => ({ json: (r as ServedCard).body, etag: (r as ServedCard).etag }),
    rest: { routes: [{ verb: 'GET', path: '/extendedAgentCard' }], params: () => undefined },
    v03: {
      jsonrpc: { method: 'agent/getAuthenticatedExtendedCard', params: () => undefined, result: (r) => cardToV03(cardJson(r)) },
      rest: { routes: [{ verb: 'GET', path: '/card' }], answer: (r) => cardToV03Proto(cardJson(r)) },
    },
  },
];

/** The extended card also counts card metrics (served, 304, refused). */
export const EXTENDED_CARD = 'GetExtendedAgentCard';

/** The 1.0 JSON-RPC methods, by name. */
export const METHODS: ReadonlyMap<string, Operation> = new Map(OPERATIONS.map((op) => [op.method, op]));

/** The 0.3 JSON-RPC methods, by 0.3 name, each with the operation it runs as. */
export const V03_JSONRPC: ReadonlyMap<string, { op: Operation } & V03Binding['jsonrpc']> = new Map(
  OPERATIONS.flatMap((op) => (op.v03 === 'not in 0.3' ? [] : [[op.v03.jsonrpc.method, { op, ...op.v03.jsonrpc }] as const])),
);

/** One REST route of one version: the operation it runs, the params it builds, and (0.3) the answer's translation. */
export interface RestBinding {
  op: Operation;
  route: RestRoute;
  params: (input: RestInput) => unknown;
  /** 0.3 only: the 1.0 result → the 0.3 body (a stream's events translate in the binding). */
  answer?: (result: unknown) => unknown;
}

/** The HTTP+JSON 1.0 routes under `{restBase}`. */
export const REST_ROUTES: readonly RestBinding[] = OPERATIONS.flatMap((op) =>
  op.rest.routes.map((route) => ({ op, route, params: op.rest.params })),
);

/** The 0.3 HTTP+JSON routes under `{restBase}/v1`. */
export const REST_V03_ROUTES: readonly RestBinding[] = OPERATIONS.flatMap((op) => {
  if (op.v03 === 'not in 0.3') return [];
  const v03 = op.v03.rest;
  return (v03.routes ?? op.rest.routes).map((route) => ({ op, route, params: v03.params ?? op.rest.params, answer: v03.answer }));
});

/** The 1.0 answer of a unary operation. */
export function encode(op: UnaryOperation, result: unknown): Answer {
  return op.encode ? op.encode(result) : { json: JSON.stringify(result) };
}

/** The 1.0 event stream is sent as is. */
export const sameEvent = (e: StreamEvent): unknown => e;

/** The 0.3 JSON-RPC methods in their earlier exported shape (`v1`: the 1.0 method each runs as). */
export const V03_METHODS: Readonly<Record<string, { v1: string; params: (p: unknown) => unknown; result: (r: unknown) => unknown }>> =
  Object.fromEntries([...V03_JSONRPC].map(([name, m]) => [name, { v1: m.op.method, params: m.params, result: m.result }]));
