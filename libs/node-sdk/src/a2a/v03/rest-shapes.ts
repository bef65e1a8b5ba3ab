/**
 * A2A 0.3 HTTP+JSON (`{restBase}/v1/…`) speaks the proto-JSON of the 0.3 `a2a.v1` protos, not the
 * `kind`-discriminated JSON of 0.3 JSON-RPC (ADR 0165). It is close to 1.0's wire JSON; what
 * differs is translated here, at the edge, like the JSON-RPC shapes in ./shapes.ts:
 *   Message      `content[]` (1.0: `parts[]`)
 *   Part         `{text}` | `{file:{fileWithUri|fileWithBytes, mimeType}}` | `{data:{data:{…}}}`
 *                (1.0: `{text}` | `{url|raw, mediaType, filename}` | `{data: value}`)
 *   TaskState    `TASK_STATE_CANCELLED` (1.0: `TASK_STATE_CANCELED`)
 *   Configuration `pushNotification`, `blocking` (1.0: `taskPushNotificationConfig`, `returnImmediately`)
 *   StatusUpdate `final` (removed in 1.0)
 *   Push config  `{name: "tasks/{t}/pushNotificationConfigs/{id}", pushNotificationConfig:{id, url, token,
 *                authentication:{schemes[], credentials}}}` (1.0: flat, one scheme)
 *   Errors       `{code, message, data}` with the JSON-RPC code (1.0: AIP-193 `{error:{…}}`)
 */
import { A2AError, A2AErrorName } from '../a2a-errors';
import type { PushConfigView } from '../push/push-configs';
import type { StreamEvent } from '../task-events';
import { endsStream } from '../task-run';
import type { SendMessageParams, TaskState, WireArtifact, WireMessage, WirePart, WireTask } from '../wire-types';
import { pushConfigFromV03 } from './shapes';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const invalid = (path: string, message: string) => new A2AError(A2AErrorName.InvalidParams, `${path}: ${message}`, { field: path });

const stateToV03 = (s: TaskState): string => (s === 'TASK_STATE_CANCELED' ? 'TASK_STATE_CANCELLED' : s);

function optionalString(v: unknown, path: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalid(path, 'must be a string');
  return v;
}

// ---- 0.3 proto-JSON → 1.0 (requests) ----

function partFromProto(p: unknown, path: string): WirePart {
  if (!isObject(p)) throw invalid(path, 'must be an object');
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
  const f = p.file;
  if (!isObject(f)) throw invalid(`${path}.file`, 'must be an object');
  const uri = optionalString(f.fileWithUri, `${path}.file.fileWithUri`);
  const bytes = optionalString(f.fileWithBytes, `${path}.file.fileWithBytes`);
  if ((uri === undefined) === (bytes === undefined)) throw invalid(`${path}.file`, 'must carry exactly one of fileWithUri, fileWithBytes');
  const out: WirePart = bytes !== undefined ? { raw: bytes } : { url: uri };
  const mimeType = optionalString(f.mimeType, `${path}.file.mimeType`);
  if (mimeType) out.mediaType = mimeType;
  return out;
}

function messageFromProto(m: unknown, path: string): WireMessage {
  if (!isObject(m)) throw invalid(path, 'is required and must be an object');
  if (m.role !== undefined && m.role !== 'ROLE_USER') throw invalid(`${path}.role`, 'must be "ROLE_USER"');
  if (typeof m.messageId !== 'string' || m.messageId === '') throw invalid(`${path}.messageId`, 'must be a non-empty string');
  if (!Array.isArray(m.content) || m.content.length === 0) throw invalid(`${path}.content`, 'must be a non-empty array');
  const out: WireMessage = {
    messageId: m.messageId,
    role: 'ROLE_USER',
    parts: m.content.map((p: unknown, i: number) => partFromProto(p, `${path}.content[${i}]`)),
  };
  for (const key of ['taskId', 'contextId'] as const) {
    const v = optionalString(m[key], `${path}.${key}`);
    if (v) out[key] = v;
  }
  if (m.metadata !== undefined) {
    if (!isObject(m.metadata)) throw invalid(`${path}.metadata`, 'must be an object');
    out.metadata = m.metadata;
  }
  if (m.extensions !== undefined) out.extensions = m.extensions as string[];
  return out;
}

/** The 0.3 `SendMessageRequest` body (`message`, or its proto name `request`) → 1.0 params. */
export function sendRequestFromV03Proto(body: unknown): SendMessageParams {
  if (!isObject(body)) throw invalid('body', 'must be an object');
  const out: Json = { message: messageFromProto(body.message ?? body.request, 'message') };
  if (body.metadata !== undefined) {
    if (!isObject(body.metadata)) throw invalid('metadata', 'must be an object');
    out.metadata = body.metadata;
  }
  const c = body.configuration;
  if (c !== undefined) {
    if (!isObject(c)) throw invalid('configuration', 'must be an object');
    const conf: Json = {};
    if (c.acceptedOutputModes !== undefined) conf.acceptedOutputModes = c.acceptedOutputModes;
    if (c.historyLength !== undefined) conf.historyLength = c.historyLength;
    if (c.blocking !== undefined) {
      if (typeof c.blocking !== 'boolean') throw invalid('configuration.blocking', 'must be a boolean');
      conf.returnImmediately = !c.blocking;
    }
    if (c.pushNotification !== undefined)
      conf.taskPushNotificationConfig = pushConfigFromV03(c.pushNotification, 'configuration.pushNotification');
    out.configuration = conf;
  }
  return out as unknown as SendMessageParams;
}

