/**
 * The A2A operations, transport-neutral: the JSON-RPC and HTTP+JSON bindings both call these,
 * so the two cannot disagree. Each request reads ONE bundle for routing and re-reads the CURRENT
 * one right before the handler runs, re-checking entitlement with the core's function.
 */
import { randomUUID } from 'node:crypto';
import {
  isEntitled,
  messageText,
  negotiateExtensions,
  routeAsync,
  type Caller,
  type Classifier,
  type RouteFailure,
} from '@cp/capabilities';
import type { ToolGateway } from '../tools/tool-gateway';
import { A2AError, A2AErrorName } from './a2a-errors';
import type { HandlerRegistry, HandlerResult } from './handler-registry';
import { declaredBy, type ServedBundle, type ServedCard } from './served-bundle';
import { ownerKey, type InMemoryTaskStore, type TaskRecord } from './task-store';
import { listTasksParams, sendMessageParams, taskIdParam } from './validate-params';
import { TERMINAL_STATES, type TaskState, type WireMessage, type WireTask } from './wire-types';

export interface RequestContext {
  caller: Caller;
  /** The caller's raw token (token exchange); undefined for anonymous. */
  token?: string;
  /** Raw A2A-Extensions request header. */
  extensions?: string | string[];
}

export interface UsageSink {
  record(capabilityId: string, tenant: string): void;
}

/**
 * A caller resolved a clarification: the task asked which capability was meant and the caller
 * continued it naming one (metadata.skillId). Recorded for review and promotion (ADR 0094).
 */
export interface ClarificationChoice {
  /** The text of the message that needed clarifying. */
  text: string;
  capabilityId: string;
  tenant: string;
}

export interface ClarificationSink {
  record(choice: ClarificationChoice): void;
}

export interface A2ALog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export interface A2AServiceDeps {
  bundle: () => ServedBundle | undefined;
  handlers: HandlerRegistry;
  tasks: InMemoryTaskStore;
  tools: ToolGateway;
  usage?: UsageSink;
  classifier?: Classifier;
  clarifications?: ClarificationSink;
  log: A2ALog;
}

/** Usage rows need a tenant; anonymous calls are counted under this one. */
export const ANONYMOUS_TENANT = 'anonymous';

const STATE: Record<HandlerResult['state'], TaskState> = {
  completed: 'TASK_STATE_COMPLETED',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  failed: 'TASK_STATE_FAILED',
  rejected: 'TASK_STATE_REJECTED',
};

export class A2AService {
  constructor(private readonly deps: A2AServiceDeps) {}

  /** The bundle, or Unavailable while the node has none applied (never half-serves). */
  current(): ServedBundle {
    const b = this.deps.bundle();
    if (!b) throw new A2AError(A2AErrorName.Unavailable, 'this agent node has not applied a capability bundle yet');
    return b;
  }

  /** ExtensionSupportRequiredError, or the activated URIs (echoed in the response header). */
  negotiate(rc: RequestContext): string[] {
    const result = negotiateExtensions(rc.extensions, declaredBy(this.current()).extensions);
    if (!result.ok) throw new A2AError(A2AErrorName.ExtensionSupportRequired, result.message, { required: result.required.join(',') });
    return result.active;
  }

  extendedCard(rc: RequestContext): ServedCard {
    const bundle = this.current();
    if (!declaredBy(bundle).extendedAgentCard)
      throw new A2AError(
        A2AErrorName.UnsupportedOperation,
        'this agent does not declare an extended agent card (capabilities.extendedAgentCard)',
      );
    if (rc.caller === null)
      throw new A2AError(
        A2AErrorName.Unauthenticated,
        'the extended agent card needs a bearer token',
        { authError: 'TOKEN_MISSING' },
        'TOKEN_MISSING',
      );
    const card = bundle.extendedCardFor(rc.caller);
    if (!card)
      throw new A2AError(A2AErrorName.ExtendedAgentCardNotConfigured, 'this agent declares an extended agent card but none is configured');
    return card;
  }

