/**
 * The steps a message takes before its handler runs (A2AService.prepare composes them), each with
 * only what it uses: continue or start the task, route, check entitlement against the CURRENT
 * policy, find the handler, note a resolved clarification, describe the routing on the task, and
 * admit it under the execution limits and budgets. Every refusal happens before anything is stored.
 */
import { randomUUID } from 'node:crypto';
import {
  deprecationFor,
  deprecationNotice,
  isEntitled,
  messageText,
  routeAsync,
  typedLimits,
  type Caller,
  type Classifier,
  type PendingClarification,
  type PolicyEntry,
  type RouteFailure,
} from '@cp/capabilities';
import { activeSpan, inSpan, markSpanError } from '@cp/common/core';
import type { A2AObserver } from '../../observability/observer';
import { A2AError, A2AErrorName } from '../a2a-errors';
import type { RequestContext } from '../request-context';
import type { ClarificationSink } from '../sinks';
import type { Admission, ExecutionLimits } from '../execution-limits';
import type { HandlerRegistration, HandlerRegistry } from '../handler-registry';
import type { ServedBundle } from '../served-bundle';
import type { TaskEvents } from '../task-events';
import { nowIso, statusUpdate, TaskRun } from '../task-run';
import { forHistory } from '../validate-params';
import type { TaskRecord, TaskStore } from '../task-store';
import { TERMINAL_STATES, type SendMessageParams, type WireMessage, type WireTask } from '../wire-types';

export type Routed = Extract<Awaited<ReturnType<typeof routeAsync>>, { kind: 'routed' }>;
type Decision = Awaited<ReturnType<typeof routeAsync>>;

/** A message that passed validation, routing and entitlement: only its handler remains to run. */
export interface Prepared {
  params: SendMessageParams;
  rc: RequestContext;
  active: readonly string[];
  owner: string;
  /** The task as stored before the handler runs (the inbound message already in its history). */
  record: TaskRecord;
  /**
   * Set when `record` is a new task not yet stored when prepare() returned: settles with its first
   * save, held on `run` (see `firstSave`). The handler does not wait for it; a refusal rejects here.
   */
  stored?: Promise<void>;
  /**
   * Set with `stored`: the execution queues the handler's updates on this run, so they go out with
   * (or after) the held first save.
   */
  run?: TaskRun;
  /**
   * How `stored` is held: `turn`, to the end of the turn after the handler's start (a stream's
   * early first event, ADR 0401); `held`, for the handler's result up to A2A_SEND_STORE_AFTER_MS
   * (SendMessage, ADR 0397; a forwarded stream, whose first event waits for it, ADR 0402).
   */
  firstSave?: 'turn' | 'held';
  inbound: WireMessage;
  /** The caller streams this message's updates (SendStreamingMessage), rather than waiting for one answer. */
  streamed?: boolean;
  /** undefined: the router asked the caller to clarify; the stored task is input-required. */
  execution?: {
    capabilityId: string;
    registration: HandlerRegistration;
    policy: PolicyEntry;
    decision: Routed;
    metadata: Record<string, unknown>;
    limits: Record<string, unknown>;
    /** Taken in prepare (concurrency slot, budget); released when the handler ends. */
    admission: Admission;
  };
}

export function taskNotFound(id: string): A2AError {
  return new A2AError(A2AErrorName.TaskNotFound, `task ${id} was not found`, { taskId: id });
}

function finishedTask(task: WireTask): A2AError {
  return new A2AError(A2AErrorName.UnsupportedOperation, `task ${task.id} is ${task.status.state}; start a new task`, { taskId: task.id });
}

/** Continue the caller's task (same context, not finished) or start a new one; nothing is stored yet. */
export async function continueOrStart(
  tasks: TaskStore,
  message: WireMessage,
  owner: string,
): Promise<{ record?: TaskRecord; task: WireTask; inbound: WireMessage }> {
  let record: TaskRecord | undefined;
  if (message.taskId !== undefined) {
    record = await tasks.get(message.taskId, owner);
    if (!record) throw taskNotFound(message.taskId);
    if (message.contextId !== undefined && message.contextId !== record.task.contextId) {
      throw new A2AError(
        A2AErrorName.InvalidParams,
        `params.message.contextId: task ${record.task.id} belongs to context ${record.task.contextId}`,
        { field: 'params.message.contextId' },
      );
    }
    if (TERMINAL_STATES.has(record.task.status.state)) throw finishedTask(record.task);
  }
  const task: WireTask = record?.task ?? {
    id: randomUUID(),
    contextId: message.contextId ?? randomUUID(),
    status: { state: 'TASK_STATE_SUBMITTED', timestamp: nowIso() },
    history: [],
  };
  return { record, task, inbound: { ...message, taskId: task.id, contextId: task.contextId } };
}

