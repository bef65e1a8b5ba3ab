/**
 * The A2A operations, transport-neutral: the JSON-RPC and HTTP+JSON bindings both call these,
 * so the two cannot disagree. Each request reads ONE bundle for routing and re-reads the CURRENT
 * one right before the handler runs, re-checking entitlement with the core's function.
 */
import { ANONYMOUS_TENANT } from '@cp/node-protocol';
import { randomUUID } from 'node:crypto';
import {
  deprecationFor,
  deprecationNotice,
  isEntitled,
  messageText,
  negotiateExtensions,
  routeAsync,
  typedLimits,
  type Caller,
  type Classifier,
  type DeprecationAnnouncement,
  type PolicyEntry,
  type RouteFailure,
} from '@cp/capabilities';
import { activeSpan, inSpan, markSpanError } from '@cp/common';
import { NO_A2A_OBSERVER, type A2AObserver } from '../observability/observer';
import type { ToolGateway } from '../tools/tool-gateway';
import { A2AError, A2AErrorName } from './a2a-errors';
import { ExecutionLimits, type Admission } from './execution-limits';
import type { HandlerRegistration, HandlerRegistry, HandlerResult, LimitDeclaration, TypedLimits } from './handler-registry';
import { declaredBy, type ServedBundle, type ServedCard } from './served-bundle';
import type { TaskEvents } from './task-events';
import { endsStream, nowIso, statusUpdate, TaskRun } from './task-run';
import { ownerKey, type TaskRecord, type TaskStore } from './task-store';
import { DEFAULT_STREAM_LIMITS, StreamLimiter, type StreamLimitSettings } from './stream-limits';
import { TaskStream } from './task-stream';
import type { PushConfigInput } from './push/push-configs';
import type { PushService } from './push/push-service';
import type { ProtocolVersion } from './version';
import {
  DEFAULT_PARAM_LIMITS,
  encodeCursor,
  forHistory,
  listTasksParams,
  sendMessageParams,
  taskIdParam,
  type ParamLimits,
} from './validate-params';
import { TERMINAL_STATES, type SendMessageParams, type TaskState, type WireMessage, type WireTask } from './wire-types';

export interface RequestContext {
  caller: Caller;
  /** The caller's raw token (token exchange); undefined for anonymous. */
  token?: string;
  /** Raw A2A-Extensions request header. */
  extensions?: string | string[];
  /** The protocol version the request speaks (0.3 requests are translated at the edge; default 1.0). */
  version?: ProtocolVersion;
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
}

export interface A2ALimits extends ParamLimits, StreamLimitSettings {
  /** Parts larger than this are stubbed in stored history. */
  historyPartMaxBytes: number;
}

export const DEFAULT_A2A_LIMITS: A2ALimits = { ...DEFAULT_PARAM_LIMITS, ...DEFAULT_STREAM_LIMITS, historyPartMaxBytes: 16_384 };

/** A message that passed validation, routing and entitlement: only its handler remains to run. */
interface Prepared {
  params: SendMessageParams;
  rc: RequestContext;
  active: readonly string[];
  owner: string;
  /** The task as stored before the handler runs (the inbound message already in its history). */
  record: TaskRecord;
  inbound: WireMessage;
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

type Routed = Extract<Awaited<ReturnType<typeof routeAsync>>, { kind: 'routed' }>;

const PENDING_TASK = 'pending';

/** Usage rows need a tenant; anonymous calls are counted under this one. */
export { ANONYMOUS_TENANT };

const STATE: Record<HandlerResult['state'], TaskState> = {
  completed: 'TASK_STATE_COMPLETED',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  failed: 'TASK_STATE_FAILED',
  rejected: 'TASK_STATE_REJECTED',
};

export class A2AService {
  private readonly limits: A2ALimits;
  private readonly executionLimits: ExecutionLimits;
  private readonly observer: A2AObserver;
  private readonly streams: StreamLimiter;

  constructor(private readonly deps: A2AServiceDeps) {
    this.limits = { ...DEFAULT_A2A_LIMITS, ...deps.limits };
    this.executionLimits = deps.executionLimits ?? new ExecutionLimits();
    this.observer = deps.observer ?? NO_A2A_OBSERVER;
    this.streams = new StreamLimiter(this.limits);
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
    const prepared = await this.prepare(rawParams, rc, active, true);
    await this.attachPush(push, prepared, rc);
    const task = await this.execute(prepared);
    return { task: trimHistory(task, prepared.params.configuration?.historyLength) };
  }

