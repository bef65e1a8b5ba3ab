/**
 * Runs the handler of a prepared message inside its admission (execution limits), stores and
 * streams its updates and result, and returns the final task. A handler fault or an invalid result
 * is a failed task, never an error to the caller; a task canceled meanwhile stays canceled.
 */
import { randomUUID } from 'node:crypto';
import { ANONYMOUS_TENANT, type CallOutcome } from '@cp/node-protocol';
import { messageText } from '@cp/capabilities';
import { inSpan, markSpanError } from '@cp/common/core';
import type { A2AObserver } from '../../observability/observer';
import type { ToolGateway } from '../../tools/tool-gateway';
import { A2AError, A2AErrorName } from '../a2a-errors';
import type { A2ALog } from '../request-context';
import type { HandlerResult, LimitDeclaration, TypedLimits } from '../handler-registry';
import type { TaskEvents } from '../task-events';
import { nowIso, statusUpdate, TaskRun } from '../task-run';
import type { TaskStore } from '../task-store';
import { forHistory } from '../validate-params';
import type { TaskState, WireMessage, WireTask } from '../wire-types';
import type { Prepared } from './prepare-steps';
import { reportOutcome, type UsageSink } from '../sinks';

const STATE: Record<HandlerResult['state'], TaskState> = {
  completed: 'TASK_STATE_COMPLETED',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  failed: 'TASK_STATE_FAILED',
  rejected: 'TASK_STATE_REJECTED',
};

/** The outcome a call is counted under, by the state its task ended in (ADR 0310). */
const OUTCOME: Partial<Record<TaskState, CallOutcome>> = {
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_REJECTED: 'rejected',
  TASK_STATE_CANCELED: 'canceled',
  TASK_STATE_INPUT_REQUIRED: 'inputRequired',
};

export interface TaskExecutionDeps {
  tasks: TaskStore;
  events: TaskEvents;
  tools: ToolGateway;
  observer: A2AObserver;
  /** Where each call's outcome and handler duration are counted (ADR 0310). */
  usage?: UsageSink;
  log: A2ALog;
  historyPartMaxBytes: number;
}

/** The next state of a task: the inbound message and the agent's text (if any) appended to its history. */
export function transition(
  task: WireTask,
  inbound: WireMessage | undefined,
  state: TaskState,
  text: string | undefined,
  metadata: Record<string, unknown>,
  historyPartMaxBytes: number,
): WireTask {
  const status: WireTask['status'] = { state, timestamp: nowIso() };
  const history = [...(task.history ?? [])];
  if (inbound) history.push(forHistory(inbound, historyPartMaxBytes));
  if (text) {
    status.message = { messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text }], taskId: task.id, contextId: task.contextId };
    history.push(status.message);
  }
  const next: WireTask = { id: task.id, contextId: task.contextId, status, history, metadata };
  if (task.artifacts && task.artifacts.length > 0) next.artifacts = [...task.artifacts];
  return next;
}

export class TaskExecution {
  constructor(private readonly deps: TaskExecutionDeps) {}

