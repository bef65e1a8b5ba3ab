/**
 * The 0.3 JSON-RPC methods, each as the 1.0 method it becomes, how its params translate in and
 * how the answer translates out (ADR 0160). Streams translate per event (eventToV03).
 */
import { A2AError, A2AErrorName } from '../a2a-errors';
import type { PushConfigView } from '../push/push-configs';
import type { WireTask } from '../wire-types';
import { pushConfigFromV03, pushConfigToV03, sendParamsFromV03, taskToV03 } from './shapes';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface V03Method {
  /** The 1.0 method the request runs as. */
  v1: string;
  params: (params: unknown) => unknown;
  /** Translates a unary result back; streams and the extended card are translated by the caller. */
  result: (result: unknown) => unknown;
}

function object(params: unknown): Json {
  if (!isObject(params)) throw new A2AError(A2AErrorName.InvalidParams, 'params: must be an object', { field: 'params' });
  return params;
}

/** `{id, historyLength?, metadata?}` (TaskQueryParams / TaskIdParams): the 1.0 params have the same names. */
const taskQuery = (params: unknown) => {
  const p = object(params);
  return { id: p.id, ...(p.historyLength !== undefined ? { historyLength: p.historyLength } : {}) };
};

const identity = (r: unknown) => r;

export const V03_METHODS: Readonly<Record<string, V03Method>> = {
  'message/send': { v1: 'SendMessage', params: sendParamsFromV03, result: (r) => taskToV03((r as { task: WireTask }).task) },
  'message/stream': { v1: 'SendStreamingMessage', params: sendParamsFromV03, result: identity },
  'tasks/get': { v1: 'GetTask', params: taskQuery, result: (r) => taskToV03(r as WireTask) },
  'tasks/cancel': { v1: 'CancelTask', params: taskQuery, result: (r) => taskToV03(r as WireTask) },
  'tasks/resubscribe': { v1: 'SubscribeToTask', params: taskQuery, result: identity },
  'agent/getAuthenticatedExtendedCard': { v1: 'GetExtendedAgentCard', params: () => undefined, result: identity },
  'tasks/pushNotificationConfig/set': {
    v1: 'CreateTaskPushNotificationConfig',
    params: (params) => {
      const p = object(params);
      return { taskId: p.taskId, ...pushConfigFromV03(p.pushNotificationConfig, 'params.pushNotificationConfig') };
    },
    result: (r) => pushConfigToV03(r as PushConfigView),
  },
  'tasks/pushNotificationConfig/get': {
    v1: 'GetTaskPushNotificationConfig',
    // Without pushNotificationConfigId, 0.3 means the task's (first) config.
    params: (params) => {
      const p = object(params);
      return { taskId: p.id, ...(p.pushNotificationConfigId !== undefined ? { id: p.pushNotificationConfigId } : {}) };
    },
    result: (r) => pushConfigToV03(r as PushConfigView),
  },
  'tasks/pushNotificationConfig/list': {
    v1: 'ListTaskPushNotificationConfigs',
    params: (params) => ({ taskId: object(params).id }),
    result: (r) => (r as { configs: PushConfigView[] }).configs.map(pushConfigToV03),
  },
  'tasks/pushNotificationConfig/delete': {
    v1: 'DeleteTaskPushNotificationConfig',
    params: (params) => {
      const p = object(params);
      return { taskId: p.id, id: p.pushNotificationConfigId };
    },
    result: () => null,
  },
};
