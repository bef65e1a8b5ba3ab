/** Shape checks of A2A request params: InvalidParams naming the first bad field. */
import type { WirePart } from '@cp/capabilities';
import { A2AError, A2AErrorName } from './a2a-errors';
import type { TaskCursor } from './task-store';
import type { SendMessageParams, WireMessage } from './wire-types';

export interface ParamLimits {
  /** Deepest JSON nesting accepted anywhere in params. */
  maxJsonDepth: number;
  /** Largest part (its JSON) accepted in a message. */
  maxPartBytes: number;
}

export const DEFAULT_PARAM_LIMITS: ParamLimits = { maxJsonDepth: 32, maxPartBytes: 1_048_576 };

const invalid = (path: string, message: string) => new A2AError(A2AErrorName.InvalidParams, `${path}: ${message}`, { field: path });
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const PART_KINDS = ['text', 'raw', 'url', 'data'] as const;

/**
 * InvalidParams when `value` nests deeper than `max` (objects and arrays count one level each).
 * Iterative: a 100,000-deep value must not overflow the stack here, nor reach the store, where
 * every later JSON.stringify of it would throw.
 */
export function checkDepth(value: unknown, max: number, path = 'params'): void {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) throw invalid(path, `nests deeper than ${max} levels`);
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
}

export function sendMessageParams(params: unknown, limits: ParamLimits = DEFAULT_PARAM_LIMITS): SendMessageParams {
  if (!isObject(params)) throw invalid('params', 'must be an object');
  checkDepth(params, limits.maxJsonDepth);
  const m = params.message;
  if (!isObject(m)) throw invalid('params.message', 'is required and must be an object');
  if (typeof m.messageId !== 'string' || m.messageId === '') throw invalid('params.message.messageId', 'must be a non-empty string');
  if (m.role !== 'ROLE_USER') throw invalid('params.message.role', 'must be "ROLE_USER"');
  if (!Array.isArray(m.parts) || m.parts.length === 0) throw invalid('params.message.parts', 'must be a non-empty array');
  m.parts.forEach((p: unknown, i: number) => {
    part(p, `params.message.parts[${i}]`);
    const bytes = partBytes(p as WirePart);
    if (bytes > limits.maxPartBytes) {
      throw new A2AError(
        A2AErrorName.PayloadTooLarge,
        `params.message.parts[${i}]: the part is ${bytes} bytes; a part may be at most ${limits.maxPartBytes}`,
        { field: `params.message.parts[${i}]`, limit: String(limits.maxPartBytes) },
        'PART_TOO_LARGE',
      );
    }
  });
  for (const key of ['taskId', 'contextId'] as const) {
    if (m[key] !== undefined && (typeof m[key] !== 'string' || m[key] === ''))
      throw invalid(`params.message.${key}`, 'must be a non-empty string');
  }
  if (m.metadata !== undefined && !isObject(m.metadata)) throw invalid('params.message.metadata', 'must be an object');
  if (params.metadata !== undefined && !isObject(params.metadata)) throw invalid('params.metadata', 'must be an object');
  const c = params.configuration;
  if (c !== undefined) {
    if (!isObject(c)) throw invalid('params.configuration', 'must be an object');
    if (
      c.acceptedOutputModes !== undefined &&
      (!Array.isArray(c.acceptedOutputModes) || c.acceptedOutputModes.some((x) => typeof x !== 'string'))
    ) {
      throw invalid('params.configuration.acceptedOutputModes', 'must be a list of media types');
    }
    if (c.historyLength !== undefined && (!Number.isInteger(c.historyLength) || (c.historyLength as number) < 0)) {
      throw invalid('params.configuration.historyLength', 'must be a non-negative integer');
    }
  }
  return params as unknown as SendMessageParams;
}

function part(p: unknown, path: string): WirePart {
  if (!isObject(p)) throw invalid(path, 'must be an object');
  const kinds = PART_KINDS.filter((k) => p[k] !== undefined);
  if (kinds.length !== 1) throw invalid(path, 'must carry exactly one of text, raw, url, data');
  const k = kinds[0];
  if ((k === 'text' || k === 'raw' || k === 'url') && typeof p[k] !== 'string') throw invalid(`${path}.${k}`, 'must be a string');
  if (k === 'raw' && !/^[A-Za-z0-9+/_-]*={0,2}$/.test(p.raw as string)) throw invalid(`${path}.raw`, 'must be base64');
  if (p.mediaType !== undefined && typeof p.mediaType !== 'string') throw invalid(`${path}.mediaType`, 'must be a string');
  return p;
}