  /** Runs the handler; its updates and its result are stored and streamed. Returns the final task. */
  async execute(p: Prepared): Promise<WireTask> {
    if (!p.execution) return p.record.task;
    const { capabilityId, decision, metadata } = p.execution;
    const run = p.run ?? new TaskRun(p.record, this.deps.tasks, this.deps.events);
    const task = p.record.task;
    // Saved lazily: a handler answering in this turn shares the save of its result (ADR 0285).
    // A failed save shows again in the result's save, which reports it. A registration with the
    // task's record (the gateway) says itself when its work is under way (ADR 0370); the result
    // is preceded by it in any case.
    let toWorking = task.status.state !== 'TASK_STATE_WORKING';
    const working = () => {
      if (!toWorking) return;
      toWorking = false;
      const update = (t: WireTask) => {
        const next: WireTask = { ...t, status: { state: 'TASK_STATE_WORKING', timestamp: nowIso() } };
        return { task: next, event: statusUpdate(next) };
      };
      void run.apply(update, {}, true).catch(() => undefined);
    };
    if (!p.execution.registration.withRecord) working();
    const tenant = p.rc.caller?.tenant ?? ANONYMOUS_TENANT;
    const started = performance.now();
    const result = await inSpan(
      'a2a.handler',
      { 'a2a.capability.id': capabilityId, 'a2a.tenant': tenant, 'a2a.routing.layer': decision.layer },
      async (span) => {
        const r = await this.runHandler(p, run, working);
        span?.setAttribute('a2a.task.state', r.state);
        if (r.state === 'failed') markSpanError(span, 'TASK_FAILED');
        return r;
      },
    );
    const seconds = (performance.now() - started) / 1000;
    this.deps.observer.handled(capabilityId, result.state, seconds);
    working();
    const max = this.deps.historyPartMaxBytes;
    const finalState = (state: TaskState, text: string | undefined) => (t: WireTask) => {
      const next = transition(t, undefined, state, text, metadata, max);
      return { task: next, event: statusUpdate(next) };
    };
    // The artifacts and the final state in one save, all or none; a task canceled meanwhile (on any
    // replica) stays canceled: the store refuses to overwrite it and the run ends on it.
    try {
      const artifacts =
        result.state === 'completed'
          ? result.artifacts.map((a) =>
              run.artifactUpdate({ ...a, artifactId: (a as { artifactId?: string }).artifactId ?? randomUUID() }, false, true),
            )
          : [];
      await run.applyAll([...artifacts, finalState(STATE[result.state], result.text)]);
    } catch (error) {
      if (!(error instanceof A2AError) || error.kind !== A2AErrorName.PayloadTooLarge) throw error;
      await run.apply(finalState('TASK_STATE_FAILED', `the result was not kept: ${error.message}`));
    }
    if (run.ended) {
      const state = run.ended.task.status.state;
      reportOutcome(this.deps.usage, this.deps.observer, capabilityId, tenant, OUTCOME[state] ?? 'canceled', seconds);
      return run.ended.task;
    }
    this.deps.log.info(
      {
        taskId: task.id,
        capability: capabilityId,
        principal: p.rc.caller?.principal ?? 'anonymous',
        state: run.current.task.status.state,
        layer: decision.layer,
      },
      'message handled',
    );
    reportOutcome(this.deps.usage, this.deps.observer, capabilityId, tenant, OUTCOME[run.current.task.status.state] ?? 'failed', seconds);
    return run.current.task;
  }

  /** The handler inside the execution limits; never throws (a fault is a failed result). */
  private async runHandler(p: Prepared, run: TaskRun, working: () => void): Promise<HandlerResult> {
    const { capabilityId, registration, policy, decision, limits, admission } = p.execution!;
    const task = p.record.task;
    let result: HandlerResult;
    const handle = registration.withRecord
      ? registration.withRecord({
          upstream: p.record.upstream,
          keepUpstream: async (upstream, alone = true) => (alone ? run.keep({ upstream }) : run.carry({ upstream })),
          ended: () => run.ended !== undefined,
          grouped: run.updates(true),
          streamed: p.streamed === true,
          working,
        })
      : registration.handle;
    try {
      const outcome = await admission.run((signal) =>
        handle({
          caller: p.rc.caller,
          capability: { id: capabilityId, handler: policy.handler, state: policy.state, limits: limits as TypedLimits<LimitDeclaration> },
          signal,
          message: p.inbound,
          text: messageText(p.params.message),
          task: { id: task.id, contextId: task.contextId },
          outputMode: decision.outputMode,
          acceptedOutputModes: p.params.configuration?.acceptedOutputModes ?? [],
          activeExtensions: p.active,
          tools: this.deps.tools.forCall({ caller: p.rc.caller, callerToken: p.rc.token, capabilityId }),
          metadata: p.params.metadata ?? {},
          updates: run.updates(),
        }),
      );
      result = outcome.timedOut
        ? { state: 'failed', text: `the capability did not finish within its time limit (timeout_s ${String(limits.timeout_s)})` }
        : outcome.value;
    } catch (error) {
      // Handlers' internals never reach the caller; the log has them with the task id.
      this.deps.log.error({ taskId: task.id, capability: capabilityId, err: (error as Error).message }, 'handler failed');
      result = { state: 'failed', text: 'the capability failed while handling this message' };
    }
    if (!result || !(result.state in STATE)) {
      this.deps.log.error({ taskId: task.id, capability: capabilityId }, `handler "${policy.handler}" returned an invalid result`);
      result = { state: 'failed', text: 'the capability returned an invalid result' };
    }
    return result;
  }
}
