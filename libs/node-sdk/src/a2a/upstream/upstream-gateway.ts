/**
 * The node as a gateway (issue 28, ADR 0230): a capability whose manifest names an upstream is
 * executed by forwarding to that A2A agent, AFTER everything the node does for any handler
 * (routing, entitlement at execution, limits and budgets, usage, deprecation, traces): this is a
 * handler registration built per call, so a caller who is not entitled never reaches it. The node
 * keeps its own task and maps it to the upstream's; the upstream's status and artifact events
 * become the node task's updates (stored, streamed on both bindings, pushed); anything malformed,
 * oversized, out of order or about another task ends the task with a clear error.
 */
import type { PolicyEntry } from '@cp/capabilities';
import type { HostResolver } from '@cp/common/core';
import type { Handler, HandlerResult, TaskUpdates } from '../handler';
import type { HandlerRegistration, TaskRecordAccess } from '../handler-registry';
import type { WireArtifact, WireMessage } from '../wire-types';
import { hash } from 'node:crypto';
import {
  cancelUpstream,
  findUpstreamTask,
  getUpstreamTask,
  sendMessage,
  streamMessage,
  subscribeUpstream,
  UpstreamError,
  type UpstreamCall,
} from './upstream-client';
import { UpstreamTokenCache, type ExchangedUpstreamToken } from './upstream-tokens';

export interface UpstreamGatewayDeps {
  /**
   * An upstream token from the control plane's token exchange (kind "upstream") for this caller and
   * capability; reused within its lifetime (its expiresAt, else the JWT's exp; ADR 0271).
   */
  exchange(callerToken: string, capabilityId: string): Promise<ExchangedUpstreamToken>;
  /** The agent's protocol.upstreamAllow from the current bundle. */
  allow(): readonly string[];
  log: { warn(fields: Record<string, unknown>, message: string): void };
  resolve?: HostResolver;
  /** Largest upstream SSE event accepted (default 1 MiB). */
  maxEventBytes?: number;
}

/** The upstream's task a node task is mapped to (stored on the node task's record, ADR 0320). */
export interface UpstreamLink {
  taskId: string;
  contextId: string;
}

/**
 * What one forwarding stores on the node task. Whatever arrives in one turn (one upstream read)
 * waits for the end of that turn: the upstream's task id (the link, ADR 0320) and whole artifacts.
 * When the final state comes in the same turn, the artifacts go with the result and are saved with
 * it, all or none, and a link to a task that ended is not stored at all: an upstream answering in
 * one read costs the node task one save besides its working state, as an in-process handler does.
 * Otherwise they are stored at the end of the turn. Every other update first sends what waits, so
 * the order is the upstream's. A failed save fails the forwarding. The node task's working state
 * waits for the first of these sends: a stream's task is stored submitted, then working with what
 * the upstream's first read brought, in one save (ADR 0370).
 */
class Forwarded {
  private held: WireArtifact[] = [];
  private link?: UpstreamLink;
  private timer?: NodeJS.Immediate;
  /** Every save so far, settled (none yet: nothing to wait for). */
  private saving?: Promise<unknown>;
  private failure?: Error;
  readonly updates: TaskUpdates;

  /** `onEnded`: the task ended elsewhere (a cancel on another replica), learnt when the link was kept. */
  constructor(
    private readonly record: TaskRecordAccess,
    updates: TaskUpdates,
    private readonly onEnded: () => void,
  ) {
    this.updates = record.grouped ?? updates;
  }

  /** The upstream named its task: kept with the node task at the end of this turn (later()). */
  keep(link: UpstreamLink): void {
    this.link = link;
  }

  /** Sent at the end of this turn (later()), or with the result when the same event ended the task. */
  hold(artifact: WireArtifact): void {
    this.held.push(artifact);
  }

  /** Sends what waits, then waits for every save so far; throws the first that failed. */
  async release(): Promise<void> {
    this.send();
    if (this.saving) await this.saving;
    if (this.failure) throw this.failure;
  }

