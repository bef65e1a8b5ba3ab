/**
 * A2A 0.3 ⇄ 1.0 data shapes, translated at the edge (ADR 0160, 0165): a 0.3 request is turned into
 * the 1.0 params the one A2AService takes, and what the service answers is turned back into 0.3
 * shapes. Routing, entitlement, limits and usage therefore run one code path for both versions.
 *
 * 0.3 has two JSON dialects, and this one translation serves both (ADR 0221):
 *   JSON-RPC (types.ts of A2A v0.3.0)  `kind` discriminators ("message", "task", "status-update",
 *            "artifact-update"; parts "text" | "file" | "data"), roles "user"/"agent", kebab-case
 *            task states, push configs `{taskId, pushNotificationConfig}`
 *   HTTP+JSON (proto-JSON of the 0.3 `a2a.v1` protos)  Message `content[]`, Part `{text}` |
 *            `{file:{fileWithUri|fileWithBytes, mimeType}}` | `{data:{data:{…}}}`, 1.0 role and state
 *            names except `TASK_STATE_CANCELLED`, events wrapped as `{task}` | `{statusUpdate}` |
 *            `{artifactUpdate}`, configuration `pushNotification`, push configs `{name, pushNotificationConfig}`;
 *            proto3: an empty string is an unset field
 * Shared by both: `final` on status updates, `blocking` instead of `returnImmediately`, push configs
 * nested under `pushNotificationConfig` with `authentication.schemes[]`, and every check (an object
 * where one is required, `metadata` an object, one of bytes/uri) applies to both.
 */
import { A2AError, A2AErrorName } from '../a2a-errors';
import type { PushConfigView } from '../push/push-configs';
import type { StreamEvent } from '../task-events';
import { endsStream } from '../task-run';
import type { SendMessageParams, TaskState, WireArtifact, WireMessage, WirePart, WireTask } from '../wire-types';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const invalid = (path: string, message: string) => new A2AError(A2AErrorName.InvalidParams, `${path}: ${message}`, { field: path });

export const V03_STATE: Record<TaskState, string> = {
  TASK_STATE_SUBMITTED: 'submitted',
  TASK_STATE_WORKING: 'working',
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_CANCELED: 'canceled',
  TASK_STATE_REJECTED: 'rejected',
  TASK_STATE_INPUT_REQUIRED: 'input-required',
  TASK_STATE_AUTH_REQUIRED: 'auth-required',
};

/** What differs between the two 0.3 dialects; everything else is the one translation below. */
export interface Dialect {
  /** The request object's name in error paths, and the prefix of its fields. */
  root: string;
  prefix: string;
  /** The message's part list. */
  partsKey: 'parts' | 'content';
  /** 0.3 JSON-RPC names the kind of each object; proto-JSON wraps events instead. */
  kinds: boolean;
  /** proto3 JSON: an empty string is an unset field. */
  emptyIsUnset: boolean;
  /** Fields only the JSON-RPC schema has (`referenceTaskIds`). */
  referenceTaskIds: boolean;
  configPushKey: 'pushNotificationConfig' | 'pushNotification';
  checkMessage(m: Json, path: string): void;
  partFrom(p: Json, path: string): WirePart;
  partTo(p: WirePart): Json;
  role(role: WireMessage['role']): string;
  state(state: TaskState): string;
  /** The request's message (proto-JSON also accepts its field name `request`). */
  messageOf(body: Json): unknown;
  pushName(c: PushConfigView): Json;
}

function optionalString(v: unknown, path: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalid(path, 'must be a string');
  return v;
}

function optionalObject(v: unknown, path: string): Json | undefined {
  if (v === undefined) return undefined;
  if (!isObject(v)) throw invalid(path, 'must be an object');
  return v;
}

/** `{bytes|uri}` or `{fileWithBytes|fileWithUri}`: exactly one, a string. */
function fileFrom(d: Dialect, f: Json, path: string, bytesKey: string, uriKey: string): WirePart {
  // proto3 JSON: null is an unset field.
  const set = (v: unknown) => v !== undefined && !(d.emptyIsUnset && v === null);
  const hasBytes = set(f[bytesKey]);
  const hasUri = set(f[uriKey]);
  if (hasBytes === hasUri) throw invalid(path, `must carry exactly one of ${bytesKey}, ${uriKey}`);
  if (hasBytes && typeof f[bytesKey] !== 'string') throw invalid(`${path}.${bytesKey}`, 'must be a base64 string');
  if (hasUri && typeof f[uriKey] !== 'string') throw invalid(`${path}.${uriKey}`, 'must be a string');
  const out: WirePart = hasBytes ? { raw: f[bytesKey] as string } : { url: f[uriKey] as string };
  const mimeType = optionalString(f.mimeType, `${path}.mimeType`);
  if (mimeType !== undefined && !(d.emptyIsUnset && mimeType === '')) out.mediaType = mimeType;
  return out;
}