  async sendMessage(rawParams: unknown, rc: RequestContext, active: readonly string[]): Promise<{ task: WireTask }> {
    const params = sendMessageParams(rawParams);
    const bundle = this.current();
    if (params.configuration?.taskPushNotificationConfig !== undefined && !declaredBy(bundle).pushNotifications) {
      throw new A2AError(A2AErrorName.PushNotificationNotSupported, 'this agent does not declare push notifications');
    }
    const message = params.message;
    const owner = ownerKey(rc.caller);
    let record: TaskRecord | undefined;
    if (message.taskId !== undefined) {
      record = this.deps.tasks.get(message.taskId, owner);
      if (!record) throw taskNotFound(message.taskId);
      if (message.contextId !== undefined && message.contextId !== record.task.contextId) {
        throw new A2AError(
          A2AErrorName.InvalidParams,
          `params.message.contextId: task ${record.task.id} belongs to context ${record.task.contextId}`,
          { field: 'params.message.contextId' },
        );
      }
      if (TERMINAL_STATES.has(record.task.status.state)) {
        throw new A2AError(A2AErrorName.UnsupportedOperation, `task ${record.task.id} is ${record.task.status.state}; start a new task`, {
          taskId: record.task.id,
        });
      }
    }
    const task: WireTask = record?.task ?? {
      id: randomUUID(),
      contextId: message.contextId ?? randomUUID(),
      status: { state: 'TASK_STATE_SUBMITTED', timestamp: now() },
      history: [],
    };
    const inbound: WireMessage = { ...message, taskId: task.id, contextId: task.contextId };
    const accepted = params.configuration?.acceptedOutputModes ?? [];

    const decision = await routeAsync(message, rc.caller, bundle.routerIndexFor(rc.caller), {
      boundCapabilityId: record?.capabilityId,
      acceptedOutputModes: accepted,
      requestMetadata: params.metadata,
      shapes: this.deps.handlers.shapes(),
      classifier: this.deps.classifier,
    });
    if (decision.kind === 'failed') throw routeError(decision);
    if (decision.kind === 'input-required') {
      const next = this.transition(task, inbound, 'TASK_STATE_INPUT_REQUIRED', decision.message, [], {
        routing: {
          layer: 'clarification',
          confidence: decision.confidence,
          candidates: decision.candidates,
          explanation: decision.explanation,
        },
      });
      this.deps.tasks.save({
        task: next,
        capabilityId: undefined,
        owner,
        tenant: rc.caller?.tenant ?? ANONYMOUS_TENANT,
        updatedAt: Date.now(),
      });
      return { task: trimHistory(next, params.configuration?.historyLength) };
    }

    // Enforcement at execution: the CURRENT policy, the core's entitlement function. A capability
    // the caller may not use answers exactly like one that does not exist.
    const capabilityId = decision.entry.id;
    const live = this.current();
    const policy = live.policy.entries.find((e) => e.capabilityId === capabilityId);
    if (!policy || !isEntitled(policy, rc.caller, live.entitlementContext)) {
      throw new A2AError(
        A2AErrorName.UnsupportedOperation,
        'the capability this message was routed to is not available to you',
        {},
        'CAPABILITY_UNAVAILABLE',
      );
    }
    const registration = this.deps.handlers.get(policy.handler);
    if (!registration) throw new A2AError(A2AErrorName.Internal, `no handler "${policy.handler}" is registered on this node`);

    this.deps.usage?.record(capabilityId, rc.caller?.tenant ?? ANONYMOUS_TENANT);
    if (record?.capabilityId === undefined && record?.task.status.state === 'TASK_STATE_INPUT_REQUIRED' && decision.layer === 'hint') {
      const asked = record.task.history?.find((m) => m.role === 'ROLE_USER');
      const text = asked ? messageText(asked) : '';
      if (text !== '') this.deps.clarifications?.record({ text, capabilityId, tenant: rc.caller?.tenant ?? ANONYMOUS_TENANT });
    }
    const notices = decision.notices;
    const routing = {
      capabilityId,
      layer: decision.layer,
      confidence: decision.confidence,
      outputMode: decision.outputMode,
      explanation: decision.explanation,
    };
    const deprecation = notices.find((n) => n.code === 'deprecated');
    const metadata: Record<string, unknown> = { routing };
    if (notices.length > 0) metadata.notices = notices;
    if (deprecation) metadata.deprecation = { message: deprecation.message, replacedBy: deprecation.replacedBy ?? null };

    let result: HandlerResult;
    try {
      result = await registration.handle({
        caller: rc.caller,
        capability: { id: capabilityId, handler: policy.handler, state: policy.state, limits: policy.limits },
        message: inbound,
        text: messageText(message),
        task: { id: task.id, contextId: task.contextId },
        outputMode: decision.outputMode,
        acceptedOutputModes: accepted,
        activeExtensions: active,
        tools: this.deps.tools.forCall({ caller: rc.caller, callerToken: rc.token, capabilityId }),
        metadata: params.metadata ?? {},
      });
    } catch (error) {
      // Handlers' internals never reach the caller; the log has them with the task id.
      this.deps.log.error({ taskId: task.id, capability: capabilityId, err: (error as Error).message }, 'handler failed');
      result = { state: 'failed', text: 'the capability failed while handling this message' };
    }
    if (!result || !(result.state in STATE)) {
      throw new A2AError(A2AErrorName.InvalidAgentResponse, `handler "${policy.handler}" returned an invalid result`);
    }
    const artifacts = result.state === 'completed' ? result.artifacts.map((a) => ({ artifactId: randomUUID(), ...a })) : [];
    const next = this.transition(
      task,
      inbound,
      STATE[result.state],
      result.state === 'completed' ? result.text : result.text,
      artifacts,
      metadata,
    );
    this.deps.tasks.save({ task: next, capabilityId, owner, tenant: rc.caller?.tenant ?? ANONYMOUS_TENANT, updatedAt: Date.now() });
    this.deps.log.info(
      {
        taskId: task.id,
        capability: capabilityId,
        principal: rc.caller?.principal ?? 'anonymous',
        state: next.status.state,
        layer: decision.layer,
      },
      'message handled',
    );
    return { task: trimHistory(next, params.configuration?.historyLength) };
  }