  /**
   * SendStreamingMessage: every check SendMessage makes (validation, routing, entitlement, byte
   * limits) runs before this resolves, so a refusal is an ordinary error response, never an event.
   */
  async sendStreamingMessage(rawParams: unknown, rc: RequestContext, active: readonly string[]): Promise<TaskStream> {
    this.requireStreaming();
    // Node, owner and anonymous-pool caps before anything is stored (the task cap once it exists).
    this.streams.check(ownerKey(rc.caller));
    const push = await this.pushConfigOf(rawParams, rc);
    const prepared = await this.prepare(rawParams, rc, active);
    await this.attachPush(push, prepared, rc);
    let stream: TaskStream;
    try {
      stream = await this.openStream(prepared.record.task.id, prepared.owner);
    } catch (error) {
      // The task is stored: run it anyway, so it does not stay submitted forever.
      if (prepared.execution) void this.execute(prepared).catch(() => undefined);
      throw error;
    }
    const r = prepared.record;
    stream.capabilityId = r.capabilityId;
    stream.first({ task: trimHistory(r.task, prepared.params.configuration?.historyLength) }, r.seq, endsStream(r.task.status.state));
    if (prepared.execution) {
      // The handler runs on even if the client goes away; the task is stored either way.
      void this.execute(prepared).catch((error: unknown) =>
        this.deps.log.error({ taskId: r.task.id, err: (error as Error).message }, 'streamed message failed'),
      );
    }
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
    if (TERMINAL_STATES.has(record.task.status.state)) {
      throw new A2AError(A2AErrorName.TaskNotCancelable, `task ${id} is ${record.task.status.state} and cannot be canceled`, {
        taskId: id,
      });
    }
    const next: WireTask = { ...record.task, status: { state: 'TASK_STATE_CANCELED', timestamp: nowIso() } };
    await new TaskRun(record, this.deps.tasks, this.deps.events).commit(next, statusUpdate(next));
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

  /** Takes a slot of every stream cap (or refuses, naming the cap); closing the stream gives it back. */
  private async openStream(taskId: string, owner: string): Promise<TaskStream> {
    const release = this.streams.acquire(owner, taskId);
    try {
      return await TaskStream.open(this.deps.events, taskId, release);
    } catch (error) {
      release();
      throw error;
    }
  }

  /**
   * Validation, routing and entitlement, then the task stored with the inbound message (which
   * also applies the byte limits): every refusal happens here and changes nothing.
   */
  private async prepare(rawParams: unknown, rc: RequestContext, active: readonly string[], coalesce = false): Promise<Prepared> {
    const params = sendMessageParams(rawParams, this.limits);
    const bundle = this.current();
    if (params.configuration?.taskPushNotificationConfig !== undefined && !declaredBy(bundle).pushNotifications) {
      throw new A2AError(A2AErrorName.PushNotificationNotSupported, 'this agent does not declare push notifications');
    }
    const message = params.message;
    const owner = ownerKey(rc.caller);
    let record: TaskRecord | undefined;
    if (message.taskId !== undefined) {
      record = await this.deps.tasks.get(message.taskId, owner);
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
      status: { state: 'TASK_STATE_SUBMITTED', timestamp: nowIso() },
      history: [],
    };
    const inbound: WireMessage = { ...message, taskId: task.id, contextId: task.contextId };
    const accepted = params.configuration?.acceptedOutputModes ?? [];

    const tenant = rc.caller?.tenant ?? ANONYMOUS_TENANT;
    const decision = await inSpan('a2a.route', { 'a2a.tenant': tenant }, async (span) => {
      const d = await routeAsync(message, rc.caller, bundle.routerIndexFor(rc.caller), {
        boundCapabilityId: record?.capabilityId,
        acceptedOutputModes: accepted,
        requestMetadata: params.metadata,
        shapes: this.deps.handlers.shapes(),
        classifier: this.deps.classifier,
      });
      const layer = d.kind === 'routed' ? d.layer : d.kind === 'input-required' ? 'clarification' : 'none';
      const outcome = d.kind === 'routed' ? 'routed' : d.kind === 'input-required' ? 'input-required' : 'refused';
      this.observer.routed(layer, outcome);
      span?.setAttributes({ 'a2a.routing.layer': layer, 'a2a.routing.decision': outcome });
      if (d.kind === 'routed') span?.setAttribute('a2a.capability.id', d.entry.id);
      return d;
    });
    if (decision.kind === 'failed') throw routeError(decision);
    const base = { owner, tenant: rc.caller?.tenant ?? ANONYMOUS_TENANT, seq: record?.seq ?? 0 };
    if (decision.kind === 'input-required') {
      const next = this.transition(task, inbound, 'TASK_STATE_INPUT_REQUIRED', decision.message, [], {
        routing: {
          layer: 'clarification',
          confidence: decision.confidence,
          candidates: decision.candidates,
          explanation: decision.explanation,
        },
      });
      const saved = await this.store({ ...base, task: next, capabilityId: undefined }, record);
      return { params, rc, active, owner, record: saved, inbound };
    }

    // Enforcement at execution: the CURRENT policy, the core's entitlement function. A capability
    // the caller may not use answers exactly like one that does not exist.
    const capabilityId = decision.entry.id;
    const live = this.current();
    const policy = live.policy.entries.find((e) => e.capabilityId === capabilityId);
    if (!policy || !isEntitled(policy, rc.caller, live.entitlementContext)) {
      this.observer.denied(capabilityId);
      markSpanError(activeSpan(), 'CAPABILITY_UNAVAILABLE');
      throw new A2AError(
        A2AErrorName.UnsupportedOperation,
        'the capability this message was routed to is not available to you',
        {},
        'CAPABILITY_UNAVAILABLE',
      );
    }
    // Counted before any limit: a refused call is demand for the capability (never charged to the handler).
    this.deps.usage?.record(capabilityId, tenant);
    const registration = this.deps.handlers.get(policy.handler);
    if (!registration) {
      // A node on older code than its bundle (issue 14): keep serving the rest, say so clearly.
      throw new A2AError(
        A2AErrorName.Unavailable,
        `capability "${capabilityId}" is temporarily unavailable on this node (its handler is not deployed here yet)`,
        { capabilityId, retryAfterSeconds: '30' },
        'CAPABILITY_TEMPORARILY_UNAVAILABLE',
      );
    }

    if (record?.capabilityId === undefined && record?.task.status.state === 'TASK_STATE_INPUT_REQUIRED' && decision.layer === 'hint') {
      const asked = record.task.history?.find((m) => m.role === 'ROLE_USER');
      const text = asked ? messageText(asked) : '';
      if (text !== '') this.deps.clarifications?.record({ text, capabilityId, tenant });
    }
    const notices = decision.notices;
    const routing = {
      capabilityId,
      layer: decision.layer,
      confidence: decision.confidence,
      outputMode: decision.outputMode,
      explanation: decision.explanation,
    };
    const metadata: Record<string, unknown> = { routing };
    if (notices.length > 0) metadata.notices = notices;
    // The replacement and the dates, as this caller may see them (issue 21).
    const deprecation = deprecationFor(live.policy, capabilityId, rc.caller, live.entitlementContext);
    if (deprecation) metadata.deprecation = deprecationNotice(deprecation);

    const submitted: WireTask = {
      ...task,
      status: { state: 'TASK_STATE_SUBMITTED', timestamp: nowIso() },
      history: [...(task.history ?? []), forHistory(inbound, this.limits.historyPartMaxBytes)],
      metadata,
    };
    // Generic limits (input size, concurrency, the tenant's cost-class budget) refuse here, before
    // anything is stored or streamed; the admission is released when the handler ends.
    const limits = typedLimits(policy.limits, registration.limits);
    const admission = await this.executionLimits.admit({
      agentId: live.policy.agentId,
      capabilityId,
      tenant,
      limits,
      budgets: live.costBudgets,
      message: inbound,
    });
    let saved: TaskRecord;
    try {
      // SendMessage on a new task: nobody streams it yet, so it is stored working straight away
      // (one save instead of submitted + working; ADR 82). Streams and continued tasks show both.
      const first: WireTask =
        coalesce && record === undefined ? { ...submitted, status: { ...submitted.status, state: 'TASK_STATE_WORKING' } } : submitted;
      saved = await this.store({ ...base, task: first, capabilityId }, record);
    } catch (error) {
      admission.release();
      throw error;
    }
    return {
      params,
      rc,
      active,
      owner,
      record: saved,
      inbound,
      execution: { capabilityId, registration, policy, decision, metadata, limits, admission },
    };
  }

  /** Saves a new task (seq 1) or the next state of a known one, publishing the change. */
  private async store(record: Omit<TaskRecord, 'updatedAt'>, known: TaskRecord | undefined): Promise<TaskRecord> {
    const run = new TaskRun(known ?? { ...record, seq: 0, updatedAt: 0 }, this.deps.tasks, this.deps.events);
    await run.commit(record.task, known ? statusUpdate(record.task) : { task: record.task }, { capabilityId: record.capabilityId });
    return run.current;
  }

  /** Runs the handler; its updates and its result are stored and streamed. Returns the final task. */
  private async execute(p: Prepared): Promise<WireTask> {
    if (!p.execution) return p.record.task;
    const { capabilityId, decision, metadata } = p.execution;
    const run = new TaskRun(p.record, this.deps.tasks, this.deps.events);
    const task = p.record.task;
    if (task.status.state !== 'TASK_STATE_WORKING') {
      const working: WireTask = { ...task, status: { state: 'TASK_STATE_WORKING', timestamp: nowIso() } };
      await run.commit(working, statusUpdate(working));
    }
    const tenant = p.rc.caller?.tenant ?? ANONYMOUS_TENANT;
    const started = performance.now();
    const result = await inSpan(
      'a2a.handler',
      { 'a2a.capability.id': capabilityId, 'a2a.tenant': tenant, 'a2a.routing.layer': decision.layer },
      async (span) => {
        const r = await this.runHandler(p, run);
        span?.setAttribute('a2a.task.state', r.state);
        if (r.state === 'failed') markSpanError(span, 'TASK_FAILED');
        return r;
      },
    );
    this.observer.handled(capabilityId, result.state, (performance.now() - started) / 1000);
    // A task canceled meanwhile (on any replica) stays canceled.
    const latest = await this.deps.tasks.get(task.id, p.owner);
    if (latest && TERMINAL_STATES.has(latest.task.status.state)) return latest.task;
    try {
      if (result.state === 'completed') {
        for (const a of result.artifacts) await run.updates().artifact(a, { lastChunk: true });
      }
      const next = this.transition(run.current.task, undefined, STATE[result.state], result.text, [], metadata);
      await run.commit(next, statusUpdate(next));
    } catch (error) {
      if (!(error instanceof A2AError) || error.kind !== A2AErrorName.PayloadTooLarge) throw error;
      const next = this.transition(
        run.current.task,
        undefined,
        'TASK_STATE_FAILED',
        `the result was not kept: ${error.message}`,
        [],
        metadata,
      );
      await run.commit(next, statusUpdate(next));
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
    return run.current.task;
  }

  /** The handler inside the execution limits; never throws (a fault is a failed result). */
  private async runHandler(p: Prepared, run: TaskRun): Promise<HandlerResult> {
    const { capabilityId, registration, policy, decision, limits, admission } = p.execution!;
    const task = p.record.task;
    let result: HandlerResult;
    try {
      const outcome = await admission.run((signal) =>
        registration.handle({
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

  private transition(
    task: WireTask,
    inbound: WireMessage | undefined,
    state: TaskState,
    text: string | undefined,
    artifacts: WireTask['artifacts'],
    metadata: Record<string, unknown>,
  ): WireTask {
    const status: WireTask['status'] = { state, timestamp: nowIso() };
    const history = [...(task.history ?? [])];
    if (inbound) history.push(forHistory(inbound, this.limits.historyPartMaxBytes));
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

function terminalSubscribe(record: TaskRecord): A2AError {
  return new A2AError(
    A2AErrorName.UnsupportedOperation,
    `task ${record.task.id} is ${record.task.status.state}; there is nothing left to subscribe to`,
    { taskId: record.task.id },
  );
}

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