export interface RouterDeps {
  handlers: HandlerRegistry;
  classifier?: Classifier;
  observer: A2AObserver;
}

/** The router's decision (a continued task stays on its capability), in its span and metric. */
export function routeMessage(
  deps: RouterDeps,
  bundle: ServedBundle,
  params: SendMessageParams,
  caller: Caller,
  tenant: string,
  record: TaskRecord | undefined,
): Promise<Decision> {
  return inSpan('a2a.route', { 'a2a.tenant': tenant }, async (span) => {
    const d = await routeAsync(params.message, caller, bundle.routerIndexFor(caller), {
      boundCapabilityId: record?.capabilityId,
      acceptedOutputModes: params.configuration?.acceptedOutputModes ?? [],
      requestMetadata: params.metadata,
      shapes: deps.handlers.shapes(),
      classifier: deps.classifier,
      pending: pendingClarification(record),
    });
    const layer = d.kind === 'routed' ? d.layer : d.kind === 'input-required' ? 'clarification' : 'none';
    const outcome = d.kind === 'routed' ? 'routed' : d.kind === 'input-required' ? 'input-required' : 'refused';
    deps.observer.routed(layer, outcome);
    span?.setAttributes({ 'a2a.routing.layer': layer, 'a2a.routing.decision': outcome });
    if (d.kind === 'routed') span?.setAttribute('a2a.capability.id', d.entry.id);
    return d;
  });
}

/** Earlier text a reply is routed with is capped: the question's context, not a second message body. */
const EARLIER_TEXT_MAX_CHARS = 8_000;

/**
 * The router's open question on this task (ADR 0260): the choices it stored in the task's
 * `routing` metadata and what the caller had said so far. Only an unbound input-required task has one.
 */
export function pendingClarification(record: TaskRecord | undefined): PendingClarification | undefined {
  if (!record || record.capabilityId !== undefined || record.task.status.state !== 'TASK_STATE_INPUT_REQUIRED') return undefined;
  const routing = record.task.metadata?.routing as { candidates?: unknown } | undefined;
  const candidates = Array.isArray(routing?.candidates) ? routing.candidates : [];
  const offered = candidates.map((c) => (c as { id?: unknown } | null)?.id).filter((id): id is string => typeof id === 'string');
  const said = (record.task.history ?? []).filter((m) => m.role === 'ROLE_USER').map((m) => messageText(m));
  return { offered, earlierText: said.join('\n').slice(-EARLIER_TEXT_MAX_CHARS) };
}

export function routeError(f: RouteFailure): A2AError {
  const kind = f.error === 'ContentTypeNotSupportedError' ? A2AErrorName.ContentTypeNotSupported : A2AErrorName.UnsupportedOperation;
  const reason = { 'capability-removed': 'CAPABILITY_REMOVED', 'capability-unavailable': 'CAPABILITY_UNAVAILABLE' }[f.reason as string];
  return new A2AError(kind, f.message, f.details, reason);
}

/**
 * Enforcement at execution: the CURRENT policy, the core's entitlement function. A capability the
 * caller may not use answers exactly like one that does not exist.
 */
export function entitledPolicy(live: ServedBundle, capabilityId: string, caller: Caller, observer: A2AObserver): PolicyEntry {
  const policy = live.policy.entries.find((e) => e.capabilityId === capabilityId);
  if (policy && isEntitled(policy, caller, live.entitlementContext)) return policy;
  observer.denied(capabilityId);
  markSpanError(activeSpan(), 'CAPABILITY_UNAVAILABLE');
  throw new A2AError(
    A2AErrorName.UnsupportedOperation,
    'the capability this message was routed to is not available to you',
    {},
    'CAPABILITY_UNAVAILABLE',
  );
}