  /**
   * The final state came: the result, with the held artifacts when it completed (else they are
   * sent first); the link is stored (with the result) only if the upstream task can be continued.
   */
  async finish(final: HandlerResult): Promise<HandlerResult> {
    this.stop();
    // Saved with the result, which always follows: a continuation must find it.
    if (this.link && final.state === 'input-required') void this.record.keepUpstream(this.link, false);
    this.link = undefined;
    if (final.state !== 'completed') {
      await this.release();
      return final;
    }
    const held = this.held;
    this.held = [];
    await this.release();
    return { ...final, artifacts: [...held, ...final.artifacts] };
  }

  /** The forwarding ended without a result to store them with: what waits is dropped. */
  discard(): void {
    this.stop();
    this.held = [];
    this.link = undefined;
  }

  /**
   * An event that did not end the task was applied: what it kept or held is sent at the end of
   * this turn, with whatever the rest of the turn brings. An event that ended it (the one answer to
   * a SendMessage, mostly) goes to finish() in the same turn instead: no timer is made for it.
   */
  later(): void {
    if (this.timer || (this.link === undefined && this.held.length === 0)) return;
    this.timer = setImmediate(() => {
      this.timer = undefined;
      this.send();
    });
  }

  private stop(): void {
    if (this.timer) clearImmediate(this.timer);
    this.timer = undefined;
  }

  private send(): void {
    this.stop();
    // The node task becomes working with the first thing its upstream answered, in that save (ADR 0370).
    this.record.working();
    const track = (saved: Promise<unknown>) => {
      const settled = saved.catch((e: unknown) => {
        this.failure ??= e as Error;
      });
      this.saving = this.saving ? Promise.all([this.saving, settled]) : settled;
    };
    // A save refused because the task ended meanwhile resolves; the record says so.
    if (this.link) track(this.record.keepUpstream(this.link).then(() => this.record.ended() && this.onEnded()));
    this.link = undefined;
    for (const a of this.held) track(this.updates.artifact(a, { lastChunk: true }));
    this.held = [];
  }
}

