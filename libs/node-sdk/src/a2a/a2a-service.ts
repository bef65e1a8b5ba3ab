/**
 * The A2A operations, transport-neutral: the JSON-RPC and HTTP+JSON bindings both call these,
 * so the two cannot disagree. Each request reads ONE bundle for routing and re-reads the CURRENT
 * one right before the handler runs, re-checking entitlement with the core's function.
 */
import { ANONYMOUS_TENANT } from '@cp/node-protocol';
import { deprecationFor, negotiateExtensions, type Classifier, type DeprecationAnnouncement } from '@cp/capabilities';
import { NO_A2A_OBSERVER, type A2AObserver } from '../observability/observer';
import type { ToolGateway } from '../tools/tool-gateway';
import { A2AError, A2AErrorName } from './a2a-errors';
import { ExecutionLimits, LimitExceededError } from './execution-limits';
import type { HandlerRegistry } from './handler-registry';
import type { UpstreamGateway } from './upstream/upstream-gateway';
import { declaredBy, type ServedBundle, type ServedCard } from './served-bundle';
import type { TaskEvents } from './task-events';
import { endsStream, nowIso, statusUpdate, TaskRun } from './task-run';
import { ownerKey, type TaskRecord, type TaskStore } from './task-store';
import { DEFAULT_STREAM_LIMITS, StreamLimiter, type StreamLimitSettings } from './stream-limits';
import { TaskStream } from './task-stream';
import type { PushConfigInput } from './push/push-configs';
import type { PushService } from './push/push-service';
import { DEFAULT_PARAM_LIMITS, encodeCursor, listTasksParams, sendMessageParams, taskIdParam, type ParamLimits } from './validate-params';
import { TERMINAL_STATES, type WireTask } from './wire-types';
import {
  admit,
  continueOrStart,
  entitledPolicy,
  firstRecord,
  handlerFor,
  noteClarification,
  routeError,
  routeMessage,
  routedTask,
  routingMetadata,
  saveTask,
  taskNotFound,
  type Prepared,
} from './send/prepare-steps';
import { TaskExecution, transition } from './send/task-execution';
import type { A2ALog, RequestContext } from './request-context';
import { reportOutcome, type ClarificationSink, type UsageSink } from './sinks';

export type { A2ALog, RequestContext } from './request-context';

export type { UsageSink, ClarificationChoice, ClarificationSink } from './sinks';

export interface A2AServiceDeps {
  bundle: () => ServedBundle | undefined;
  handlers: HandlerRegistry;
  tasks: TaskStore;
  /** Task updates to every stream on every replica. */
  events: TaskEvents;
  tools: ToolGateway;
  limits?: Partial<A2ALimits>;
  usage?: UsageSink;
  classifier?: Classifier;
  /** Generic limits around the handler (default: enforced without rate budgets). */
  executionLimits?: ExecutionLimits;
  clarifications?: ClarificationSink;
  /** Push-notification configs and delivery (ADR 0162); absent: push is not served. */
  push?: PushService;
  log: A2ALog;
  /** Routing decisions, denials at execution and handler durations (metrics). */
  observer?: A2AObserver;
  /** Forwards capabilities whose manifest names an upstream agent (ADR 0230); absent: they are unavailable here. */
  upstreams?: UpstreamGateway;
}

export interface A2ALimits extends ParamLimits, StreamLimitSettings {
  /** Parts larger than this are stubbed in stored history. */
  historyPartMaxBytes: number;
  /**
   * A new SendMessage task the store surely accepts is first saved with its result when that comes
   * within this many ms, as it stands at this time otherwise; 0: before the handler runs (ADR 0397).
   */
  sendStoreAfterMs: number;
}

export const DEFAULT_A2A_LIMITS: A2ALimits = {
  ...DEFAULT_PARAM_LIMITS,
  ...DEFAULT_STREAM_LIMITS,
  historyPartMaxBytes: 16_384,
  sendStoreAfterMs: 100,
};

