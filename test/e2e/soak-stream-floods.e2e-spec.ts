/**
 * Soak of issue 27 item 2's flood, of fixed size (no timing asserted: speed is for benchmarks): a
 * finance-agent node in its own OS process (heap capped at 256 MB), an anonymous attacker that
 * creates waiting tasks and subscribes to them again and again, in rounds, abandoning and
 * flooding again. Throughout: the attacker holds no more than the anonymous pool, the node's heap
 * stays within a bound, and token holders' streamed messages still run to their end; afterwards
 * no stream or listener is left.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import { mintA2AToken, mintNodeToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import { bootApp } from '../support/boot';
import { controlPlaneUnderTest } from '../support/control-plane-under-test';
import { spawnA2ANode, type A2ANodeProcess } from '../support/a2a-node-process';
import { testConfig } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { freePort } from '../support/free-port';
import { until } from '../support/until';

const AGENT = 'finance-agent';
const ANONYMOUS_POOL = 40;
const ROUNDS = 4;
/** Attempts per round: five times the pool, spread over tasks (five per task, the task cap is 5). */
const ATTEMPTS = ANONYMOUS_POOL * 5;
/** What the node's heap may grow by over the whole soak. */
const HEAP_GROWTH_BOUND = 64 * 1024 * 1024;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ControlPlaneUnderTest = controlPlaneUnderTest({ a2a: true });

describe('soak: the anonymous stream flood, in rounds, against one node process (issue 27 item 2)', () => {
  let db: TestDatabase;
  let cp: NestFastifyApplication;
  let dir: string;
  let prefix: string;
  let cpConfig: AppConfig;
  let node: A2ANodeProcess;
  let partner: string;

  beforeAll(async () => {
    db = await createTestDatabase('soak_stream_floods');
    dir = await mkdtemp(join(tmpdir(), 'soak-stream-floods-'));
    prefix = `e2e-flood-${process.pid}-${randomBytes(3).toString('hex')}:`;
    cpConfig = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: prefix });
    let cpUrl: string;
    ({ app: cp, url: cpUrl } = await bootApp(ControlPlaneUnderTest, cpConfig));
    const port = await freePort();
    await seedWhenEmpty(cp.get(PrismaService), { agentNodeUrl: `http://127.0.0.1:${port}` });
    node = await spawnA2ANode(
      {
        REDIS_KEY_PREFIX: prefix,
        CONTROL_PLANE_URL: cpUrl,
        AGENT_ID: AGENT,
        NODE_ID: 'flood-node',
        NODE_TOKEN: mintNodeToken(cpConfig, AGENT),
        NODE_CACHE_DIR: join(dir, 'n'),
        A2A_MAX_STREAMS: '400',
        A2A_MAX_ANONYMOUS_STREAMS: String(ANONYMOUS_POOL),
        A2A_MAX_STREAMS_PER_TASK: '5',
        A2A_OWNER_MAX_BYTES: '16777216',
      },
      port,
    );
    partner = mintA2AToken(cpConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run']);
  }, 120_000);

  afterAll(async () => {
    await node?.kill();
    await cp?.close();
    const redis = new Redis(cpConfig.REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const send = (path: string, body: unknown, token?: string, signal?: AbortSignal) =>
    fetch(`${node.url}/a2a/rest${path}`, {
      method: 'POST',
      signal,
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const waitingTask = async () => {
    const res = await send('/message:send', {
      message: {
        messageId: `w-${randomBytes(4).toString('hex')}`,
        role: 'ROLE_USER',
        parts: [{ text: 'what is the status of my invoice?' }],
      },
    });
    return ((await res.json()) as Json).task.id as string;
  };
  const partnerStream = async (i: number) => {
    const res = await send(
      '/message:stream',
      {
        message: {
          messageId: `p-${i}-${randomBytes(3).toString('hex')}`,
          role: 'ROLE_USER',
          parts: [{ text: 'status of invoice INV-20931' }],
        },
      },
      partner,
    );
    const text = await res.text();
    return res.status === 200 && text.includes('TASK_STATE_COMPLETED') ? 'completed' : `${res.status}: ${text.slice(0, 200)}`;
  };

  it('holds the attacker to the anonymous pool and the heap within its bound, and others still stream', async () => {
    const before = (await node.stats()).heapUsed;
    let refused = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const tasks = await Promise.all(Array.from({ length: ATTEMPTS / 5 }, () => waitingTask()));
      const aborts: AbortController[] = [];
      const answers = await Promise.all(
        Array.from({ length: ATTEMPTS }, async (_, i) => {
          const abort = new AbortController();
          const res = await send(`/tasks/${tasks[i % tasks.length]}:subscribe`, undefined, undefined, abort.signal);
          if (res.status === 200) {
            aborts.push(abort);
            await res.body!.getReader().read();
            return 'open';
          }
          const reason = (((await res.json()) as Json).error.details[0] as Json).reason as string;
          return `${res.status} ${reason}`;
        }),
      );
      // The flood takes the whole pool and not one slot more; every other attempt is named.
      expect(answers.filter((a) => a === 'open').length).toBe(ANONYMOUS_POOL);
      expect(new Set(answers.filter((a) => a !== 'open'))).toEqual(new Set(['429 TOO_MANY_ANONYMOUS_STREAMS']));
      refused += answers.length - ANONYMOUS_POOL;
      const during = await node.stats();
      expect(during.openStreams).toBe(ANONYMOUS_POOL);
      // Token holders are not starved while the flood holds its slots.
      expect(await Promise.all(Array.from({ length: 10 }, (_, i) => partnerStream(i)))).toEqual(Array(10).fill('completed'));
      // The attacker abandons and floods again next round.
      for (const a of aborts) a.abort();
      await until(
        'the abandoned streams gone',
        async () => {
          const s = await node.stats();
          return s.openStreams === 0 && s.listeners === 0;
        },
        20_000,
      );
    }
    expect(refused).toBe(ROUNDS * (ATTEMPTS - ANONYMOUS_POOL));
    const after = await node.stats();
    expect(node.exited).toBe(false);
    expect(after.heapUsed - before).toBeLessThan(HEAP_GROWTH_BOUND);
    expect(after.heapUsed).toBeLessThan(256 * 1024 * 1024);
  }, 600_000);
});