/** Where no task record is at hand: nothing stored to continue, nothing kept. */
const NO_RECORD: TaskRecordAccess = { keepUpstream: async () => undefined, ended: () => false, working: () => undefined };

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const INTERRUPTED = new Set(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED']);

function textOf(message: unknown): string | undefined {
  if (!isObject(message) || !Array.isArray(message.parts)) return undefined;
  const text = message.parts
    .map((p) => (isObject(p) && typeof p.text === 'string' ? p.text : ''))
    .filter(Boolean)
    .join('\n');
  return text === '' ? undefined : text;
}

/** The handler result a final upstream state means; undefined while the upstream still works. */
function finalOf(state: string, text: string | undefined): HandlerResult | undefined {
  if (state === 'TASK_STATE_WORKING' || state === 'TASK_STATE_SUBMITTED') return undefined;
  if (state === 'TASK_STATE_COMPLETED') return { state: 'completed', artifacts: [], text };
  if (INTERRUPTED.has(state)) return { state: 'input-required', text: text ?? 'the agent needs more input' };
  if (state === 'TASK_STATE_REJECTED') return { state: 'rejected', text: text ?? 'the agent rejected this task' };
  if (state === 'TASK_STATE_FAILED' || state === 'TASK_STATE_CANCELED')
    return { state: 'failed', text: text ?? `the agent ended the task ${state}` };
  throw new UpstreamError('the upstream sent an unknown task state');
}

function artifactOf(v: unknown): WireArtifact {
  if (!isObject(v) || typeof v.artifactId !== 'string' || v.artifactId === '' || !Array.isArray(v.parts))
    throw new UpstreamError('the upstream sent a malformed artifact');
  const a: WireArtifact = { artifactId: v.artifactId.slice(0, 200), parts: v.parts as WireArtifact['parts'] };
  if (typeof v.name === 'string') a.name = v.name.slice(0, 200);
  if (typeof v.description === 'string') a.description = v.description.slice(0, 2000);
  return a;
}

/**
 * A message whose caller waits for one answer goes to the upstream as SendMessage, and its answer
 * is the one event (ADR 0350): an upstream answers it when its task ended or needs input, as the
 * node does. An answer about a task still working is followed by this: a subscription to that
 * task; if that is refused at once (the task ended meanwhile), the task as it stands (GetTask).
 * Nothing for any other answer.
 */
async function* afterAnswer(call: UpstreamCall, answer: Json): AsyncGenerator<Json> {
  const task = isObject(answer.task) ? answer.task : undefined;
  const state = task && isObject(task.status) ? task.status.state : undefined;
  if (typeof task?.id !== 'string' || (state !== 'TASK_STATE_WORKING' && state !== 'TASK_STATE_SUBMITTED')) return;
  let heard = false;
  try {
    for await (const event of subscribeUpstream(call, task.id)) {
      heard = true;
      yield event;
    }
  } catch (error) {
    if (heard || !(error instanceof UpstreamError)) throw error;
    yield await getUpstreamTask(call, task.id);
  }
}

/**
 * The context a new upstream task of a held SendMessage is put in (ADR 0371, ADR 0386): a one-way
 * hash of the node task's id shaped as a UUID (version 8), so every replica of the node finds that
 * task from the node task's id alone, and the upstream learns none of the node's ids (a random
 * UUID's hash says nothing about it).
 */
export function upstreamContextFor(nodeTaskId: string): string {
  // One-shot hash: no Hash object per call (the same digest as createHash's).
  const h = hash('sha256', `cp-upstream-context\n${nodeTaskId}`, 'buffer');
  h[6] = (h[6] & 0x0f) | 0x80;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.toString('hex', 0, 16);
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

export class UpstreamGateway {
  /** Node tasks whose forwarding runs here; a cancel that finds no link yet is remembered for them. */
  private readonly running = new Set<string>();
  private readonly cancelOnLink = new Set<string>();
  /**
   * The context the node chose for the upstream's new task, by node task (a SendMessage to a 1.0
   * upstream, answered only when its task ended): a cancel before that answer finds the upstream
   * task in it (ADR 0371).
   */
  private readonly contexts = new Map<string, string>();
  private readonly tokens: UpstreamTokenCache;

  constructor(private readonly deps: UpstreamGatewayDeps) {
    this.tokens = new UpstreamTokenCache((callerToken, capabilityId) => deps.exchange(callerToken, capabilityId));
  }

  /** The registration that forwards this call of an upstream capability (limits: the generic ones only). */
  registration(policy: PolicyEntry, callerToken: string | undefined): HandlerRegistration {
    const forward = (record: TaskRecordAccess) => this.handler(policy, callerToken, record);
    return { handle: forward(NO_RECORD), withRecord: forward, limits: {}, outputModes: [] };
  }

  /**
   * CancelTask reaches the upstream task this node task is mapped to (`link`, as stored with the
   * task; best effort, logged). Without one, a forwarding running here cancels it once the
   * upstream names its task, or at once when it is found in the context the node chose for it
   * (ADR 0371); once either way. A forwarding on another replica: the task in that context, found
   * from the node task's id, is canceled at once too (ADR 0386).
   */
  async cancel(policy: PolicyEntry, nodeTaskId: string, callerToken: string | undefined, link?: UpstreamLink): Promise<void> {
    if (!policy.upstream) return;
    if (!link) {
      // The upstream has not named its task yet: cancel it as soon as it does (else it runs on unseen).
      if (this.running.has(nodeTaskId)) {
        this.cancelOnLink.add(nodeTaskId);
        const contextId = this.contexts.get(nodeTaskId);
        if (contextId) await this.cancelInContext(policy, nodeTaskId, callerToken, contextId);
      } else if (policy.upstream.version === '1.0') {
        // Forwarded by another replica (or by none any more): a held SendMessage's upstream task
        // is in the context its id gives; a stream's is not, and nothing is found there (ADR 0386).
        await this.cancelInContext(policy, nodeTaskId, callerToken, upstreamContextFor(nodeTaskId), false);
      }
      return;
    }
    try {
      const call = await this.call(policy, callerToken);
      await cancelUpstream(call, link.taskId);
    } catch (error) {
      this.deps.log.warn({ taskId: nodeTaskId, capability: policy.capabilityId, err: (error as Error).message }, 'upstream cancel failed');
    }
  }

  /**
   * The upstream task in the context the node chose for it, canceled unless its link did it first
   * (ADR 0371); `here` false: the forwarding runs on another replica, which cancels it again if its
   * link comes (a second CancelTask of an ended task, harmless; ADR 0386).
   */
  private async cancelInContext(
    policy: PolicyEntry,
    nodeTaskId: string,
    callerToken: string | undefined,
    contextId: string,
    here = true,
  ): Promise<void> {
    try {
      const call = await this.call(policy, callerToken);
      const upstreamTaskId = await findUpstreamTask(call, contextId);
      // Not there yet (or its answer came meanwhile): the link cancels it when it names it.
      if (upstreamTaskId === undefined || (here && !this.cancelOnLink.delete(nodeTaskId))) return;
      await cancelUpstream(call, upstreamTaskId);
    } catch (error) {
      this.deps.log.warn({ taskId: nodeTaskId, capability: policy.capabilityId, err: (error as Error).message }, 'upstream cancel failed');
    }
  }

  private async call(policy: PolicyEntry, callerToken: string | undefined, signal?: AbortSignal): Promise<UpstreamCall> {
    const known = this.callNow(policy, callerToken, signal);
    return known ?? this.callWith(policy, await this.tokens.get(policy, callerToken!), signal);
  }

  /**
   * The call when no token exchange is needed for it: an anonymous caller (no token to exchange:
   * the upstream gets no credential at all, never the node's), or a caller whose upstream token is
   * in the cache and fresh. Undefined when an exchange must be awaited.
   */
  private callNow(policy: PolicyEntry, callerToken: string | undefined, signal?: AbortSignal): UpstreamCall | undefined {
    if (!callerToken) return this.callWith(policy, undefined, signal);
    const token = this.tokens.peek(policy, callerToken);
    return token === undefined ? undefined : this.callWith(policy, token, signal);
  }

  private callWith(policy: PolicyEntry, token: string | undefined, signal: AbortSignal | undefined): UpstreamCall {
    return {
      spec: policy.upstream!,
      token,
      allow: this.deps.allow(),
      resolve: this.deps.resolve,
      maxEventBytes: this.deps.maxEventBytes ?? 1_048_576,
      signal,
    };
  }

  private handler(policy: PolicyEntry, callerToken: string | undefined, record: TaskRecordAccess): Handler {
    return async (ctx) => {
      const nodeTaskId = ctx.task.id;
      let call: UpstreamCall;
      try {
        // Without an exchange to wait for (anonymous, or a cached token), nothing is awaited.
        call = this.callNow(policy, callerToken, ctx.signal) ?? (await this.call(policy, callerToken, ctx.signal));
      } catch (error) {
        this.deps.log.warn(
          { taskId: nodeTaskId, capability: policy.capabilityId, err: (error as Error).message },
          'upstream token exchange failed',
        );
        return { state: 'failed', text: 'the capability could not obtain a credential for its upstream agent' };
      }
      // The node's ids stay the node's: the upstream sees its own task and context, or none yet.
      const message: WireMessage = { messageId: ctx.message.messageId, role: ctx.message.role, parts: ctx.message.parts };
      let link = record.upstream;
      if (link) Object.assign(message, { taskId: link.taskId, contextId: link.contextId });
      else if (record.streamed === false && policy.upstream!.version === '1.0') {
        // A context of the node's choosing (none of the node's ids): a cancel before the answer
        // finds the upstream's task in it (ADR 0371). A stream names its task in its first event.
        message.contextId = upstreamContextFor(nodeTaskId);
        this.contexts.set(nodeTaskId, message.contextId);
      }
      let final: HandlerResult | undefined;
      // Canceled on another replica before the link was stored there: this replica ends the upstream task, once.
      let endedUpstream = false;
      const endUpstream = () => {
        if (endedUpstream || !link) return;
        endedUpstream = true;
        void this.cancel(policy, nodeTaskId, callerToken, link);
      };
      const forwarded = new Forwarded(record, ctx.updates, endUpstream);
      this.running.add(nodeTaskId);
      const onAbort = () => {
        if (link) void this.cancel(policy, nodeTaskId, callerToken, link);
      };
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      const bind = (id: string, contextId: string) => {
        if (link !== undefined && link.taskId !== id) throw new UpstreamError('the upstream sent an event for another task');
        if (link !== undefined) return;
        // Kept with the task once, when the upstream first names it (at the end of this turn,
        // unless the task ended in it): every replica can then continue or cancel it.
        link = { taskId: id, contextId };
        forwarded.keep(link);
        if (this.cancelOnLink.delete(nodeTaskId)) void this.cancel(policy, nodeTaskId, callerToken, link);
      };
      /** One upstream event applied; false when the task ended outside this run meanwhile. */
      const take = async (event: Json): Promise<boolean> => {
        if (final) throw new UpstreamError('the upstream sent an event after the task ended');
        final = await this.apply(event, forwarded, bind);
        if (final) final = await forwarded.finish(final);
        else forwarded.later();
        return !record.ended();
      };
      try {
        let events: AsyncIterable<Json> | undefined;
        if (record.streamed === false) {
          // The one answer is applied as it comes, without an event stream around it (ADR 0350).
          const answer = await sendMessage(call, message, ctx.acceptedOutputModes);
          if (!(await take(answer))) return this.endedMeanwhile(endUpstream);
          if (!final) events = afterAnswer(call, answer);
        } else events = streamMessage(call, message, ctx.acceptedOutputModes);
        if (events) for await (const event of events) if (!(await take(event))) return this.endedMeanwhile(endUpstream);
        if (!final) throw new UpstreamError('the upstream stream ended without a final state');
      } catch (error) {
        this.deps.log.warn({ taskId: nodeTaskId, capability: policy.capabilityId, err: (error as Error).message }, 'upstream call failed');
        const reason = error instanceof UpstreamError ? error.message : 'the upstream call failed';
        return { state: 'failed', text: `the upstream agent did not complete this task: ${reason}` };
      } finally {
        forwarded.discard();
        ctx.signal.removeEventListener('abort', onAbort);
        this.running.delete(nodeTaskId);
        this.cancelOnLink.delete(nodeTaskId);
        this.contexts.delete(nodeTaskId);
      }
      return final;
    };
  }

  /** The node task ended outside this run (a cancel on any replica) while its upstream worked on it. */
  private endedMeanwhile(endUpstream: () => void): HandlerResult {
    endUpstream();
    return { state: 'failed', text: 'the task ended while its upstream agent worked on it' };
  }

  /** One upstream StreamResponse applied to the node's task; returns the final result when it is one. */
  private async apply(
    event: Json,
    forwarded: Forwarded,
    bind: (upstreamTaskId: string, contextId: string) => void,
  ): Promise<HandlerResult | undefined> {
    const ids = (o: Json, idKey: string) => {
      const id = o[idKey];
      const valid = (v: unknown): v is string => typeof v === 'string' && v !== '' && v.length <= 200;
      if (!valid(id) || !valid(o.contextId)) throw new UpstreamError('the upstream sent an event without valid task ids');
      bind(id, o.contextId);
    };
    if (isObject(event.task)) {
      ids(event.task, 'id');
      const status = event.task.status;
      if (!isObject(status) || typeof status.state !== 'string') throw new UpstreamError('the upstream sent a task without a status');
      for (const a of Array.isArray(event.task.artifacts) ? event.task.artifacts : []) forwarded.hold(artifactOf(a));
      return finalOf(status.state, textOf(status.message));
    }
    if (isObject(event.statusUpdate)) {
      ids(event.statusUpdate, 'taskId');
      const status = event.statusUpdate.status;
      if (!isObject(status) || typeof status.state !== 'string')
        throw new UpstreamError('the upstream sent a status update without a state');
      const text = textOf(status.message);
      const final = finalOf(status.state, text);
      if (!final && text) {
        await forwarded.release();
        await forwarded.updates.progress(text);
      }
      return final;
    }
    if (isObject(event.artifactUpdate)) {
      ids(event.artifactUpdate, 'taskId');
      const u = event.artifactUpdate;
      const artifact = artifactOf(u.artifact);
      if (u.append !== true && u.lastChunk === true) forwarded.hold(artifact);
      else {
        await forwarded.release();
        await forwarded.updates.artifact(artifact, { append: u.append === true, lastChunk: u.lastChunk === true });
      }
      return undefined;
    }
    if (isObject(event.message)) {
      // A direct answer without a task: the node's task completes with it as its artifact.
      const m = event.message as unknown as WireMessage;
      if (!Array.isArray(m.parts)) throw new UpstreamError('the upstream sent a malformed message');
      return { state: 'completed', artifacts: [{ name: 'response', parts: m.parts }] };
    }
    throw new UpstreamError('the upstream sent an event of an unknown kind');
  }
}
