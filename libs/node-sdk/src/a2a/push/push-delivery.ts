/**
 * Delivery of task updates to webhooks (A2A 1.0 §4.3.3, §13.2): an HTTP POST of the update with
 * the config's authentication (`Authorization: <scheme> <credentials>`) and token
 * (`X-A2A-Notification-Token`), through @cp/common's safeFetch with the agent's allow-list, so
 * private, loopback and link-local targets are refused after DNS and on every redirect.
 * Bounded retries with exponential backoff run through BullMQ (ADR 0162); a 4xx other than
 * 408/429 and a refused target are final. Jobs name their body in the push backlog (stored once
 * per update, ADR 0202) and keep nothing once finished; deliveries run concurrently, each with its
 * own deadline, at most a few per owner at once, so one slow webhook delays no other tenant.
 */
import { DelayedError, Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { safeFetch, WebhookError, type HostResolver, type RedisClient } from '@cp/common/core';
import type { A2ALog } from '../request-context';
import type { PushBacklog } from './push-backlog';
import type { PushConfigStore } from './push-configs';

export interface PushJob {
  /** The task's owner key: the body lives under it. */
  owner: string;
  taskId: string;
  configId: string;
  /** The body in the push backlog, already in the config's protocol version. */
  bodyId: string;
  contentType: string;
}

export interface PushDelivery {
  /** Queues the jobs of one update (one per config); their body is already held in the backlog. */
  enqueue(jobs: PushJob[]): Promise<void>;
  close(): Promise<void>;
}

export interface DeliveryDeps {
  store: PushConfigStore;
  backlog: PushBacklog;
  /** The agent's allow-list, read at delivery time (a bundle swap applies to queued jobs). */
  allow: () => readonly string[];
  timeoutMs: number;
  resolve?: HostResolver;
  log: A2ALog;
}

/** `gone`: the body expired or was evicted with its anonymous task (nothing left to send). */
export type DeliveryOutcome = 'delivered' | 'deleted' | 'gone';

/** Thrown for a failure worth retrying; any other error is final. */
export class RetryableDeliveryError extends Error {}

/** One attempt. Resolves when delivered or the config is gone; throws RetryableDeliveryError or a final error. */
export async function deliverOnce(job: PushJob, deps: DeliveryDeps): Promise<DeliveryOutcome> {
  const config = await deps.store.get(job.taskId, job.configId);
  // Deleted meanwhile: no further notifications after deletion (§3.1.10).
  if (!config) return 'deleted';
  const body = await deps.backlog.read(job.owner, job.bodyId);
  if (body === undefined) return 'gone';
  const headers: Record<string, string> = { 'content-type': job.contentType };
  if (config.authentication) {
    headers.authorization = config.authentication.credentials
      ? `${config.authentication.scheme} ${config.authentication.credentials}`
      : config.authentication.scheme;
  }
  if (config.token) headers['x-a2a-notification-token'] = config.token;
  let status: number;
  try {
    const res = await safeFetch(
      config.url,
      { method: 'POST', headers, body },
      {
        allow: deps.allow(),
        timeoutMs: deps.timeoutMs,
        // No redirects (ADR 0209): a 3xx is a final failure, so the config's credentials reach
        // only the URL the caller named; safeFetch also drops them on any origin change.
        maxRedirects: 0,
        maxResponseBytes: 16_384,
        resolve: deps.resolve,
      },
    );
    status = res.status;
  } catch (error) {
    if (error instanceof WebhookError && error.retryable) throw new RetryableDeliveryError(error.message);
    throw error;
  }
  if (status >= 200 && status < 300) return 'delivered';
  const message = `the webhook answered ${status}`;
  if (status >= 500 || status === 408 || status === 429) throw new RetryableDeliveryError(message);
  throw new Error(message);
}

export interface BullPushDeliveryOptions extends DeliveryDeps {
  /** Command connection for the queue. */
  connection: RedisClient;
  /** A connection of its own for the worker's blocking reads (maxRetriesPerRequest: null). */
  workerConnection: RedisClient;
  /** BullMQ key prefix (the agent's: every replica of the agent shares the queue). */
  prefix: string;
  /** Attempts per update and webhook, the first included (default 5). */
  attempts?: number;
  /** First retry delay; doubles each time (default 1000 ms). */
  backoffMs?: number;
  /** Deliveries in flight on this node (default 32). */
  concurrency?: number;
  /** Of which at most this many for one owner (default 4); its other jobs wait, delayed, off the worker. */
  ownerConcurrency?: number;
}

export const PUSH_QUEUE = 'a2a-push';

/** How long a job of an owner at its concurrency waits before it is looked at again. */
const OWNER_BUSY_DELAY_MS = 250;

/**
 * Concurrent deliveries, each with its own deadline (safeFetch's timeout). Per owner at most
 * `ownerConcurrency` at once on a node, so one tenant's slow webhook holds no more; per task and
 * config one at a time in queue order, so a webhook gets a task's updates in order while they
 * succeed.
 */
export class BullPushDelivery implements PushDelivery {
  private readonly queue: Queue<PushJob>;
  private readonly worker: Worker<PushJob>;
  private readonly attempts: number;
  private readonly backoffMs: number;
  private readonly ownerConcurrency: number;
  /** Owner → deliveries running (or waiting their turn in a lane) on this node. */
  private readonly busy = new Map<string, number>();
  /** Task and config → the last delivery started for it on this node. */
  private readonly lanes = new Map<string, Promise<unknown>>();

  constructor(private readonly options: BullPushDeliveryOptions) {
    this.attempts = options.attempts ?? 5;
    this.backoffMs = options.backoffMs ?? 1000;
    this.ownerConcurrency = options.ownerConcurrency ?? 4;
    this.queue = new Queue<PushJob>(PUSH_QUEUE, { connection: options.connection, prefix: options.prefix });
    this.worker = new Worker<PushJob>(PUSH_QUEUE, (job, token) => this.process(job, token), {
      connection: options.workerConnection,
      prefix: options.prefix,
      concurrency: options.concurrency ?? 32,
    });
    this.worker.on('error', (error) => options.log.error({ err: error.message }, 'push delivery worker error'));
  }

  private async process(job: Job<PushJob>, token?: string): Promise<DeliveryOutcome> {
    const { owner } = job.data;
    const running = this.busy.get(owner) ?? 0;
    if (running >= this.ownerConcurrency) {
      // Off the worker, not waiting on it: other owners' jobs take the slot meanwhile.
      await job.moveToDelayed(Date.now() + OWNER_BUSY_DELAY_MS, token);
      throw new DelayedError();
    }
    this.busy.set(owner, running + 1);
    const lane = `${job.data.taskId}\n${job.data.configId}`;
    const previous = this.lanes.get(lane) ?? Promise.resolve();
    const current = previous.then(() => this.attempt(job));
    const settled = current.catch(() => undefined);
    this.lanes.set(lane, settled);
    try {
      return await current;
    } finally {
      if (this.lanes.get(lane) === settled) this.lanes.delete(lane);
      const left = (this.busy.get(owner) ?? 1) - 1;
      if (left > 0) this.busy.set(owner, left);
      else this.busy.delete(owner);
    }
  }

  /** One attempt; the body is released when the job is settled (delivered, gone or failed for good). */
  private async attempt(job: Job<PushJob>): Promise<DeliveryOutcome> {
    const { options } = this;
    try {
      const outcome = await deliverOnce(job.data, options);
      await this.release(job.data);
      return outcome;
    } catch (error) {
      const retryable = error instanceof RetryableDeliveryError;
      const final = !retryable || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      options.log.warn(
        { taskId: job.data.taskId, configId: job.data.configId, attempt: job.attemptsMade + 1, final, err: (error as Error).message },
        'push notification not delivered',
      );
      if (final) await this.release(job.data);
      throw retryable ? error : new UnrecoverableError((error as Error).message);
    }
  }

  private async release(job: PushJob): Promise<void> {
    await this.options.backlog
      .release(job.owner, job.bodyId)
      .catch((error: unknown) => this.options.log.error({ taskId: job.taskId, err: (error as Error).message }, 'push body not released'));
  }

  async enqueue(jobs: PushJob[]): Promise<void> {
    await this.queue.addBulk(
      jobs.map((data) => ({
        name: 'deliver',
        data,
        opts: {
          attempts: this.attempts,
          backoff: { type: 'exponential', delay: this.backoffMs },
          // Finished jobs keep nothing (their body is released from the backlog); a few failed ones
          // stay for operators, without the body.
          removeOnComplete: true,
          removeOnFail: 100,
        },
      })),
    );
  }

  /**
   * Lets a delivery in progress finish within `graceMs`, then stops without waiting (the job stays
   * queued and a worker retries it). Bounded because BullMQ's Worker.close() can wait forever on a
   * blocking connection that is still reconnecting after a Redis restart (taskforcesh/bullmq#4656),
   * and a node must still exit.
   */
  async close(graceMs = 5000): Promise<void> {
    if ((await within(this.worker.close(), graceMs)) === 'late') {
      this.options.log.warn({ graceMs }, 'push delivery worker did not stop in time; closing it without waiting');
      await within(this.worker.close(true), graceMs);
    }
    await within(this.queue.close(), graceMs);
  }
}

/** Waits for `work` at most `ms`; the work itself goes on (its failure is ignored here). */
async function within(work: Promise<unknown>, ms: number): Promise<'done' | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  try {
    return await Promise.race([
      work.then(
        () => 'done' as const,
        () => 'done' as const,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
