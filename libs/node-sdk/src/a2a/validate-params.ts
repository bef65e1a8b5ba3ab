/** Shape checks of A2A request params: InvalidParams naming the first bad field. */
import type { WirePart } from '@cp/capabilities';
import { A2AError, A2AErrorName } from './a2a-errors';
import type { SendMessageParams } from './wire-types';

const invalid = (path: string, message: string) => new A2AError(A2AErrorName.InvalidParams, `${path}: ${message}`, { field: path });
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const PART_KINDS = ['text', 'raw', 'url', 'data'] as const;

export function sendMessageParams(params: unknown): SendMessageParams {
  if (!isObject(params)) throw invalid('params', 'must be an object');
  const m = params.message;
  if (!isObject(m)) throw invalid('params.message', 'is required and must be an object');
  if (typeof m.messageId !== 'string' || m.messageId === '') throw invalid('params.message.messageId', 'must be a non-empty string');
  if (m.role !== 'ROLE_USER') throw invalid('params.message.role', 'must be "ROLE_USER"');
  if (!Array.isArray(m.parts) || m.parts.length === 0) throw invalid('params.message.parts', 'must be a non-empty array');
  m.parts.forEach((p: unknown, i: number) => part(p, `params.message.parts[${i}]`));
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
  return p as WirePart;
}

export function taskIdParam(params: unknown, key = 'id'): { id: string; historyLength?: number } {
  if (!isObject(params)) throw invalid('params', 'must be an object');
  const id = params[key];
  if (typeof id !== 'string' || id === '') throw invalid(`params.${key}`, 'must be a non-empty string');
  const h = params.historyLength;
  if (h !== undefined && (!Number.isInteger(h) || (h as number) < 0))
    throw invalid('params.historyLength', 'must be a non-negative integer');
  return { id, historyLength: h as number | undefined };
}

export function listTasksParams(params: unknown): {
  pageSize: number;
  pageToken: string;
  contextId?: string;
  status?: string;
  historyLength?: number;
  includeArtifacts: boolean;
} {
  const p = params === undefined ? {} : params;
  if (!isObject(p)) throw invalid('params', 'must be an object');
  const size = p.pageSize === undefined ? 50 : Number(p.pageSize);
  if (!Number.isInteger(size) || size < 1 || size > 100) throw invalid('params.pageSize', 'must be an integer from 1 to 100');
  const token = p.pageToken === undefined ? '' : p.pageToken;
  if (typeof token !== 'string' || (token !== '' && !/^\d+$/.test(token)))
    throw invalid('params.pageToken', 'must be a token from a previous page');
  const h = p.historyLength === undefined ? undefined : Number(p.historyLength);
  if (h !== undefined && (!Number.isInteger(h) || h < 0)) throw invalid('params.historyLength', 'must be a non-negative integer');
  return {
    pageSize: size,
    pageToken: token,
    contextId: typeof p.contextId === 'string' ? p.contextId : undefined,
    status: typeof p.status === 'string' ? p.status : undefined,
    historyLength: h,
    includeArtifacts: p.includeArtifacts === true || p.includeArtifacts === 'true',
  };
}
