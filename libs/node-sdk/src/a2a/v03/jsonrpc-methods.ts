/**
 * How the params of each 0.3 JSON-RPC method become the 1.0 params (ADR 0160). Which 0.3 method
 * runs as which 1.0 operation, and how answers translate back, is in the operation table
 * (../http/operations.ts); streams translate per event.
 */
import { A2AError, A2AErrorName } from '../a2a-errors';
import { pushConfigFromV03, sendParamsFromV03 } from './shapes';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function object(params: unknown): Json {
  if (!isObject(params)) throw new A2AError(A2AErrorName.InvalidParams, 'params: must be an object', { field: 'params' });
  return params;
}

export const V03_PARAMS = {
  /** MessageSendParams. */
  send: sendParamsFromV03,
  /** `{id, historyLength?, metadata?}` (TaskQueryParams / TaskIdParams): the 1.0 params have the same names. */
  taskQuery: (params: unknown): Json => {
    const p = object(params);
    return { id: p.id, ...(p.historyLength !== undefined ? { historyLength: p.historyLength } : {}) };
  },
  setPush: (params: unknown): Json => {
    const p = object(params);
    return { taskId: p.taskId, ...pushConfigFromV03(p.pushNotificationConfig, 'params.pushNotificationConfig') };
  },
  /** Without pushNotificationConfigId, 0.3 means the task's (first) config. */
  getPush: (params: unknown): Json => {
    const p = object(params);
    return { taskId: p.id, ...(p.pushNotificationConfigId !== undefined ? { id: p.pushNotificationConfigId } : {}) };
  },
  listPush: (params: unknown): Json => ({ taskId: object(params).id }),
  deletePush: (params: unknown): Json => {
    const p = object(params);
    return { taskId: p.id, id: p.pushNotificationConfigId };
  },
} as const;
