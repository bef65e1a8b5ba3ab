/**
 * The four push-config operations and the hand-off of task updates to delivery (A2A 1.0 §3.1.7–
 * 3.1.10, §4.3). A config belongs to a task and so to that task's owner: another caller's task id
 * answers TaskNotFound for every operation, exactly like an unknown one, and changes nothing.
 * Served only when the card declares pushNotifications (the agent's protocol switch).
 */
import { resolveAndCheck, type HostResolver } from '@cp/common/core';
import { A2AError, A2AErrorName } from '../a2a-errors';
import type { A2ALog, RequestContext } from '../request-context';
import { declaredBy, type ServedBundle } from '../served-bundle';
import type { StreamEvent } from '../task-events';
import { ownerKey, type TaskStore } from '../task-store';
import { taskToV03 } from '../v03/shapes';
import type { ProtocolVersion } from '../version';
import {
  DEFAULT_PUSH_CONFIG_LIMITS,
  pushConfigInput,
  viewOf,
  type PushConfigInput,
  type PushConfigLimits,
  type PushConfigStore,
  type PushConfigView,
} from './push-configs';
import type { PushBacklog } from './push-backlog';
import type { PushDelivery, PushJob } from './push-delivery';
import { notificationTask } from './push-bodies';

export interface PushServiceDeps {
  bundle: () => ServedBundle | undefined;
  tasks: TaskStore;
  store: PushConfigStore;
  /** Where queued bodies live, once per update, bounded and counted in the owner's budget (ADR 0202). */
  backlog: PushBacklog;
  delivery: PushDelivery;
  log: A2ALog;
  limits?: Partial<PushConfigLimits>;
  /** DNS for the check at creation (tests inject one); delivery checks again (safeFetch). */
  resolve?: HostResolver;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const taskNotFound = (id: string) => new A2AError(A2AErrorName.TaskNotFound, `task ${id} was not found`, { taskId: id });

function taskAndId(raw: unknown, needId: boolean): { taskId: string; id?: string } {
  if (!isObject(raw)) throw new A2AError(A2AErrorName.InvalidParams, 'params: must be an object', { field: 'params' });
  if (typeof raw.taskId !== 'string' || raw.taskId === '') {
    throw new A2AError(A2AErrorName.InvalidParams, 'params.taskId: must be a non-empty string', { field: 'params.taskId' });
  }
  if ((needId || raw.id !== undefined) && (typeof raw.id !== 'string' || raw.id === '')) {
    throw new A2AError(A2AErrorName.InvalidParams, 'params.id: must be a non-empty string', { field: 'params.id' });
  }
  return { taskId: raw.taskId, id: raw.id };
}

export class PushService {
  private readonly limits: PushConfigLimits;
  /** Per task, so a task's updates are enqueued in the order they happened. */
  private readonly chains = new Map<string, Promise<void>>();

  constructor(private readonly deps: PushServiceDeps) {
    this.limits = { ...DEFAULT_PUSH_CONFIG_LIMITS, ...deps.limits };
  }

  private served(): ServedBundle {
    const b = this.deps.bundle();
    if (!b) throw new A2AError(A2AErrorName.Unavailable, 'this agent node has not applied a capability bundle yet');
    if (!declaredBy(b).pushNotifications) {
      throw new A2AError(A2AErrorName.PushNotificationNotSupported, 'this agent does not declare push notifications');
    }
    return b;
  }

  /**
   * Shape, size and address checks of a config (refused before anything is stored); with `owner`,
   * also the owner's push backlog (for a config given with SendMessage, before its task exists).
   */
  async validate(raw: unknown, path: string, taskId?: string, owner?: string): Promise<PushConfigInput> {
    const bundle = this.served();
    const input = pushConfigInput(raw, this.limits, path, taskId);
    const checked = await resolveAndCheck(new URL(input.url), { allow: bundle.webhookAllow ?? [], resolve: this.deps.resolve });
    if (!checked.ok) {
      throw new A2AError(A2AErrorName.InvalidParams, `${path}.url: ${checked.reason}`, { field: `${path}.url` }, 'WEBHOOK_URL_REFUSED');
    }
    if (owner !== undefined) await this.requireRoom(owner, input.taskId);
    return input;
  }

  /** A config whose notifications could not be queued is refused now, not silently starved later. */
  private async requireRoom(owner: string, taskId: string): Promise<void> {
    const full = await this.deps.backlog.full(owner, taskId);
    if (full === undefined) return;
    throw new A2AError(
      A2AErrorName.RateLimited,
      `${full}; wait for them to be delivered (or to fail) before adding a push notification config`,
      { taskId, retryAfterSeconds: '5' },
      'PUSH_BACKLOG_FULL',
    );
  }

  /** CreateTaskPushNotificationConfig / tasks/pushNotificationConfig/set. */
  async create(raw: unknown, rc: RequestContext, version: ProtocolVersion): Promise<PushConfigView> {
    const input = await this.validate(raw, 'params');
    const owner = ownerKey(rc.caller);
    if (!(await this.deps.tasks.get(input.taskId, owner))) throw taskNotFound(input.taskId);
    return this.store(input, owner, version);
  }

  /**
   * A config given with SendMessage, validated beforehand with validate(), for the task just
   * created: stored once the task's earlier updates are handed off (they predate the config), then
   * the task as it stands is its first notification.
   */
  async createForTask(input: PushConfigInput, rc: RequestContext, version: ProtocolVersion, task: StreamEvent): Promise<PushConfigView> {
    await this.chains.get(input.taskId);
    const view = await this.store(input, ownerKey(rc.caller), version);
    this.notify(input.taskId, task);
    return view;
  }