export const JSONRPC: Dialect = {
  root: 'params',
  prefix: 'params.',
  partsKey: 'parts',
  kinds: true,
  emptyIsUnset: false,
  referenceTaskIds: true,
  configPushKey: 'pushNotificationConfig',
  checkMessage(m, path) {
    if (m.kind !== 'message') throw invalid(`${path}.kind`, 'must be "message"');
    if (m.role !== 'user') throw invalid(`${path}.role`, 'must be "user"');
  },
  partFrom(p, path) {
    const metadata = optionalObject(p.metadata, `${path}.metadata`);
    const withMeta = (part: WirePart): WirePart => (metadata ? { ...part, metadata } : part);
    switch (p.kind) {
      case 'text':
        if (typeof p.text !== 'string') throw invalid(`${path}.text`, 'must be a string');
        return withMeta({ text: p.text });
      case 'data':
        if (!isObject(p.data)) throw invalid(`${path}.data`, 'must be an object');
        return withMeta({ data: p.data });
      case 'file': {
        if (!isObject(p.file)) throw invalid(`${path}.file`, 'must be an object');
        const name = optionalString(p.file.name, `${path}.file.name`);
        const out = fileFrom(JSONRPC, p.file, `${path}.file`, 'bytes', 'uri');
        if (name !== undefined) out.filename = name;
        return withMeta(out);
      }
      default:
        throw invalid(`${path}.kind`, 'must be "text", "file" or "data"');
    }
  },
  partTo(p) {
    const meta = p.metadata ? { metadata: p.metadata } : {};
    if (typeof p.text === 'string') return { kind: 'text', text: p.text, ...meta };
    if (typeof p.raw === 'string' || typeof p.url === 'string') {
      const file: Json = typeof p.raw === 'string' ? { bytes: p.raw } : { uri: p.url };
      if (p.filename !== undefined) file.name = p.filename;
      if (p.mediaType !== undefined) file.mimeType = p.mediaType;
      return { kind: 'file', file, ...meta };
    }
    // 0.3 data parts hold an object; a 1.0 scalar or list is wrapped so nothing is lost.
    return { kind: 'data', data: isObject(p.data) ? p.data : { value: p.data }, ...meta };
  },
  role: (role) => (role === 'ROLE_AGENT' ? 'agent' : 'user'),
  state: (state) => V03_STATE[state] ?? 'unknown',
  messageOf: (body) => body.message,
  pushName: (c) => ({ taskId: c.taskId }),
};

/** The 0.3 proto Part has no metadata and its FilePart no name: neither is read nor written. */
export const PROTO: Dialect = {
  root: 'body',
  prefix: '',
  partsKey: 'content',
  kinds: false,
  emptyIsUnset: true,
  referenceTaskIds: false,
  configPushKey: 'pushNotification',
  checkMessage(m, path) {
    if (m.role !== undefined && m.role !== 'ROLE_USER') throw invalid(`${path}.role`, 'must be "ROLE_USER"');
  },
  partFrom(p, path) {
    const set = ['text', 'file', 'data'].filter((k) => p[k] !== undefined);
    if (set.length !== 1) throw invalid(path, 'must carry exactly one of text, file, data');
    if (p.text !== undefined) {
      if (typeof p.text !== 'string') throw invalid(`${path}.text`, 'must be a string');
      return { text: p.text };
    }
    if (p.data !== undefined) {
      if (!isObject(p.data) || !isObject(p.data.data)) throw invalid(`${path}.data.data`, 'must be an object');
      return { data: p.data.data };
    }
    if (!isObject(p.file)) throw invalid(`${path}.file`, 'must be an object');
    return fileFrom(PROTO, p.file, `${path}.file`, 'fileWithBytes', 'fileWithUri');
  },
  partTo(p) {
    if (typeof p.text === 'string') return { text: p.text };
    if (typeof p.raw === 'string' || typeof p.url === 'string') {
      const file: Json = typeof p.raw === 'string' ? { fileWithBytes: p.raw } : { fileWithUri: p.url };
      if (p.mediaType !== undefined) file.mimeType = p.mediaType;
      return { file };
    }
    // A 0.3 data part holds a Struct; a 1.0 scalar or list is wrapped so nothing is lost.
    return { data: { data: isObject(p.data) ? p.data : { value: p.data } } };
  },
  role: (role) => role,
  state: (state) => (state === 'TASK_STATE_CANCELED' ? 'TASK_STATE_CANCELLED' : state),
  messageOf: (body) => body.message ?? body.request,
  pushName: (c) => ({ name: `tasks/${c.taskId}/pushNotificationConfigs/${c.id}` }),
};

