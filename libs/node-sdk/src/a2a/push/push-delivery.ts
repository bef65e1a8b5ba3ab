/**
 * Delivery of task updates to webhooks (A2A 1.0 §4.3.3, §13.2): an HTTP POST of the update with
 * the config's authentication (`Authorization: <scheme> <credentials>`) and token
 * (`X-A2A-Notification-Token`), through @cp/common's safeFetch with the agent's allow-list, so
 * private, loopback and link-local targets are refused after DNS and on every redirect.
 * Bounded retries with exponential backoff run through BullMQ (ADR 0162); a 4xx other than
 * 408/429 and a refused target are final.
 */
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { RedisClient } from '@cp/common';
import { safeFetch, WebhookError, type HostResolver } from '@cp/common';
import type { A2ALog } from '../request-context';
import type { PushConfigStore } from './push-configs';

export interface PushJob {
  taskId: string;
  configId: string;
  /** The JSON body, already in the config's protocol version. */
  body: string;
  contentType: string;
}

export interface PushDelivery {
  enqueue(job: PushJob): Promise<void>;
  close(): Promise<void>;
}

export interface DeliveryDeps {
  store: PushConfigStore;
  /** The agent's allow-list, read at delivery time (a bundle swap applies to queued jobs). */
  allow: () => readonly string[];
  timeoutMs: number;
  resolve?: HostResolver;
  log: A2ALog;
}

export type DeliveryOutcome = 'delivered' | 'deleted';

/** Thrown for a failure worth retrying; any other error is final. */
export class RetryableDeliveryError extends Error {}

/** One attempt. Resolves when delivered or the config is gone; throws RetryableDeliveryError or a final error. */
export async function deliverOnce(job: PushJob, deps: DeliveryDeps): Promise<DeliveryOutcome> {
  const config = await deps.store.get(job.taskId, job.configId);
  // Deleted meanwhile: no further notifications after deletion (§3.1.10).
  if (!config) return 'deleted';
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
      { method: 'POST', headers, body: job.body },
      {
        allow: deps.allow(),
        timeoutMs: deps.timeoutMs,
        maxRedirects: 3,
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
}

export const PUSH_QUEUE = 'a2a-push';

/** FIFO with one job at a time per node: updates of a task reach a webhook in order while deliveries succeed. */
export class BullPushDelivery implements PushDelivery {
  private readonly queue: Queue<PushJob>;
  private readonly worker: Worker<PushJob>;
  private readonly attempts: number;
  private readonly backoffMs: number;

  constructor(private readonly options: BullPushDeliveryOptions) {
    this.attempts = options.attempts ?? 5;
    this.backoffMs = options.backoffMs ?? 1000;
    this.queue = new Queue<PushJob>(PUSH_QUEUE, { connection: options.connection, prefix: options.prefix });
    this.worker = new Worker<PushJob>(
      PUSH_QUEUE,
      async (job: Job<PushJob>) => {
        try {
          return await deliverOnce(job.data, options);
        } catch (error) {
          const final = !(error instanceof RetryableDeliveryError);
          options.log.warn(
            { taskId: job.data.taskId, configId: job.data.configId, attempt: job.attemptsMade + 1, final, err: (error as Error).message },
            'push notification not delivered',
          );
          throw final ? new UnrecoverableError((error as Error).message) : error;
        }
      },
      { connection: options.workerConnection, prefix: options.prefix, concurrency: 1 },
    );
    this.worker.on('error', (error) => options.log.error({ err: error.message }, 'push delivery worker error'));
  }

  async enqueue(job: PushJob): Promise<void> {
    await this.queue.add('deliver', job, {
      attempts: this.attempts,
      backoff: { type: 'exponential', delay: this.backoffMs },
      removeOnComplete: 1000,
      removeOnFail: 1000,
    });
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
