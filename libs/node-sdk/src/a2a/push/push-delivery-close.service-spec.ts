import { Redis } from 'ioredis';
import { startPrivateRedis, type PrivateRedis } from '../../../../../test/support/redis-server';
import { InMemoryPushBacklog } from './push-backlog';
import { BullPushDelivery } from './push-delivery';
import type { PushConfigStore } from './push-configs';

/**
 * A node shutting down right after a Redis restart must still exit: BullMQ's Worker.close() can
 * wait forever on a blocking client that is still reconnecting (taskforcesh/bullmq#4656), so
 * BullPushDelivery.close() is bounded.
 */
describe('BullPushDelivery.close while its worker connection is reconnecting', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(() => redis?.stop());

  it('resolves within its grace period', async () => {
    const connection = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    // Reconnects only after 3 s, so the close below meets it mid-reconnect.
    const workerConnection = new Redis(redis.url, { maxRetriesPerRequest: null, retryStrategy: () => 3000 });
    for (const c of [connection, workerConnection]) c.on('error', () => undefined);
    const delivery = new BullPushDelivery({
      connection,
      workerConnection,
      prefix: `{test-push-close-${process.pid}}`,
      store: { get: () => Promise.resolve(undefined) } as unknown as PushConfigStore,
      backlog: new InMemoryPushBacklog(),
      allow: () => [],
      timeoutMs: 1000,
      log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    });
    await connection.ping();
    await new Promise((r) => setTimeout(r, 300));
    const reconnecting = new Promise<void>((resolve) => workerConnection.once('reconnecting', () => resolve()));
    await redis.stop();
    await reconnecting;
    await redis.start();
    const settled = await Promise.race([
      delivery.close(500).then(() => 'closed'),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 10_000)),
    ]);
    expect(settled).toBe('closed');
    connection.disconnect();
    workerConnection.disconnect();
  }, 30_000);
});