/** The 0.3 `TaskPushNotificationConfig` body of `POST /v1/tasks/{id}/pushNotificationConfigs` → 1.0 create params. */
export function pushConfigFromV03Proto(taskId: string, body: unknown): Json {
  if (!isObject(body)) throw invalid('body', 'must be an object');
  if (body.name !== undefined) {
    const name = optionalString(body.name, 'name');
    if (name && !name.startsWith(`tasks/${taskId}/`)) throw invalid('name', `must name a config of task "${taskId.slice(0, 80)}"`);
  }
  return { taskId, ...pushConfigFromV03(body.pushNotificationConfig, 'pushNotificationConfig') };
}

// ---- 1.0 → 0.3 proto-JSON (answers) ----

function partToProto(p: WirePart): Json {
  if (typeof p.text === 'string') return { text: p.text };
  if (typeof p.raw === 'string' || typeof p.url === 'string') {
    const file: Json = typeof p.raw === 'string' ? { fileWithBytes: p.raw } : { fileWithUri: p.url };
    if (p.mediaType !== undefined) file.mimeType = p.mediaType;
    return { file };
  }
  // A 0.3 data part holds a Struct; a 1.0 scalar or list is wrapped so nothing is lost.
  return { data: { data: isObject(p.data) ? p.data : { value: p.data } } };
}

function messageToProto(m: WireMessage): Json {
  const out: Json = { messageId: m.messageId, role: m.role, content: m.parts.map(partToProto) };
  if (m.taskId !== undefined) out.taskId = m.taskId;
  if (m.contextId !== undefined) out.contextId = m.contextId;
  if (m.metadata !== undefined) out.metadata = m.metadata;
  if (m.extensions !== undefined) out.extensions = m.extensions;
  return out;
}

function statusToProto(status: WireTask['status']): Json {
  const out: Json = { state: stateToV03(status.state), timestamp: status.timestamp };
  if (status.message) out.message = messageToProto(status.message);
  return out;
}

function artifactToProto(a: WireArtifact): Json {
  const out: Json = { artifactId: a.artifactId, parts: a.parts.map(partToProto) };
  if (a.name !== undefined) out.name = a.name;
  if (a.description !== undefined) out.description = a.description;
  if (a.metadata !== undefined) out.metadata = a.metadata;
  if (a.extensions !== undefined) out.extensions = a.extensions;
  return out;
}

export function taskToV03Proto(t: WireTask): Json {
  const out: Json = { id: t.id, contextId: t.contextId, status: statusToProto(t.status) };
  if (t.artifacts) out.artifacts = t.artifacts.map(artifactToProto);
  if (t.history) out.history = t.history.map(messageToProto);
  if (t.metadata) out.metadata = t.metadata;
  return out;
}

/** A 1.0 SendMessageResponse (`{task}` or `{message}`) → the 0.3 one (same keys, 0.3 shapes inside). */
export function sendResponseToV03Proto(r: unknown): Json {
  const v = r as { task?: WireTask; message?: WireMessage };
  return v.task ? { task: taskToV03Proto(v.task) } : { message: messageToProto(v.message!) };
}

/** A 1.0 StreamResponse → the 0.3 StreamResponse (`final` marks the last event). */
export function eventToV03Proto(e: StreamEvent): Json {
  if ('task' in e) return { task: taskToV03Proto(e.task) };
  if ('statusUpdate' in e) {
    const u = e.statusUpdate;
    const out: Json = { taskId: u.taskId, contextId: u.contextId, status: statusToProto(u.status), final: endsStream(u.status.state) };
    if (u.metadata) out.metadata = u.metadata;
    return { statusUpdate: out };
  }
  const a = e.artifactUpdate;
  return {
    artifactUpdate: {
      taskId: a.taskId,
      contextId: a.contextId,
      artifact: artifactToProto(a.artifact),
      append: a.append,
      lastChunk: a.lastChunk,
    },
  };
}

export function pushConfigToV03Proto(c: PushConfigView): Json {
  const inner: Json = { id: c.id, url: c.url };
  if (c.token !== undefined) inner.token = c.token;
  // Credentials are never echoed back (as on the other bindings): the scheme only.
  if (c.authentication) inner.authentication = { schemes: [c.authentication.scheme] };
  return { name: `tasks/${c.taskId}/pushNotificationConfigs/${c.id}`, pushNotificationConfig: inner };
}

/**
 * The 0.3 proto AgentCard for a 1.0 card: 1.0's security schemes and requirements already are
 * the proto forms (`{httpAuthSecurityScheme:{…}}`, `{schemes:{name:{list}}}`), so only the 0.3
 * top-level fields change (`url`, `preferredTransport`, `additionalInterfaces`, `protocolVersion`,
 * `supportsAuthenticatedExtendedCard`, `security`).
 */
export function cardToV03Proto(card: Json): Json {
  const interfaces = (Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : []) as {
    url: string;
    protocolBinding: string;
    protocolVersion: string;
  }[];
  const legacy = interfaces.filter((i) => /^0\.3(\.\d+)?$/.test(i.protocolVersion));
  const primary = legacy.find((i) => i.protocolBinding === 'HTTP+JSON') ?? legacy[0];
  const capabilities = isObject(card.capabilities) ? card.capabilities : {};
  const { extendedAgentCard, ...caps03 } = capabilities;
  const { supportedInterfaces: _interfaces, securityRequirements, signatures: _signatures, ...rest } = card;
  void _interfaces;
  void _signatures;
  const out: Json = {
    ...rest,
    protocolVersion: '0.3.0',
    url: primary?.url,
    preferredTransport: primary?.protocolBinding ?? 'HTTP+JSON',
    additionalInterfaces: legacy.map((i) => ({ url: i.url, transport: i.protocolBinding })),
    capabilities: caps03,
    supportsAuthenticatedExtendedCard: extendedAgentCard === true,
  };
  if (securityRequirements !== undefined) out.security = securityRequirements;
  return out;
}