// ---- 0.3 → 1.0 (requests) ----

export function partFrom(d: Dialect, p: unknown, path: string): WirePart {
  if (!isObject(p)) throw invalid(path, 'must be an object');
  return d.partFrom(p, path);
}

function messageFrom(d: Dialect, m: unknown, path: string): WireMessage {
  if (!isObject(m)) throw invalid(path, 'is required and must be an object');
  d.checkMessage(m, path);
  if (typeof m.messageId !== 'string' || m.messageId === '') throw invalid(`${path}.messageId`, 'must be a non-empty string');
  const parts = m[d.partsKey];
  if (!Array.isArray(parts) || parts.length === 0) throw invalid(`${path}.${d.partsKey}`, 'must be a non-empty array');
  const out: WireMessage = {
    messageId: m.messageId,
    role: 'ROLE_USER',
    parts: parts.map((p: unknown, i: number) => partFrom(d, p, `${path}.${d.partsKey}[${i}]`)),
  };
  for (const key of ['taskId', 'contextId'] as const) {
    const v = optionalString(m[key], `${path}.${key}`);
    if (v !== undefined && !(d.emptyIsUnset && v === '')) out[key] = v;
  }
  const metadata = optionalObject(m.metadata, `${path}.metadata`);
  if (metadata !== undefined) out.metadata = metadata;
  if (m.extensions !== undefined) out.extensions = m.extensions as string[];
  if (d.referenceTaskIds && m.referenceTaskIds !== undefined) out.referenceTaskIds = m.referenceTaskIds as string[];
  return out;
}

/** A 0.3 PushNotificationConfig (both dialects) → the 1.0 flattened TaskPushNotificationConfig (without taskId). */
export function pushConfigFromV03(c: unknown, path: string): Json {
  if (!isObject(c)) throw invalid(path, 'must be an object');
  const out: Json = { url: c.url };
  if (c.id !== undefined) out.id = c.id;
  if (c.token !== undefined) out.token = c.token;
  const a = c.authentication;
  if (a !== undefined) {
    if (!isObject(a) || !Array.isArray(a.schemes)) throw invalid(`${path}.authentication.schemes`, 'must be a list of schemes');
    if (a.schemes.length > 1) throw invalid(`${path}.authentication.schemes`, 'this node sends one scheme; list exactly one');
    const schemes = a.schemes as unknown[];
    if (schemes.length === 1)
      out.authentication = { scheme: schemes[0], ...(a.credentials !== undefined ? { credentials: a.credentials } : {}) };
  }
  return out;
}

function sendFrom(d: Dialect, body: unknown): SendMessageParams {
  if (!isObject(body)) throw invalid(d.root, 'must be an object');
  const out: Json = { message: messageFrom(d, d.messageOf(body), `${d.prefix}message`) };
  const metadata = optionalObject(body.metadata, `${d.prefix}metadata`);
  if (metadata !== undefined) out.metadata = metadata;
  const c = optionalObject(body.configuration, `${d.prefix}configuration`);
  if (c !== undefined) {
    const conf: Json = {};
    if (c.acceptedOutputModes !== undefined) conf.acceptedOutputModes = c.acceptedOutputModes;
    if (c.historyLength !== undefined) conf.historyLength = c.historyLength;
    if (c.blocking !== undefined) {
      if (typeof c.blocking !== 'boolean') throw invalid(`${d.prefix}configuration.blocking`, 'must be a boolean');
      conf.returnImmediately = !c.blocking;
    }
    const push = c[d.configPushKey];
    if (push !== undefined) conf.taskPushNotificationConfig = pushConfigFromV03(push, `${d.prefix}configuration.${d.configPushKey}`);
    out.configuration = conf;
  }
  return out as unknown as SendMessageParams;
}

/** MessageSendParams (0.3 JSON-RPC) → SendMessageRequest (1.0); the service validates the rest. */
export const sendParamsFromV03 = (params: unknown): SendMessageParams => sendFrom(JSONRPC, params);
/** The 0.3 HTTP+JSON `SendMessageRequest` body (`message`, or its proto name `request`) → 1.0 params. */
export const sendRequestFromV03Proto = (body: unknown): SendMessageParams => sendFrom(PROTO, body);
/** One 0.3 JSON-RPC message → 1.0 (InvalidParams naming the 0.3 path when malformed). */
export const messageFromV03 = (m: unknown, path: string): WireMessage => messageFrom(JSONRPC, m, path);

/** The 0.3 `TaskPushNotificationConfig` body of `POST /v1/tasks/{id}/pushNotificationConfigs` → 1.0 create params. */
export function pushConfigFromV03Proto(taskId: string, body: unknown): Json {
  if (!isObject(body)) throw invalid('body', 'must be an object');
  const name = optionalString(body.name, 'name');
  if (name && !name.startsWith(`tasks/${taskId}/`)) throw invalid('name', `must name a config of task "${taskId.slice(0, 80)}"`);
  return { taskId, ...pushConfigFromV03(body.pushNotificationConfig, 'pushNotificationConfig') };
}