const PENDING_TASK = 'pending';

/** Usage rows need a tenant; anonymous calls are counted under this one. */
export { ANONYMOUS_TENANT };

export class A2AService {
  private readonly limits: A2ALimits;
  private readonly executionLimits: ExecutionLimits;
  private readonly observer: A2AObserver;
  private readonly streams: StreamLimiter;
  private readonly execution: TaskExecution;

  constructor(private readonly deps: A2AServiceDeps) {
    this.limits = { ...DEFAULT_A2A_LIMITS, ...deps.limits };
    this.executionLimits = deps.executionLimits ?? new ExecutionLimits();
    this.observer = deps.observer ?? NO_A2A_OBSERVER;
    this.streams = new StreamLimiter(this.limits);
    const { tasks, events, tools, log } = deps;
    this.execution = new TaskExecution({
      tasks,
      events,
      tools,
      log,
      observer: this.observer,
      usage: deps.usage,
      historyPartMaxBytes: this.limits.historyPartMaxBytes,
    });
  }

  /** Open SSE streams on this node (leak checks, metrics). */
  get openStreams(): number {
    return this.streams.open;
  }

  /** How long and how far behind one stream may run (the SSE writer enforces these). */
  get streamLimits(): Pick<StreamLimitSettings, 'streamIdleTimeoutMs' | 'streamMaxLifetimeMs' | 'streamBufferMaxBytes'> {
    const { streamIdleTimeoutMs, streamMaxLifetimeMs, streamBufferMaxBytes } = this.limits;
    return { streamIdleTimeoutMs, streamMaxLifetimeMs, streamBufferMaxBytes };
  }

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

  async extendedCard(rc: RequestContext): Promise<ServedCard> {
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
    const card = bundle.signedExtendedCardFor ? await bundle.signedExtendedCardFor(rc.caller) : bundle.extendedCardFor(rc.caller);
    if (!card)
      throw new A2AError(A2AErrorName.ExtendedAgentCardNotConfigured, 'this agent declares an extended agent card but none is configured');
    return card;
  }

  /** What the current bundle announces about a deprecated capability to this caller (null: not deprecated). */
  deprecation(capabilityId: string | undefined, rc: RequestContext): DeprecationAnnouncement | null {
    const live = this.deps.bundle();
    if (!live || capabilityId === undefined) return null;
    return deprecationFor(live.policy, capabilityId, rc.caller, live.entitlementContext);
  }

  async sendMessage(rawParams: unknown, rc: RequestContext, active: readonly string[]): Promise<{ task: WireTask }> {
    const push = await this.pushConfigOf(rawParams, rc);
    // Without a push config (stored for a stored task), a new task's first save may wait for its result (ADR 0397).
    const held = push === undefined && this.limits.sendStoreAfterMs > 0;
    const prepared = await this.prepare(rawParams, rc, active, { coalesce: true, held });
    await this.attachPush(push, prepared, rc);
    const task = await this.execution.execute(prepared);
    return { task: trimHistory(task, prepared.params.configuration?.historyLength) };
  }

