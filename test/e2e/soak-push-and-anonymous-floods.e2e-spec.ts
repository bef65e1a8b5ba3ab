/**
 * Soak of fixed size for issue 27, items 3 and 6 (no timing asserted: speed is for benchmarks):
 * a control plane and TWO finance-agent node processes with push delivery on, sharing one Redis.
 * An anonymous flood of several times the anonymous pool, then a push flood (anonymous tasks with
 * large histories, ten 0.3 configs each at a webhook that never answers, continuation messages)
 * beside a partner whose notifications must still arrive. Bounded: the Redis memory used under
 * the test's key prefix (MEMORY USAGE over its keys), the pool's bytes, the nodes' heaps.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import { mintA2AToken, mintNodeToken } from '@cp/auth';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import { bootApp } from '../support/boot';
import { controlPlaneUnderTest } from '../support/control-plane-under-test';
import { ANONYMOUS_OWNER } from '@cp/node-sdk';
import { ownerKeys } from '../../libs/node-sdk/src/a2a/redis-task-store';
import { spawnA2ANode, type A2ANodeProcess } from '../support/a2a-node-process';
import { testConfig } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { freePort } from '../support/free-port';
import { until } from '../support/until';

const AGENT = 'finance-agent';
const POOL = 2 * 1024 * 1024;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ControlPlaneUnderTest = controlPlaneUnderTest({ a2a: true });

describe('soak: push and anonymous floods against two node processes, Redis memory bounded', () => {
  let db: TestDatabase;
  let cp: NestFastifyApplication;
  let dir: string;
  let redis: Redis;
  let prefix: string;
  let partnerToken: string;
  const nodes: A2ANodeProcess[] = [];
  const got: { path: string; body: Json }[] = [];
  const hanging: http.ServerResponse[] = [];
  let hook: http.Server;
  let hookUrl: string;

  const rpc = async (node: number, method: string, params: unknown, headers: Record<string, string> = {}, version = '1.0') => {
    const res = await fetch(`${nodes[node % nodes.length].url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': version, ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const message = (text: string, extra: Json = {}, parts: Json[] = []) => ({
    message: { messageId: `m-${randomUUID()}`, role: 'ROLE_USER', parts: [{ text }, ...parts], ...extra },
  });
  /** Redis bytes (MEMORY USAGE) of every key under the test's prefix, BullMQ's included. */
  const redisBytes = async (): Promise<number> => {
    const keys = [...(await redis.keys(`${prefix}*`)), ...(await redis.keys(`{${prefix}*`))];
    let bytes = 0;
    for (const k of keys) bytes += Number((await redis.call('MEMORY', 'USAGE', k, 'SAMPLES', '0')) ?? 0);
    return bytes;
  };

  beforeAll(async () => {
    hook = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        got.push({ path: req.url ?? '', body: JSON.parse(body) as Json });
        if (req.url?.startsWith('/slow')) hanging.push(res);
        else res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}`;
    db = await createTestDatabase('soak_floods');
    dir = await mkdtemp(join(tmpdir(), 'soak-floods-'));
    prefix = `e2e-floods-${process.pid}-${randomBytes(3).toString('hex')}:`;
    const cpConfig = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: prefix });
    let cpUrl: string;
    ({ app: cp, url: cpUrl } = await bootApp(ControlPlaneUnderTest, cpConfig));
    const ports = [await freePort(), await freePort()];
    await seedWhenEmpty(cp.get(PrismaService), {
      agentNodeUrl: `http://127.0.0.1:${ports[0]}`,
      protocol: { versions: ['1.0', '0.3'], pushNotifications: true, webhookAllow: ['127.0.0.1'] },
    });
    const env = (i: number) => ({
      REDIS_KEY_PREFIX: prefix,
      CONTROL_PLANE_URL: cpUrl,
      AGENT_ID: AGENT,
      NODE_ID: `flood-${i}`,
      NODE_TOKEN: mintNodeToken(cpConfig, AGENT),
      NODE_CACHE_DIR: join(dir, `n${i}`),
      MAX_BODY_BYTES: '1048576',
      A2A_OWNER_MAX_BYTES: String(POOL),
      A2A_HISTORY_PART_MAX_BYTES: '262144',
      A2A_PUSH_TIMEOUT_MS: '60000',
      A2A_PUSH_OWNER_MAX_QUEUED_BYTES: '524288',
    });
    nodes.push(...(await Promise.all([0, 1].map((i) => spawnA2ANode(env(i), ports[i], 256, true)))));
    redis = new Redis(cpConfig.REDIS_URL);
    partnerToken = mintA2AToken(cpConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run']);
  }, 120_000);

  afterAll(async () => {
    for (const res of hanging) res.destroy();
    for (const n of nodes) await n.kill();
    await cp?.close();
    await new Promise((r) => hook?.close(r));
    if (redis) {
      const keys = [...(await redis.keys(`${prefix}*`)), ...(await redis.keys(`{${prefix}*`))];
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('an anonymous flood, then a push flood beside a partner: everyone served, Redis and heaps bounded', async () => {
    const pool = ownerKeys(`${prefix}agent:${AGENT}:`, ANONYMOUS_OWNER);
    // 1. About three and a half times the pool in anonymous 24 KB messages, 8 at a time, over both nodes.
    const part = { raw: randomBytes(18_000).toString('base64'), mediaType: 'application/pdf' };
    const refused: string[] = [];
    for (let batch = 0; batch < 40; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => rpc(i, 'SendMessage', message('status of invoice INV-20931?', {}, [part]))),
      );
      for (const a of answers) if (a.body.error) refused.push(`${a.status} ${a.body.error.message as string}`);
    }
    expect(refused).toEqual([]);
    const small = await rpc(1, 'SendMessage', message('status of invoice INV-20931?'));
    expect(small.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(Number(await redis.get(pool.bytes))).toBeLessThanOrEqual(POOL);

    // 2. Push flood: anonymous tasks with ~130 KB histories, ten 0.3 configs each at a webhook that
    // never answers, four continuation messages each; a partner's notifications beside them.
    const big = { raw: randomBytes(100_000).toString('base64'), mediaType: 'application/pdf' };
    const tasks: string[] = [];
    for (let t = 0; t < 8; t++) {
      const sent = await rpc(t, 'SendMessage', message('what is the status of my invoice?', {}, [big]));
      expect(sent.body.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      tasks.push(sent.body.result.task.id as string);
    }
    for (const [t, taskId] of tasks.entries()) {
      for (let c = 0; c < 10; c++) {
        const set = await rpc(
          t + c,
          'tasks/pushNotificationConfig/set',
          {
            taskId,
            pushNotificationConfig: { id: `c${c}`, url: `${hookUrl}/slow/${t}/${c}` },
          },
          {},
          '0.3',
        );
        // Past the backlog bounds a config is refused with PUSH_BACKLOG_FULL, never a 5xx.
        expect(set.status).toBeLessThan(500);
      }
    }
    const continued = await Promise.all(
      tasks.flatMap((taskId, t) =>
        Array.from({ length: 4 }, (_, i) => rpc(t + i, 'SendMessage', message('still looking for it', { taskId }))),
      ),
    );
    expect(continued.filter((a) => a.status >= 500)).toEqual([]);
    const partnerTasks = await Promise.all(
      Array.from({ length: 5 }, async (_, i) => {
        const r = await rpc(
          i,
          'SendMessage',
          {
            ...message(`reconcile invoice INV-${7100 + i} against the PO`),
            configuration: { taskPushNotificationConfig: { url: `${hookUrl}/fast/${i}` } },
          },
          { authorization: `Bearer ${partnerToken}` },
        );
        return r.body.result.task.id as string;
      }),
    );
    await until(
      'every partner task’s completed notification',
      () =>
        partnerTasks.every((id) =>
          got.some(
            (g) =>
              g.path.startsWith('/fast') &&
              g.body.statusUpdate?.taskId === id &&
              g.body.statusUpdate.status.state === 'TASK_STATE_COMPLETED',
          ),
        ),
      45_000,
    );
    // The anonymous webhook still holds its deliveries (60 s deadline): nobody waited for them.
    expect(hanging.filter((res) => !res.destroyed && !res.writableEnded).length).toBeGreaterThan(0);

    // Bounded: the pool within its budget, and all of the test's Redis (tasks, bodies, queue)
    // within a few budgets. Before issue 27 the push flood alone queued ~100 MB of task copies.
    expect(Number(await redis.get(pool.bytes))).toBeLessThanOrEqual(POOL);
    expect(await redisBytes()).toBeLessThan(4 * POOL);
    for (const n of nodes) {
      expect(n.exited).toBe(false);
      expect((await n.stats()).heapUsed).toBeLessThan(256 * 1024 * 1024);
    }
  }, 240_000);
});