// ---- 1.0 → 0.3 (answers) ----

export function messageTo(d: Dialect, m: WireMessage): Json {
  const out: Json = d.kinds ? { kind: 'message' } : {};
  out.messageId = m.messageId;
  out.role = d.role(m.role);
  out[d.partsKey] = m.parts.map(d.partTo);
  if (m.taskId !== undefined) out.taskId = m.taskId;
  if (m.contextId !== undefined) out.contextId = m.contextId;
  if (m.metadata !== undefined) out.metadata = m.metadata;
  if (m.extensions !== undefined) out.extensions = m.extensions;
  if (d.referenceTaskIds && m.referenceTaskIds !== undefined) out.referenceTaskIds = m.referenceTaskIds;
  return out;
}

function statusTo(d: Dialect, status: WireTask['status']): Json {
  const out: Json = { state: d.state(status.state), timestamp: status.timestamp };
  if (status.message) out.message = messageTo(d, status.message);
  return out;
}

function artifactTo(d: Dialect, a: WireArtifact): Json {
  const out: Json = { artifactId: a.artifactId, parts: a.parts.map(d.partTo) };
  if (a.name !== undefined) out.name = a.name;
  if (a.description !== undefined) out.description = a.description;
  if (a.metadata !== undefined) out.metadata = a.metadata;
  if (a.extensions !== undefined) out.extensions = a.extensions;
  return out;
}

function taskTo(d: Dialect, t: WireTask): Json {
  const out: Json = { ...(d.kinds ? { kind: 'task' } : {}), id: t.id, contextId: t.contextId, status: statusTo(d, t.status) };
  if (t.artifacts) out.artifacts = t.artifacts.map((a) => artifactTo(d, a));
  if (t.history) out.history = t.history.map((m) => messageTo(d, m));
  if (t.metadata) out.metadata = t.metadata;
  return out;
}

/** A 1.0 StreamResponse → the 0.3 event: `kind`-tagged (JSON-RPC) or wrapped (proto-JSON); `final` marks the last. */
function eventTo(d: Dialect, e: StreamEvent): Json {
  const tagged = (kind: string, wrapper: string, body: Json): Json => (d.kinds ? { kind, ...body } : { [wrapper]: body });
  if ('task' in e) return d.kinds ? taskTo(d, e.task) : { task: taskTo(d, e.task) };
  if ('statusUpdate' in e) {
    const u = e.statusUpdate;
    const out: Json = { taskId: u.taskId, contextId: u.contextId, status: statusTo(d, u.status), final: endsStream(u.status.state) };
    if (u.metadata) out.metadata = u.metadata;
    return tagged('status-update', 'statusUpdate', out);
  }
  const a = e.artifactUpdate;
  return tagged('artifact-update', 'artifactUpdate', {
    taskId: a.taskId,
    contextId: a.contextId,
    artifact: artifactTo(d, a.artifact),
    append: a.append,
    lastChunk: a.lastChunk,
  });
}

/** A 1.0 TaskPushNotificationConfig → the 0.3 nested shape; credentials are never echoed back (the scheme only). */
function pushConfigTo(d: Dialect, c: PushConfigView): Json {
  const inner: Json = { id: c.id, url: c.url };
  if (c.token !== undefined) inner.token = c.token;
  if (c.authentication) inner.authentication = { schemes: [c.authentication.scheme] };
  return { ...d.pushName(c), pushNotificationConfig: inner };
}

export const messageToV03 = (m: WireMessage): Json => messageTo(JSONRPC, m);
export const taskToV03 = (t: WireTask): Json => taskTo(JSONRPC, t);
export const eventToV03 = (e: StreamEvent): Json => eventTo(JSONRPC, e);
export const pushConfigToV03 = (c: PushConfigView): Json => pushConfigTo(JSONRPC, c);
export const taskToV03Proto = (t: WireTask): Json => taskTo(PROTO, t);
export const eventToV03Proto = (e: StreamEvent): Json => eventTo(PROTO, e);
export const pushConfigToV03Proto = (c: PushConfigView): Json => pushConfigTo(PROTO, c);

/** A 1.0 SendMessageResponse (`{task}` or `{message}`) → the 0.3 proto-JSON one (same keys, 0.3 shapes inside). */
export function sendResponseToV03Proto(r: unknown): Json {
  const v = r as { task?: WireTask; message?: WireMessage };
  return v.task ? { task: taskTo(PROTO, v.task) } : { message: messageTo(PROTO, v.message!) };
}
