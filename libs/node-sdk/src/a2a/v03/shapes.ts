/**
 * A2A 0.3 ⇄ 1.0 data shapes, translated at the edge (ADR 0160): a 0.3 request is turned into the
 * 1.0 params the one A2AService takes, and what the service answers is turned back into 0.3
 * shapes. Routing, entitlement, limits and usage therefore run one code path for both versions.
 *
 * 0.3 (types.ts of A2A v0.3.0): `kind` discriminators ("message", "task", "status-update",
 * "artifact-update"; parts "text" | "file" | "data"), roles "user"/"agent", kebab-case task
 * states, `final` on status updates, `blocking` instead of `returnImmediately`, push configs
 * nested under `pushNotificationConfig` with `authentication.schemes[]`.
 */
import { A2AError, A2AErrorName } from '../a2a-errors';
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

// ---- 0.3 → 1.0 (requests) ----

function optionalString(v: unknown, path: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalid(path, 'must be a string');
  return v;
}

/** A 0.3 part → a 1.0 part; InvalidParams naming the 0.3 path when malformed. */
export function partFromV03(p: unknown, path: string): WirePart {
  if (!isObject(p)) throw invalid(path, 'must be an object');
  const metadata = p.metadata;
  if (metadata !== undefined && !isObject(metadata)) throw invalid(`${path}.metadata`, 'must be an object');
  const withMeta = (part: WirePart): WirePart => (metadata ? { ...part, metadata } : part);
  switch (p.kind) {
    case 'text':
      if (typeof p.text !== 'string') throw invalid(`${path}.text`, 'must be a string');
      return withMeta({ text: p.text });
    case 'data':
      if (!isObject(p.data)) throw invalid(`${path}.data`, 'must be an object');
      return withMeta({ data: p.data });
    case 'file': {
      const f = p.file;
      if (!isObject(f)) throw invalid(`${path}.file`, 'must be an object');
      const name = optionalString(f.name, `${path}.file.name`);
      const mimeType = optionalString(f.mimeType, `${path}.file.mimeType`);
      const hasBytes = f.bytes !== undefined;
      const hasUri = f.uri !== undefined;
      if (hasBytes === hasUri) throw invalid(`${path}.file`, 'must carry exactly one of bytes, uri');
      const out: WirePart = hasBytes ? { raw: f.bytes as string } : { url: f.uri as string };
      if (hasBytes && typeof f.bytes !== 'string') throw invalid(`${path}.file.bytes`, 'must be a base64 string');
      if (hasUri && typeof f.uri !== 'string') throw invalid(`${path}.file.uri`, 'must be a string');
      if (name !== undefined) out.filename = name;
      if (mimeType !== undefined) out.mediaType = mimeType;
      return withMeta(out);
    }
    default:
      throw invalid(`${path}.kind`, 'must be "text", "file" or "data"');
  }
}

export function messageFromV03(m: unknown, path: string): WireMessage {
  if (!isObject(m)) throw invalid(path, 'is required and must be an object');
  if (m.kind !== 'message') throw invalid(`${path}.kind`, 'must be "message"');
  if (m.role !== 'user') throw invalid(`${path}.role`, 'must be "user"');
  if (typeof m.messageId !== 'string' || m.messageId === '') throw invalid(`${path}.messageId`, 'must be a non-empty string');
  if (!Array.isArray(m.parts) || m.parts.length === 0) throw invalid(`${path}.parts`, 'must be a non-empty array');
  const out: WireMessage = {
    messageId: m.messageId,
    role: 'ROLE_USER',
    parts: m.parts.map((p: unknown, i: number) => partFromV03(p, `${path}.parts[${i}]`)),
  };
  for (const key of ['taskId', 'contextId'] as const) {
    const v = optionalString(m[key], `${path}.${key}`);
    if (v !== undefined) out[key] = v;
  }
  if (m.metadata !== undefined) out.metadata = m.metadata as Json;
  if (m.extensions !== undefined) out.extensions = m.extensions as string[];
  if (m.referenceTaskIds !== undefined) out.referenceTaskIds = m.referenceTaskIds as string[];
  return out;
}

/** A 0.3 PushNotificationConfig → the 1.0 flattened TaskPushNotificationConfig (without taskId). */
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

