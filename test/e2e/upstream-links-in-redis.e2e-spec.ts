/**
 * ADR 0232: the gateway's node task → upstream task links in Redis, under the agent's prefix, so
 * every replica finds them. A link expires with the task's retention; a key holding something that
 * is not a link (corrupted, oversized ids) reads as no link instead of steering a continuation or
 * a cancel to an arbitrary upstream task.
 */
import { randomBytes } from 'node:crypto';
import { closeRedis, connectRedis, type RedisClient } from '@cp/common';
import { RedisUpstreamLinks } from '@cp/node-sdk';
import { testConfig } from '../support/config';

describe('upstream links in Redis (ADR 0232)', () => {
  let redis: RedisClient;
  const prefix = `test:upstream-links:${process.pid}:${randomBytes(3).toString('hex')}:`;

  beforeAll(() => {
    redis = connectRedis(testConfig({}), 'upstream-links');
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await closeRedis(redis);
  });

  it('is shared by two stores on the same prefix, expires with the retention, and is deleted', async () => {
    const a = new RedisUpstreamLinks(redis, prefix, 60_000);
    const b = new RedisUpstreamLinks(redis, prefix, 60_000);
    await a.set('node-task-1', { taskId: 'up-1', contextId: 'up-ctx' });
    expect(await b.get('node-task-1')).toEqual({ taskId: 'up-1', contextId: 'up-ctx' });
    const ttl = await redis.pttl(`${prefix}upstream-link:node-task-1`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    // Another agent's prefix sees nothing.
    expect(await new RedisUpstreamLinks(redis, `${prefix}other:`, 60_000).get('node-task-1')).toBeUndefined();
    await b.delete('node-task-1');
    expect(await a.get('node-task-1')).toBeUndefined();
  });

  it.each([
    ['not JSON', '{'],
    ['no ids', '{}'],
    ['ids of the wrong type', '{"taskId":1,"contextId":["x"]}'],
    ['empty ids', '{"taskId":"","contextId":"c"}'],
    ['oversized ids', JSON.stringify({ taskId: 'x'.repeat(201), contextId: 'c' })],
  ])('reads a value with %s as no link', async (_name, raw) => {
    await redis.set(`${prefix}upstream-link:bad`, raw);
    expect(await new RedisUpstreamLinks(redis, prefix, 60_000).get('bad')).toBeUndefined();
  });
});