export const partBytes = (p: WirePart): number => Buffer.byteLength(JSON.stringify(p), 'utf8');

/**
 * The message as stored in history: parts over `maxBytes` become a short text stub naming what
 * was there (the handler saw the whole part; history keeps the task's size bounded).
 */
export function forHistory(message: WireMessage, maxBytes: number): WireMessage {
  if (!message.parts.some((p) => partBytes(p) > maxBytes)) return message;
  return {
    ...message,
    parts: message.parts.map((p) => {
      const bytes = partBytes(p);
      if (bytes <= maxBytes) return p;
      const omitted: Record<string, unknown> = { bytes };
      if (p.mediaType !== undefined) omitted.mediaType = p.mediaType;
      if (p.filename !== undefined) omitted.filename = p.filename;
      return { text: `[part of ${bytes} bytes not kept in history]`, metadata: { omitted } };
    }),
  };
}

export function taskIdParam(
  params: unknown,
  key = 'id',
  maxDepth = DEFAULT_PARAM_LIMITS.maxJsonDepth,
): { id: string; historyLength?: number } {
  if (!isObject(params)) throw invalid('params', 'must be an object');
  checkDepth(params, maxDepth);
  const id = params[key];
  if (typeof id !== 'string' || id === '') throw invalid(`params.${key}`, 'must be a non-empty string');
  const h = params.historyLength;
  if (h !== undefined && (!Number.isInteger(h) || (h as number) < 0))
    throw invalid('params.historyLength', 'must be a non-negative integer');
  return { id, historyLength: h as number | undefined };
}

export function listTasksParams(
  params: unknown,
  maxDepth = DEFAULT_PARAM_LIMITS.maxJsonDepth,
): {
  pageSize: number;
  cursor?: TaskCursor;
  contextId?: string;
  status?: string;
  statusTimestampAfter?: number;
  historyLength?: number;
  includeArtifacts: boolean;
} {
  const p = params === undefined ? {} : params;
  if (!isObject(p)) throw invalid('params', 'must be an object');
  checkDepth(p, maxDepth);
  const size = p.pageSize === undefined ? 50 : Number(p.pageSize);
  if (!Number.isInteger(size) || size < 1 || size > 100) throw invalid('params.pageSize', 'must be an integer from 1 to 100');
  const token = p.pageToken === undefined ? '' : p.pageToken;
  if (typeof token !== 'string') throw invalid('params.pageToken', 'must be a token from a previous page');
  const cursor = token === '' ? undefined : decodeCursor(token);
  const h = p.historyLength === undefined ? undefined : Number(p.historyLength);
  if (h !== undefined && (!Number.isInteger(h) || h < 0)) throw invalid('params.historyLength', 'must be a non-negative integer');
  let after: number | undefined;
  if (p.statusTimestampAfter !== undefined && p.statusTimestampAfter !== '') {
    after = typeof p.statusTimestampAfter === 'string' && TIMESTAMP.test(p.statusTimestampAfter) ? Date.parse(p.statusTimestampAfter) : NaN;
    if (!Number.isFinite(after)) throw invalid('params.statusTimestampAfter', 'must be an RFC 3339 timestamp such as 2026-11-30T08:00:00Z');
  }
  for (const key of ['contextId', 'status'] as const) {
    if (p[key] !== undefined && typeof p[key] !== 'string') throw invalid(`params.${key}`, 'must be a string');
  }
  return {
    pageSize: size,
    cursor,
    contextId: typeof p.contextId === 'string' && p.contextId !== '' ? p.contextId : undefined,
    status: typeof p.status === 'string' && p.status !== '' && p.status !== 'TASK_STATE_UNSPECIFIED' ? p.status : undefined,
    statusTimestampAfter: after,
    historyLength: h,
    includeArtifacts: p.includeArtifacts === true || p.includeArtifacts === 'true',
  };
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** Opaque to callers: base64url of [status time ms, task id] of the last task of the previous page. */
export function encodeCursor(c: TaskCursor): string {
  return Buffer.from(JSON.stringify([c.at, c.id]), 'utf8').toString('base64url');
}

function decodeCursor(token: string): TaskCursor {
  const bad = () => invalid('params.pageToken', 'must be a token from a previous page');
  if (token.length > 512 || !/^[A-Za-z0-9_-]+$/.test(token)) throw bad();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(value) || value.length !== 2 || !Number.isSafeInteger(value[0]) || typeof value[1] !== 'string') throw bad();
  return { at: value[0] as number, id: value[1] };
}