/** MessageSendParams (0.3) → SendMessageRequest (1.0); the service validates the rest. */
export function sendParamsFromV03(params: unknown): SendMessageParams {
  if (!isObject(params)) throw invalid('params', 'must be an object');
  const out: Json = { message: messageFromV03(params.message, 'params.message') };
  if (params.metadata !== undefined) out.metadata = params.metadata;
  const c = params.configuration;
  if (c !== undefined) {
    if (!isObject(c)) throw invalid('params.configuration', 'must be an object');
    const conf: Json = {};
    if (c.acceptedOutputModes !== undefined) conf.acceptedOutputModes = c.acceptedOutputModes;
    if (c.historyLength !== undefined) conf.historyLength = c.historyLength;
    if (c.blocking !== undefined) {
      if (typeof c.blocking !== 'boolean') throw invalid('params.configuration.blocking', 'must be a boolean');
      conf.returnImmediately = !c.blocking;
    }
    if (c.pushNotificationConfig !== undefined) {
      conf.taskPushNotificationConfig = pushConfigFromV03(c.pushNotificationConfig, 'params.configuration.pushNotificationConfig');
    }
    out.configuration = conf;
  }
  return out as unknown as SendMessageParams;
}

// ---- 1.0 → 0.3 (answers) ----

export function partToV03(p: WirePart): Json {
  const meta = p.metadata ? { metadata: p.metadata } : {};
  if (typeof p.text === 'string') return { kind: 'text', text: p.text, ...meta };
  if (typeof p.raw === 'string' || typeof p.url === 'string') {
    const file: Json = typeof p.raw === 'string' ? { bytes: p.raw } : { uri: p.url };
    if (p.filename !== undefined) file.name = p.filename;
    if (p.mediaType !== undefined) file.mimeType = p.mediaType;
    return { kind: 'file', file, ...meta };
  }
  // 0.3 data parts hold an object; a 1.0 scalar or list is wrapped so nothing is lost.
  const data = isObject(p.data) ? p.data : { value: p.data };
  return { kind: 'data', data, ...meta };
}

export function messageToV03(m: WireMessage): Json {
  const out: Json = {
    kind: 'message',
    messageId: m.messageId,
    role: m.role === 'ROLE_AGENT' ? 'agent' : 'user',
    parts: m.parts.map(partToV03),
  };
  if (m.taskId !== undefined) out.taskId = m.taskId;
  if (m.contextId !== undefined) out.contextId = m.contextId;
  if (m.metadata !== undefined) out.metadata = m.metadata;
  if (m.extensions !== undefined) out.extensions = m.extensions;
  if (m.referenceTaskIds !== undefined) out.referenceTaskIds = m.referenceTaskIds;
  return out;
}

function statusToV03(status: WireTask['status']): Json {
  const out: Json = { state: V03_STATE[status.state] ?? 'unknown', timestamp: status.timestamp };
  if (status.message) out.message = messageToV03(status.message);
  return out;
}

export function artifactToV03(a: WireArtifact): Json {
  const out: Json = { artifactId: a.artifactId, parts: a.parts.map(partToV03) };
  if (a.name !== undefined) out.name = a.name;
  if (a.description !== undefined) out.description = a.description;
  if (a.metadata !== undefined) out.metadata = a.metadata;
  if (a.extensions !== undefined) out.extensions = a.extensions;
  return out;
}

export function taskToV03(t: WireTask): Json {
  const out: Json = { kind: 'task', id: t.id, contextId: t.contextId, status: statusToV03(t.status) };
  if (t.artifacts) out.artifacts = t.artifacts.map(artifactToV03);
  if (t.history) out.history = t.history.map(messageToV03);
  if (t.metadata) out.metadata = t.metadata;
  return out;
}

/** A 1.0 StreamResponse → the bare 0.3 event (`final` marks the last event of a stream). */
export function eventToV03(e: StreamEvent): Json {
  if ('task' in e) return taskToV03(e.task);
  if ('statusUpdate' in e) {
    const u = e.statusUpdate;
    const out: Json = {
      kind: 'status-update',
      taskId: u.taskId,
      contextId: u.contextId,
      status: statusToV03(u.status),
      final: endsStream(u.status.state),
    };
    if (u.metadata) out.metadata = u.metadata;
    return out;
  }
  const a = e.artifactUpdate;
  return {
    kind: 'artifact-update',
    taskId: a.taskId,
    contextId: a.contextId,
    artifact: artifactToV03(a.artifact),
    append: a.append,
    lastChunk: a.lastChunk,
  };
}

/** A 1.0 TaskPushNotificationConfig → the 0.3 nested shape. */
export function pushConfigToV03(c: {
  taskId: string;
  id: string;
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
}): Json {
  const inner: Json = { id: c.id, url: c.url };
  if (c.token !== undefined) inner.token = c.token;
  if (c.authentication) {
    inner.authentication = {
      schemes: [c.authentication.scheme],
      ...(c.authentication.credentials !== undefined ? { credentials: c.authentication.credentials } : {}),
    };
  }
  return { taskId: c.taskId, pushNotificationConfig: inner };
}