  /**
   * SendStreamingMessage: every check SendMessage makes (validation, routing, entitlement, byte
   * limits) runs before this resolves, so a refusal is an ordinary error response, never an event.
   */
  async sendStreamingMessage(rawParams: unknown, rc: RequestContext, active: readonly string[]): Promise<TaskStream> {
    this.requireStreaming();
    // Node, owner and anonymous-pool caps before anything is stored.
    this.streams.check(ownerKey(rc.caller));
    const push = await this.pushConfigOf(rawParams, rc);
    // The stream is opened (its listener in place) right before the task's first save, once every
    // check passed (ADR 0377). A refusal from here on closes it. A new task's id is known only here
    // until this call answers: its stream subscribes to other replicas' events only if it lives
    // A2A_STREAM_REMOTE_AFTER_MS (ADR 0380); a continued task's stream subscribes now, beside the save.
    let opening: Promise<TaskStream> | undefined;
    let late = false;
    const open = (taskId: string, owner: string, known: boolean) => {
      late = !known && this.limits.streamRemoteAfterMs > 0;
      opening = this.openStream(taskId, owner, !late);
      opening.catch(() => undefined);
    };
    /** A refusal after the stream was opened closes it. */
    const closeOpening = () =>
      void opening?.then(
        (s) => s.close(),
        () => undefined,
      );
    let prepared: Prepared;
    try {
      // Without a push config (which is stored for a stored task), a new task's first event may
      // leave before its first save (A2A_STREAM_FIRST_EVENT=early, ADRs 0396, 0401).
      const early = push === undefined && this.limits.streamFirstEvent === 'early';
      // A forwarded stream's first save may wait for the upstream's answer, and its first event
      // with it (A2A_SEND_STORE_AFTER_MS, ADR 0402).
      const held = early && this.limits.sendStoreAfterMs > 0 ? 'forwarded' : false;
      prepared = { ...(await this.prepare(rawParams, rc, active, { beforeSave: open, early, held })), streamed: true };
      await this.attachPush(push, prepared, rc);
    } catch (error) {
      closeOpening();
      throw error;
    }
    const r = prepared.record;
    // The handler waits neither for the subscription to be confirmed (ADR 0355) nor, on a new task,
    // for the first save to be stored (ADRs 0401, 0402); what it says before the stream's first
    // event waits in the stream. It runs even if the stream is refused or the client goes away.
    const execute = (p: Prepared) =>
      this.execution
        .execute(p)
        .catch((error: unknown) => this.deps.log.error({ taskId: r.task.id, err: (error as Error).message }, 'streamed message failed'));
    // A new task held for its result (ADR 0401): the handler starts once this turn's writes (the
    // stream's first event) are out, and the held save goes at the end of the turn after.
    const turn = prepared.firstSave === 'turn' ? prepared.run : undefined;
    if (turn)
      setImmediate(() => {
        if (prepared.execution) void execute(prepared);
        turn.releaseHoldAfterTurn();
      });
    else if (prepared.execution) void execute(prepared);
    if (prepared.firstSave === 'held') {
      // A forwarded stream's first event waits for its first save, held for the upstream's answer
      // (ADR 0402): a refusal is still an ordinary error answer, never an event.
      try {
        await prepared.stored;
      } catch (error) {
        closeOpening();
        throw error;
      }
    }
    const stream = await opening!;
    stream.capabilityId = r.capabilityId;
    stream.first({ task: trimHistory(r.task, prepared.params.configuration?.historyLength) }, r.seq, endsStream(r.task.status.state));
    if (late) stream.remoteAfter(this.limits.streamRemoteAfterMs, () => this.deps.tasks.get(r.task.id, prepared.owner));
    // A first save refused after the first event ends the stream with that refusal; nothing is stored.
    if (turn)
      prepared.stored?.catch((error: unknown) => {
        this.deps.log.warn({ taskId: r.task.id, err: (error as Error).message }, 'streamed task not stored');
        stream.fail(error);
      });
    return stream;
  }

  /** SubscribeToTask: the current Task first, then every update until a terminal or interrupted state. */
  async subscribeToTask(rawParams: unknown, rc: RequestContext): Promise<TaskStream> {
    this.requireStreaming();
    const { id } = taskIdParam(rawParams, 'id', this.limits.maxJsonDepth);
    const owner = ownerKey(rc.caller);
    const known = await this.deps.tasks.get(id, owner);
    if (!known) throw taskNotFound(id);
    if (TERMINAL_STATES.has(known.task.status.state)) throw terminalSubscribe(known);
    const stream = await this.openStream(id, owner);
    try {
      const record = await this.deps.tasks.get(id, owner);
      if (!record) throw taskNotFound(id);
      stream.capabilityId = record.capabilityId;
      stream.first({ task: record.task }, record.seq, TERMINAL_STATES.has(record.task.status.state));
      return stream;
    } catch (error) {
      stream.close();
      throw error;
    }
  }

