/**
 * The node's 0.3 edge turned around (issue 28 item 5, ADR 0270): when the node is a gateway in
 * front of a 0.3-only upstream, the 1.0 request it forwards goes out in 0.3 shapes and the
 * upstream's 0.3 events come back as 1.0 StreamResponses. Both directions go through the same two
 * dialects (JSON-RPC `kind` tags, HTTP+JSON proto-JSON) and the same part checks as the node's
 * own 0.3 front (./shapes.ts, ADR 0221): there is one 0.3 translation, read both ways.
 *
 * What the upstream sends is untrusted: every object is checked where it is read, and a
 * malformed event is an A2AError naming the 0.3 path (never a value the upstream chose).
 */
import { A2AError, A2AErrorName } from '../a2a-errors';
import type { TaskState, WireMessage } from '../wire-types';
import { JSONRPC, messageTo, partFrom, PROTO, V03_STATE, type Dialect } from './shapes';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const invalid = (path: string, message: string) => new A2AError(A2AErrorName.InvalidParams, `${path}: ${message}`, { field: path });

const FROM_KEBAB = new Map(Object.entries(V03_STATE).map(([v10, v03]) => [v03, v10 as TaskState]));
const V10_STATES = new Set(Object.keys(V03_STATE));

function stateFrom(d: Dialect, state: unknown, path: string): TaskState {
  if (d.kinds) {
    const s = typeof state === 'string' ? FROM_KEBAB.get(state) : undefined;
    if (!s) throw invalid(path, 'must be a 0.3 task state such as "working" or "completed"');
    return s;
  }
  if (state === 'TASK_STATE_CANCELLED') return 'TASK_STATE_CANCELED';
  if (typeof state !== 'string' || !V10_STATES.has(state) || state === 'TASK_STATE_CANCELED')
    throw invalid(path, 'must be a 0.3 task state such as "TASK_STATE_WORKING"');
  return state as TaskState;
}

const strings = (o: Json, keys: readonly string[]): Json =>
  Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));

function partsFrom(d: Dialect, parts: unknown, path: string) {
  if (!Array.isArray(parts)) throw invalid(path, 'must be an array');
  return parts.map((p, i) => partFrom(d, p, `${path}[${i}]`));
}

/** A message the upstream sent (role agent): its parts are checked like a caller's. */
function agentMessageFrom(d: Dialect, m: unknown, path: string): Json {
  if (!isObject(m)) throw invalid(path, 'must be an object');
  if (d.kinds && m.kind !== 'message') throw invalid(`${path}.kind`, 'must be "message"');
  return {
    ...strings(m, ['messageId', 'taskId', 'contextId']),
    role: 'ROLE_AGENT',
    parts: partsFrom(d, m[d.partsKey], `${path}.${d.partsKey}`),
  };
}

function statusFrom(d: Dialect, s: unknown, path: string): Json {
  if (!isObject(s)) throw invalid(path, 'must be an object');
  const out: Json = { state: stateFrom(d, s.state, `${path}.state`) };
  if (s.message !== undefined && s.message !== null) out.message = agentMessageFrom(d, s.message, `${path}.message`);
  return out;
}

function artifactFrom(d: Dialect, a: unknown, path: string): Json {
  if (!isObject(a)) throw invalid(path, 'must be an object');
  return { ...strings(a, ['artifactId', 'name', 'description']), parts: partsFrom(d, a.parts, `${path}.parts`) };
}

function taskFrom(d: Dialect, t: Json, path: string): Json {
  const out: Json = { ...strings(t, ['id', 'contextId']), status: statusFrom(d, t.status, `${path}.status`) };
  if (t.artifacts !== undefined) {
    if (!Array.isArray(t.artifacts)) throw invalid(`${path}.artifacts`, 'must be an array');
    out.artifacts = t.artifacts.map((a, i) => artifactFrom(d, a, `${path}.artifacts[${i}]`));
  }
  return out;
}

const statusUpdateFrom = (d: Dialect, u: Json, path: string): Json => ({
  ...strings(u, ['taskId', 'contextId']),
  status: statusFrom(d, u.status, `${path}.status`),
});

const artifactUpdateFrom = (d: Dialect, u: Json, path: string): Json => ({
  ...strings(u, ['taskId', 'contextId']),
  artifact: artifactFrom(d, u.artifact, `${path}.artifact`),
  append: u.append === true,
  lastChunk: u.lastChunk === true,
});

/** One 0.3 stream event (a JSON-RPC `result`, or a proto-JSON StreamResponse) → the 1.0 StreamResponse. */
function eventFrom(d: Dialect, e: unknown): Json {
  const root = d.kinds ? 'result' : 'event';
  if (!isObject(e)) throw invalid(root, 'must be an object');
  if (d.kinds) {
    switch (e.kind) {
      case 'task':
        return { task: taskFrom(d, e, root) };
      case 'message':
        return { message: agentMessageFrom(d, e, root) };
      case 'status-update':
        return { statusUpdate: statusUpdateFrom(d, e, root) };
      case 'artifact-update':
        return { artifactUpdate: artifactUpdateFrom(d, e, root) };
      default:
        throw invalid(`${root}.kind`, 'must be "task", "message", "status-update" or "artifact-update"');
    }
  }
  const set = ['task', 'message', 'statusUpdate', 'artifactUpdate'].filter((k) => e[k] !== undefined);
  if (set.length !== 1 || !isObject(e[set[0]]))
    throw invalid(root, 'must carry exactly one object of task, message, statusUpdate, artifactUpdate');
  const [key] = set;
  const body = e[key] as Json;
  if (key === 'task') return { task: taskFrom(d, body, `${root}.task`) };
  if (key === 'message') return { message: agentMessageFrom(d, body, `${root}.message`) };
  if (key === 'statusUpdate') return { statusUpdate: statusUpdateFrom(d, body, `${root}.statusUpdate`) };
  return { artifactUpdate: artifactUpdateFrom(d, body, `${root}.artifactUpdate`) };
}

/** The 1.0 send the gateway forwards → the 0.3 `MessageSendParams` (JSON-RPC) or proto-JSON `SendMessageRequest`. */
function sendTo(d: Dialect, message: WireMessage, acceptedOutputModes: readonly string[]): Json {
  return {
    message: messageTo(d, { ...message, role: 'ROLE_USER' }),
    // 0.3 servers may answer a send at once unless asked to block (a stream ignores it; ADR 0350).
    configuration: { acceptedOutputModes: [...acceptedOutputModes], blocking: true },
  };
}

export const sendToV03 = (m: WireMessage, modes: readonly string[]): Json => sendTo(JSONRPC, m, modes);
export const sendToV03Proto = (m: WireMessage, modes: readonly string[]): Json => sendTo(PROTO, m, modes);
export const eventFromV03 = (e: unknown): Json => eventFrom(JSONRPC, e);
export const eventFromV03Proto = (e: unknown): Json => eventFrom(PROTO, e);