  getTask(rawParams: unknown, rc: RequestContext): WireTask {
    const { id, historyLength } = taskIdParam(rawParams);
    const record = this.deps.tasks.get(id, ownerKey(rc.caller));
    if (!record) throw taskNotFound(id);
    return trimHistory(record.task, historyLength);
  }

  cancelTask(rawParams: unknown, rc: RequestContext): WireTask {
    const { id } = taskIdParam(rawParams);
    const owner = ownerKey(rc.caller);
    const record = this.deps.tasks.get(id, owner);
    if (!record) throw taskNotFound(id);
    if (TERMINAL_STATES.has(record.task.status.state)) {
      throw new A2AError(A2AErrorName.TaskNotCancelable, `task ${id} is ${record.task.status.state} and cannot be canceled`, {
        taskId: id,
      });
    }
    const next: WireTask = { ...record.task, status: { state: 'TASK_STATE_CANCELED', timestamp: now() } };
    this.deps.tasks.save({ ...record, task: next, updatedAt: Date.now() });
    return next;
  }

  listTasks(rawParams: unknown, rc: RequestContext): { tasks: WireTask[]; nextPageToken: string; pageSize: number; totalSize: number } {
    const p = listTasksParams(rawParams);
    const all = this.deps.tasks.list(ownerKey(rc.caller), { contextId: p.contextId, state: p.status });
    const start = p.pageToken === '' ? 0 : Number(p.pageToken);
    const page = all.slice(start, start + p.pageSize).map((r) => {
      const t = trimHistory(r.task, p.historyLength);
      if (p.includeArtifacts) return t;
      const { artifacts: _artifacts, ...rest } = t;
      return rest;
    });
    const end = start + page.length;
    return { tasks: page, nextPageToken: end < all.length ? String(end) : '', pageSize: p.pageSize, totalSize: all.length };
  }

  private transition(
    task: WireTask,
    inbound: WireMessage,
    state: TaskState,
    text: string | undefined,
    artifacts: WireTask['artifacts'],
    metadata: Record<string, unknown>,
  ): WireTask {
    const status: WireTask['status'] = { state, timestamp: now() };
    const history = [...(task.history ?? []), inbound];
    if (text) {
      status.message = { messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text }], taskId: task.id, contextId: task.contextId };
      history.push(status.message);
    }
    const next: WireTask = { id: task.id, contextId: task.contextId, status, history, metadata };
    const all = [...(task.artifacts ?? []), ...(artifacts ?? [])];
    if (all.length > 0) next.artifacts = all;
    return next;
  }
}

const now = () => new Date().toISOString();

function taskNotFound(id: string): A2AError {
  return new A2AError(A2AErrorName.TaskNotFound, `task ${id} was not found`, { taskId: id });
}

function routeError(f: RouteFailure): A2AError {
  const kind = f.error === 'ContentTypeNotSupportedError' ? A2AErrorName.ContentTypeNotSupported : A2AErrorName.UnsupportedOperation;
  const reason = { 'capability-removed': 'CAPABILITY_REMOVED', 'capability-unavailable': 'CAPABILITY_UNAVAILABLE' }[f.reason as string];
  return new A2AError(kind, f.message, f.details, reason);
}

function trimHistory(task: WireTask, historyLength: number | undefined): WireTask {
  if (historyLength === undefined || !task.history) return task;
  return { ...task, history: historyLength === 0 ? [] : task.history.slice(-historyLength) };
}