  private async store(input: PushConfigInput, owner: string, version: ProtocolVersion): Promise<PushConfigView> {
    const config = { ...input, owner, version };
    await this.requireRoom(owner, input.taskId);
    if (!(await this.deps.store.put(config, this.limits.maxPerTask))) {
      throw new A2AError(
        A2AErrorName.InvalidParams,
        `task ${input.taskId} already has ${this.limits.maxPerTask} push notification configs; delete one first`,
        { taskId: input.taskId, limit: String(this.limits.maxPerTask) },
        'TOO_MANY_PUSH_CONFIGS',
      );
    }
    return viewOf(config);
  }

  /** GetTaskPushNotificationConfig; without an id (0.3), the task's first config. */
  async get(raw: unknown, rc: RequestContext): Promise<PushConfigView> {
    this.served();
    const { taskId, id } = taskAndId(raw, false);
    await this.ownTask(taskId, rc);
    const config = id === undefined ? (await this.deps.store.list(taskId))[0] : await this.deps.store.get(taskId, id);
    if (!config) {
      throw new A2AError(A2AErrorName.TaskNotFound, `task ${taskId} has no push notification config${id ? ` ${id}` : ''}`, {
        taskId,
        ...(id ? { configId: id } : {}),
      });
    }
    return viewOf(config);
  }

  /** ListTaskPushNotificationConfigs: at most maxPerTask exist, so one page holds them all. */
  async list(raw: unknown, rc: RequestContext): Promise<{ configs: PushConfigView[]; nextPageToken: string }> {
    this.served();
    const { taskId } = taskAndId(raw, false);
    await this.ownTask(taskId, rc);
    return { configs: (await this.deps.store.list(taskId)).map(viewOf), nextPageToken: '' };
  }

  /** DeleteTaskPushNotificationConfig: idempotent for the task's owner. */
  async delete(raw: unknown, rc: RequestContext): Promise<Record<string, never>> {
    this.served();
    const { taskId, id } = taskAndId(raw, true);
    await this.ownTask(taskId, rc);
    await this.deps.store.delete(taskId, id!);
    return {};
  }

  private async ownTask(taskId: string, rc: RequestContext): Promise<void> {
    if (!(await this.deps.tasks.get(taskId, ownerKey(rc.caller)))) throw taskNotFound(taskId);
  }

  /**
   * A task update happened on this node: queue one delivery per config of the task. Never fails
   * the update (errors are logged); nothing is read from Redis unless the agent declares push.
   */
  notify(taskId: string, event: StreamEvent): void {
    const bundle = this.deps.bundle();
    if (!bundle || !declaredBy(bundle).pushNotifications) return;
    const previous = this.chains.get(taskId) ?? Promise.resolve();
    const next = previous
      .then(() => this.enqueue(taskId, event))
      .catch((error: unknown) => this.deps.log.error({ taskId, err: (error as Error).message }, 'push notification not queued'));
    this.chains.set(taskId, next);
    void next.finally(() => {
      if (this.chains.get(taskId) === next) this.chains.delete(taskId);
    });
  }

  /**
   * One body per update and protocol version, held once in the backlog whatever the number of
   * configs, then one small job per config naming it. Past a backlog bound the update is not
   * queued for anyone (logged): the bound is what keeps a webhook that never answers from growing
   * Redis without limit.
   */
  private async enqueue(taskId: string, event: StreamEvent): Promise<void> {
    const configs = await this.deps.store.list(taskId);
    if (configs.length === 0) return;
    const owner = configs[0].owner;
    for (const version of ['1.0', '0.3'] as const) {
      const mine = configs.filter((c) => c.version === version && c.owner === owner);
      if (mine.length === 0) continue;
      let body: string;
      if (version === '0.3') {
        // 0.3 webhooks receive the Task in 0.3 shape, trimmed (push-bodies.ts).
        const record = await this.deps.tasks.get(taskId, owner);
        if (!record) continue;
        body = JSON.stringify(taskToV03(notificationTask(record.task)));
      } else {
        body = JSON.stringify('task' in event ? { task: notificationTask(event.task) } : event);
      }
      const held = await this.deps.backlog.hold(owner, taskId, body, mine.length);
      if (!held.ok) {
        this.deps.log.warn({ taskId, configs: mine.length, reason: held.reason }, 'push notification not queued: backlog full');
        continue;
      }
      const contentType = version === '0.3' ? 'application/json' : 'application/a2a+json';
      const jobs: PushJob[] = mine.map((c) => ({ owner, taskId, configId: c.id, bodyId: held.id, contentType }));
      try {
        await this.deps.delivery.enqueue(jobs);
      } catch (error) {
        // Not queued: give the body back, or it would count against the owner until it expires.
        for (const j of jobs) await this.deps.backlog.release(owner, j.bodyId).catch(() => undefined);
        throw error;
      }
    }
  }

  /** Resolves when every update seen so far is queued (tests, shutdown). */
  async idle(): Promise<void> {
    await Promise.all([...this.chains.values()]);
  }

  /** Queues what is pending, then stops delivery (the queue keeps what is not delivered yet). */
  async close(): Promise<void> {
    await this.idle();
    await this.deps.delivery.close();
  }
}