  async getTask(rawParams: unknown, rc: RequestContext): Promise<WireTask> {
    const { id, historyLength } = taskIdParam(rawParams, 'id', this.limits.maxJsonDepth);
    const record = await this.deps.tasks.get(id, ownerKey(rc.caller));
    if (!record) throw taskNotFound(id);
    return trimHistory(record.task, historyLength);
  }

  async cancelTask(rawParams: unknown, rc: RequestContext): Promise<WireTask> {
    const { id } = taskIdParam(rawParams, 'id', this.limits.maxJsonDepth);
    const record = await this.deps.tasks.get(id, ownerKey(rc.caller));
    if (!record) throw taskNotFound(id);
    if (TERMINAL_STATES.has(record.task.status.state)) throw notCancelable(record.task);
    const next: WireTask = { ...record.task, status: { state: 'TASK_STATE_CANCELED', timestamp: nowIso() } };
    const run = new TaskRun(record, this.deps.tasks, this.deps.events);
    await run.commit(next, statusUpdate(next));
    // Finished meanwhile (on any replica): the store kept that state.
    if (run.ended) throw notCancelable(run.ended.task);
    const policy = this.deps.upstreams && this.deps.bundle()?.policy.entries.find((e) => e.capabilityId === record.capabilityId);
    if (policy?.upstream) void this.deps.upstreams!.cancel(policy, id, rc.token, record.upstream);
    return next;
  }

  /** Authenticated callers only: anonymous tasks are reachable by their id alone (ADR 80). */
  async listTasks(
    rawParams: unknown,
    rc: RequestContext,
  ): Promise<{ tasks: WireTask[]; nextPageToken: string; pageSize: number; totalSize: number }> {
    const p = listTasksParams(rawParams, this.limits.maxJsonDepth);
    if (rc.caller === null) {
      throw new A2AError(
        A2AErrorName.Unauthenticated,
        'ListTasks needs a bearer token: anonymous tasks are reachable only by their id',
        { authError: 'TOKEN_MISSING' },
        'TOKEN_MISSING',
      );
    }
    const page = await this.deps.tasks.list(ownerKey(rc.caller), {
      contextId: p.contextId,
      state: p.status,
      after: p.statusTimestampAfter,
      pageSize: p.pageSize,
      cursor: p.cursor,
    });
    const tasks = page.records.map((r) => {
      const t = trimHistory(r.task, p.historyLength);
      if (p.includeArtifacts) return t;
      const { artifacts: _artifacts, ...rest } = t;
      return rest;
    });
    return { tasks, nextPageToken: page.next ? encodeCursor(page.next) : '', pageSize: p.pageSize, totalSize: page.total };
  }

  /** SendMessageConfiguration.taskPushNotificationConfig, checked before anything is stored. */
  private async pushConfigOf(rawParams: unknown, rc: RequestContext): Promise<PushConfigInput | undefined> {
    const conf = (rawParams as { configuration?: { taskPushNotificationConfig?: unknown } } | undefined)?.configuration;
    const raw = typeof conf === 'object' && conf !== null ? conf.taskPushNotificationConfig : undefined;
    if (raw === undefined || raw === null) return undefined;
    if (!this.deps.push) throw new A2AError(A2AErrorName.PushNotificationNotSupported, 'this agent does not declare push notifications');
    // The task id is not known yet; the config is bound to the task prepare() creates.
    // The owner's push backlog is checked here too, so a full one refuses before a task exists.
    return this.deps.push.validate(raw, 'params.configuration.taskPushNotificationConfig', PENDING_TASK, ownerKey(rc.caller));
  }

  /** Stores the config for the task and sends it the task as it stands (its first update). */
  private async attachPush(input: PushConfigInput | undefined, prepared: Prepared, rc: RequestContext): Promise<void> {
    if (!input || !this.deps.push) return;
    const task = prepared.record.task;
    await this.deps.push.createForTask({ ...input, taskId: task.id }, rc, rc.version ?? '1.0', { task });
  }

