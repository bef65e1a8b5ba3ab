/**
 * Failing fast when the task store's Redis is away (issue 30 item 5, ADR 0240). ioredis keeps a
 * command of a lost connection in its offline queue through its reconnection attempts
 * (maxRetriesPerRequest), so a request waited 3–5 s and then failed as an unknown error (500,
 * -32603). Instead: while the connection is known lost (`redisAway`: not while it makes its first
 * connection) the store refuses before sending anything, and a command that fails because the
 * connection went (not a reply of Redis: those are the store's own errors) is the same refusal.
 * The caller gets a retriable 503 with Retry-After naming the task store; the connection
 * reconnects by itself and the next call after it is ready is served.
 */
import { redisAway, type RedisClient } from '@cp/common/core';
import { A2AError, A2AErrorName } from './a2a-errors';

/** What the refusal tells a caller to wait: about one reconnection attempt at full backoff. */
export const TASK_STORE_RETRY_AFTER_SECONDS = 2;

export const taskStoreUnavailable = () =>
  new A2AError(
    A2AErrorName.Unavailable,
    'the task store (Redis) is unavailable; retry shortly',
    { dependency: 'task-store', retryAfterSeconds: String(TASK_STORE_RETRY_AFTER_SECONDS) },
    'TASK_STORE_UNAVAILABLE',
  );

/** A reply of Redis (a script error, WRONGTYPE, …): the connection is fine, the error is the store's. */
const isReplyError = (error: unknown) => (error as { name?: string })?.name === 'ReplyError';

/** Runs `op` on `redis` unless Redis is away; a connection failure during it becomes the same refusal. */
export async function onTaskStore<T>(redis: Pick<RedisClient, 'status'>, op: () => Promise<T>): Promise<T> {
  if (redisAway(redis)) throw taskStoreUnavailable();
  try {
    return await op();
  } catch (error) {
    if (error instanceof A2AError || isReplyError(error)) throw error;
    throw taskStoreUnavailable();
  }
}
