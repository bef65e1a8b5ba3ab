/**
 * Issue 27, item 6: one anonymous caller must not lock every anonymous caller out. All anonymous
 * tasks share one byte budget (a pool, ADR 0201); filling it used to answer every later anonymous
 * SendMessage, from anyone, 413 OWNER_QUOTA_EXCEEDED for the whole retention. Now the pool evicts
 * its oldest tasks: a flood of large messages, or many small ones (the benchmark's 30,000 calls,
 * scaled to this budget), leaves anonymous callers served, the pool within its budget, evicted ids
 * answering exactly like unknown ones, and named owners' tasks untouched.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { mintA2AToken } from '@cp/auth';
import { ANONYMOUS_OWNER } from '@cp/node-sdk';
import { ownerKeys } from '../../libs/node-sdk/src/a2a/redis-task-store';
import { a2aRpc, AGENT, bearer, startSecurityStack, type Json, type SecurityStack } from './support/stack';

const POOL = 262_144;

describe('an anonymous flood does not lock anonymous callers out (issue 27, item 6)', () => {
  let stack: SecurityStack;
  let redis: Redis;
  let pool: ReturnType<typeof ownerKeys>;

  const send = (text: string, extraParts: Json[] = [], headers: Record<string, string> = {}) =>
    a2aRpc(
      stack.nodeUrl,
      'SendMessage',
      { message: { messageId: `m-${randomUUID()}`, role: 'ROLE_USER', parts: [{ text }, ...extraParts] } },
      headers,
    );
  /** The error without the id it names: an evicted id and an unknown one must answer alike. */
  const shapeOf = (body: Json, id: string) => JSON.parse(JSON.stringify(body.error).replaceAll(id, '<id>')) as Json;

  beforeAll(async () => {
    stack = await startSecurityStack('anonymous-flood', {
      MAX_BODY_BYTES: '1048576',
      A2A_OWNER_MAX_BYTES: String(POOL),
      A2A_HISTORY_PART_MAX_BYTES: '65536',
    });
    redis = new Redis(stack.nodeConfig.REDIS_URL);
    pool = ownerKeys(`${stack.nodeConfig.REDIS_KEY_PREFIX}agent:${AGENT}:`, ANONYMOUS_OWNER);
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
    if (redis) {
      const keys = await redis.keys(`${stack.nodeConfig.REDIS_KEY_PREFIX}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  });

  it('a flood of large anonymous messages leaves the next small one served; the oldest are evicted like expired ones', async () => {
    const partner = mintA2AToken(stack.cpConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run']);
    const owned = (await send('status of invoice INV-20931?', [], bearer(partner))).body.result.task.id as string;
    const part = { raw: randomBytes(36_000).toString('base64'), mediaType: 'application/pdf' };
    const ids: string[] = [];
    // About seven times the pool, from "one" anonymous caller.
    for (let batch = 0; batch < 8; batch++) {
      const answers = await Promise.all(Array.from({ length: 5 }, () => send('status of invoice INV-20931?', [part])));
      for (const a of answers) {
        expect(a.body.error).toBeUndefined();
        ids.push(a.body.result.task.id as string);
      }
    }
    // Anyone's small anonymous message is still served.
    const small = await send('status of invoice INV-20931?');
    expect(small.status).toBe(200);
    expect(small.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    // The pool stays within its budget, by its own count and by the stored records.
    expect(Number(await redis.get(pool.bytes))).toBeLessThanOrEqual(POOL);
    const sizes = Object.values(await redis.hgetall(pool.sizes)).reduce((n, v) => n + Number(v), 0);
    expect(sizes).toBe(Number(await redis.get(pool.bytes)));
    // The oldest flood task is gone and answers exactly like an id that never existed; the newest remains.
    const evicted = await a2aRpc(stack.nodeUrl, 'GetTask', { id: ids[0] });
    const unknownId = randomUUID();
    const unknown = await a2aRpc(stack.nodeUrl, 'GetTask', { id: unknownId });
    expect(evicted.body.error.code).toBe(-32001);
    expect([evicted.status, shapeOf(evicted.body, ids[0])]).toEqual([unknown.status, shapeOf(unknown.body, unknownId)]);
    expect((await a2aRpc(stack.nodeUrl, 'GetTask', { id: ids.at(-1) })).body.result.id).toBe(ids.at(-1));
    // A named owner's task is never evicted by the anonymous pool.
    expect((await a2aRpc(stack.nodeUrl, 'GetTask', { id: owned }, bearer(partner))).body.result.id).toBe(owned);
  }, 120_000);

  it('many small anonymous calls (the benchmark’s 30,000 scaled to this pool) are all served', async () => {
    const before = Number(await redis.get(pool.bytes));
    expect(before).toBeGreaterThan(POOL / 2); // the pool is already full from the flood above
    const statuses = new Map<number, number>();
    for (let batch = 0; batch < 40; batch++) {
      const answers = await Promise.all(Array.from({ length: 10 }, () => send('what is the status of invoice INV-20931?')));
      for (const a of answers) {
        const key = a.body.error ? a.status * 1000 + 1 : a.status;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
      }
    }
    expect(Object.fromEntries(statuses)).toEqual({ 200: 400 });
    expect(Number(await redis.get(pool.bytes))).toBeLessThanOrEqual(POOL);
  }, 120_000);
});