  private requireStreaming(): void {
    if (!declaredBy(this.current()).streaming) {
      throw new A2AError(A2AErrorName.UnsupportedOperation, 'this agent does not declare streaming (capabilities.streaming)');
    }
  }

  /** Takes a slot of every stream cap (or throws, naming the cap); closing the stream gives it back. */
  private openStream(taskId: string, owner: string, remote = true): Promise<TaskStream> {
    // Synchronous: a refused slot throws before the caller goes on (before a streamed task is saved).
    const release = this.streams.acquire(owner, taskId);
    return TaskStream.open(this.deps.events, taskId, release, remote).catch((error: unknown) => {
      release();
      throw error;
    });
  }

  /**
   * Validation, routing and entitlement, then the task stored with the inbound message (which
   * also applies the byte limits): every refusal happens here and changes nothing. The steps are
   * in send/prepare-steps.ts.
   */
  private async prepare(
    rawParams: unknown,
    rc: RequestContext,
    active: readonly string[],
    how: {
      /** SendMessage: a new task is stored working at once (nobody streams it). */
      coalesce?: boolean;
      /** SendStreamingMessage: opens the stream right before the first save. */
      beforeSave?: (taskId: string, owner: string, known: boolean) => void;
      /** A new task surely accepted is returned before its first save, held to the end of the turn (ADRs 0396, 0401). */
      early?: boolean;
      /**
       * A new task surely accepted has its first save held for the handler's result (ADR 0397);
       * `forwarded`: only when its capability is forwarded to an upstream (a stream, ADR 0402).
       */
      held?: boolean | 'forwarded';
    } = {},
  ): Promise<Prepared> {
    const { coalesce = false, beforeSave, early = false, held = false } = how;
    const params = sendMessageParams(rawParams, this.limits);
    const bundle = this.current();
    if (params.configuration?.taskPushNotificationConfig !== undefined && !declaredBy(bundle).pushNotifications) {
      throw new A2AError(A2AErrorName.PushNotificationNotSupported, 'this agent does not declare push notifications');
    }
    const owner = ownerKey(rc.caller);
    const { record, task, inbound } = await continueOrStart(this.deps.tasks, params.message, owner);
    const tenant = rc.caller?.tenant ?? ANONYMOUS_TENANT;
    const router = { handlers: this.deps.handlers, classifier: this.deps.classifier, observer: this.observer };
    const decision = await routeMessage(router, bundle, params, rc.caller, tenant, record);
    if (decision.kind === 'failed') throw routeError(decision);
    const base = { owner, tenant, seq: record?.seq ?? 0 };
    if (decision.kind === 'input-required') {
      const clarification = { layer: 'clarification', confidence: decision.confidence, candidates: decision.candidates };
      const routing = { ...clarification, explanation: decision.explanation };
      const next = transition(task, inbound, 'TASK_STATE_INPUT_REQUIRED', decision.message, { routing }, this.limits.historyPartMaxBytes);
      beforeSave?.(task.id, owner, record !== undefined);
      const saved = await saveTask(this.deps.tasks, this.deps.events, { ...base, task: next, capabilityId: undefined }, record);
      return { params, rc, active, owner, record: saved, inbound };
    }

    const capabilityId = decision.entry.id;
    const live = this.current();
    const policy = entitledPolicy(live, capabilityId, rc.caller, this.observer);
    // Counted before any limit: a refused call is demand for the capability (never charged to the handler).
    this.deps.usage?.record(capabilityId, tenant);
    // An upstream capability is forwarded only now, after routing, entitlement and usage (ADR 0230).
    const registration =
      policy.upstream && this.deps.upstreams ? this.deps.upstreams.registration(policy, rc.token) : handlerFor(this.deps.handlers, policy);
    noteClarification(this.deps.clarifications, record, decision, capabilityId, tenant);
    const metadata = routingMetadata(live, decision, capabilityId, rc.caller);
    let admitted: Awaited<ReturnType<typeof admit>>;
    try {
      admitted = await admit(this.executionLimits, live, policy, registration, tenant, inbound);
    } catch (error) {
      if (error instanceof LimitExceededError) reportOutcome(this.deps.usage, this.observer, capabilityId, tenant, 'refused', 0);
      throw error;
    }
    const { limits, admission } = admitted;
    let saved: TaskRecord;
    let stored: Promise<void> | undefined;
    let run: TaskRun | undefined;
    let firstSave: Prepared['firstSave'];
    try {
      // A new SendMessage task is stored working at once: nobody streams it yet (ADR 82).
      const first = routedTask(task, inbound, metadata, coalesce && record === undefined, this.limits.historyPartMaxBytes);
      beforeSave?.(task.id, owner, record !== undefined);
      const toSave = { ...base, task: first, capabilityId };
      const now = firstRecord(toSave);
      // A forwarded stream's first event keeps waiting for the save: there the upstream call, not the
      // save, sets how soon the caller hears anything, and an early event only made the stream's end
      // later on a loaded node (measured, ADR 0396).
      const forwarded = Boolean(policy.upstream && this.deps.upstreams);
      const earlyHere = early && !forwarded;
      const heldHere = held === true || (held === 'forwarded' && forwarded);
      const sure = record === undefined && (earlyHere || heldHere) && this.deps.tasks.surelyAccepts?.(now) === true;
      if (!sure) saved = await saveTask(this.deps.tasks, this.deps.events, toSave, record);
      else if (earlyHere) {
        // Every check has passed and the store will surely take it: the stream shows the task at
        // once (ADR 0396); the first save waits for the handler's result or the end of the turn
        // after the handler's start, so a handler answering at once is saved with it, once (ADR 0401).
        saved = now;
        run = new TaskRun({ ...toSave, seq: 0, updatedAt: 0 }, this.deps.tasks, this.deps.events);
        stored = run.commitHeld(first, { task: first }, { capabilityId }, 'turn');
        stored.catch(() => undefined);
        firstSave = 'turn';
      } else {
        // Saved with the handler's result if that comes within A2A_SEND_STORE_AFTER_MS, as it
        // stands at that time otherwise; nobody but this call knows the task's id (ADRs 0397, 0402).
        saved = now;
        run = new TaskRun({ ...toSave, seq: 0, updatedAt: 0 }, this.deps.tasks, this.deps.events);
        // A forwarded stream's caller waits for its first event: the upstream's first answer (of any
        // kind) ends the hold with its turn (ADR 0402).
        stored = run.commitHeld(first, { task: first }, { capabilityId }, this.limits.sendStoreAfterMs, held === 'forwarded');
        stored.catch(() => undefined);
        firstSave = 'held';
      }
    } catch (error) {
      admission.release();
      throw error;
    }
    const execution = { capabilityId, registration, policy, decision, metadata, limits, admission };
    return { params, rc, active, owner, record: saved, inbound, execution, ...(stored ? { stored, run, firstSave } : {}) };
  }
}

function notCancelable(task: WireTask): A2AError {
  return new A2AError(A2AErrorName.TaskNotCancelable, `task ${task.id} is ${task.status.state} and cannot be canceled`, {
    taskId: task.id,
  });
}

function terminalSubscribe(record: TaskRecord): A2AError {
  return new A2AError(
    A2AErrorName.UnsupportedOperation,
    `task ${record.task.id} is ${record.task.status.state}; there is nothing left to subscribe to`,
    { taskId: record.task.id },
  );
}

function trimHistory(task: WireTask, historyLength: number | undefined): WireTask {
  if (historyLength === undefined || !task.history) return task;
  return { ...task, history: historyLength === 0 ? [] : task.history.slice(-historyLength) };
}