/** The deployed handler, or Unavailable: a node on older code than its bundle keeps serving the rest (issue 14). */
export function handlerFor(handlers: HandlerRegistry, policy: PolicyEntry): HandlerRegistration {
  const registration = handlers.get(policy.handler);
  if (registration) return registration;
  throw new A2AError(
    A2AErrorName.Unavailable,
    `capability "${policy.capabilityId}" is temporarily unavailable on this node (its handler is not deployed here yet)`,
    { capabilityId: policy.capabilityId, retryAfterSeconds: '30' },
    'CAPABILITY_TEMPORARILY_UNAVAILABLE',
  );
}

/** A caller answered the router's question (a hint or a reply naming a choice): recorded for review (ADR 0094, 0260). */
export function noteClarification(
  sink: ClarificationSink | undefined,
  record: TaskRecord | undefined,
  decision: Routed,
  capabilityId: string,
  tenant: string,
): void {
  if (
    record?.capabilityId !== undefined ||
    record?.task.status.state !== 'TASK_STATE_INPUT_REQUIRED' ||
    (decision.layer !== 'hint' && decision.layer !== 'clarified')
  )
    return;
  const asked = record.task.history?.find((m) => m.role === 'ROLE_USER');
  const text = asked ? messageText(asked) : '';
  if (text !== '') sink?.record({ text, capabilityId, tenant });
}

/** The task's metadata: how it was routed, the router's notices, and the deprecation this caller may see (issue 21). */
export function routingMetadata(live: ServedBundle, decision: Routed, capabilityId: string, caller: Caller): Record<string, unknown> {
  const routing = {
    capabilityId,
    layer: decision.layer,
    confidence: decision.confidence,
    outputMode: decision.outputMode,
    explanation: decision.explanation,
  };
  const metadata: Record<string, unknown> = { routing };
  if (decision.notices.length > 0) metadata.notices = decision.notices;
  const deprecation = deprecationFor(live.policy, capabilityId, caller, live.entitlementContext);
  if (deprecation) metadata.deprecation = deprecationNotice(deprecation);
  return metadata;
}

/**
 * Generic limits (input size, concurrency, the tenant's cost-class budget) refuse here, before
 * anything is stored or streamed; the admission is released when the handler ends.
 */
export async function admit(
  executionLimits: ExecutionLimits,
  live: ServedBundle,
  policy: PolicyEntry,
  registration: HandlerRegistration,
  tenant: string,
  message: WireMessage,
): Promise<{ limits: Record<string, unknown>; admission: Admission }> {
  const limits = typedLimits(policy.limits, registration.limits);
  const admission = await executionLimits.admit({
    agentId: live.policy.agentId,
    capabilityId: policy.capabilityId,
    tenant,
    limits,
    budgets: live.costBudgets,
    message,
  });
  return { limits, admission };
}

/**
 * The routed task as first stored: submitted, the inbound message in its history. A new task that
 * nobody streams yet is stored working straight away (one save instead of submitted + working;
 * ADR 82); streams and continued tasks show both.
 */
export function routedTask(
  task: WireTask,
  inbound: WireMessage,
  metadata: Record<string, unknown>,
  working: boolean,
  historyPartMaxBytes: number,
): WireTask {
  return {
    ...task,
    status: { state: working ? 'TASK_STATE_WORKING' : 'TASK_STATE_SUBMITTED', timestamp: nowIso() },
    history: [...(task.history ?? []), forHistory(inbound, historyPartMaxBytes)],
    metadata,
  };
}

/** A new task's record as saveTask() stores it (seq 1): what a stream shows before that save returns (ADR 0396). */
export function firstRecord(record: Omit<TaskRecord, 'updatedAt'>): TaskRecord {
  return { ...record, seq: 1, updatedAt: Date.parse(record.task.status.timestamp) };
}

/** Saves a new task (seq 1) or the next state of a known one, publishing the change. */
export async function saveTask(
  tasks: TaskStore,
  events: TaskEvents,
  record: Omit<TaskRecord, 'updatedAt'>,
  known: TaskRecord | undefined,
): Promise<TaskRecord> {
  const run = new TaskRun(known ?? { ...record, seq: 0, updatedAt: 0 }, tasks, events);
  // A new task's id is known only here until this call answers: its first event is for this node's
  // listeners alone (the caller's stream, push), never PUBLISHed (ADR 0379).
  await run.commit(record.task, known ? statusUpdate(record.task) : { task: record.task }, { capabilityId: record.capabilityId }, !known);
  // Finished on another replica since it was read (a cancel): refused like a finished task.
  if (run.ended) throw finishedTask(run.ended.task);
  return run.current;
}
