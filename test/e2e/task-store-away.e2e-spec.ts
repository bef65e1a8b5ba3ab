/**
 * Issue 30 item 5: the task store's Redis stopped under load. The node's A2A layer (Fastify, the
 * Redis task store and event bus, as on a node) on a private redis-server, 16 callers sending
 * messages without pause: while Redis is away every SendMessage is answered with a retriable
 * error naming the task store (HTTP 503 + Retry-After, the JSON-RPC error under the same status),
 * never a 500 or -32603 and never a hang; once Redis is back the node serves again by itself.
 * No timing is asserted (the machine is shared): the bound on each answer is a generous abort.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { a2aVerifier, mintA2AToken } from '@cp/auth';
import { closeRedis, connectRedis, redisAway, type RedisClient } from '@cp/common';
import { buildNodeBundle, financeAgentExample } from '@cp/capabilities';
import { ActiveBundle } from '../../libs/node-sdk/src/active-bundle';
import { registerA2AServer } from '../../libs/node-sdk/src/a2a/a2a-server';
import { HandlerRegistry } from '../../libs/node-sdk/src/a2a/handler-registry';
import { RedisTaskStore } from '../../libs/node-sdk/src/a2a/redis-task-store';
import { RedisTaskEvents } from '../../libs/node-sdk/src/a2a/task-events';
import { ToolGateway } from '../../libs/node-sdk/src/tools/tool-gateway';
import { testConfig } from '../support/config';
import { startPrivateRedis, type PrivateRedis } from '../support/redis-server';
import { until } from '../support/until';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const CLIENTS = 16;
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('the task store away under load: SendMessage fails fast with a retriable error and recovers (issue 30 item 5)', () => {
  let redis: PrivateRedis;
  let command: RedisClient;
  let subscriber: RedisClient;
  let app: FastifyInstance;
  let url: string;
  let token: string;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    const config = testConfig({ REDIS_URL: redis.url });
    token = mintA2AToken(config, 'caller@acme', 'acme-partner', ['recon.run']);
    command = connectRedis(config, 'a2a-commands');
    subscriber = connectRedis(config, 'a2a-events');
    const bundle = new ActiveBundle(
      buildNodeBundle({ agentId: 'finance-agent', revision: 1, ...financeAgentExample(), previewTenants: [] }),
    );
    app = Fastify();
    registerA2AServer(app, {
      bundle: () => bundle,
      verifier: a2aVerifier(config),
      handlers: new HandlerRegistry().register('invoices.v1.lookup', async () => ({
        state: 'completed',
        artifacts: [{ parts: [{ data: { invoice: 'INV-20931', status: 'paid' } }] }],
      })),
      tools: new ToolGateway(
        { exchange: async () => ({ accessToken: 't', expiresAt: Date.now() + 60_000, scopes: [] }) },
        new Map(),
        silent,
      ),
      log: silent,
      tasks: new RedisTaskStore(command, 'e2e-away:'),
      events: new RedisTaskEvents(command, subscriber, 'e2e-away:'),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  });

  afterAll(async () => {
    await app?.close();
    if (command) await closeRedis(command);
    if (subscriber) await closeRedis(subscriber);
    await redis?.stop();
  });

  const message = () => ({
    message: {
      messageId: `m-${Math.random().toString(36).slice(2)}`,
      role: 'ROLE_USER',
      parts: [{ text: 'What is the status of invoice INV-20931?' }],
    },
  });
  const headers = () => ({ 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${token}` });

  interface Answer {
    status: number;
    retryAfter: string | null;
    body: Json;
  }

  // A hang shows as an abort (status 0), never as a pass.
  const rpc = async (): Promise<Answer> => {
    try {
      const res = await fetch(`${url}/a2a/jsonrpc`, {
        method: 'POST',
        headers: headers(),
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: message() }),
        signal: AbortSignal.timeout(15_000),
      });
      return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Json };
    } catch (error) {
      return { status: 0, retryAfter: null, body: { error: String(error) } };
    }
  };
  const rest = async (): Promise<Answer> => {
    const res = await fetch(`${url}/a2a/rest/message:send`, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify(message()),
      signal: AbortSignal.timeout(15_000),
    });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Json };
  };

  it('answers 503 + Retry-After naming the task store while Redis is away, under load, and serves again once it is back', async () => {
    // Load: 16 callers without pause until told to stop; every answer is kept with the phase it began in.
    type Phase = 'up' | 'away' | 'restarting' | 'back';
    let phase = 'up' as Phase;
    let stop = false;
    const answers: { phase: Phase; answer: Answer }[] = [];
    const callers = Array.from({ length: CLIENTS }, async () => {
      while (!stop) {
        const began = phase;
        answers.push({ phase: began, answer: await rpc() });
      }
    });
    const count = (p: Phase, ok?: (a: Answer) => boolean) => answers.filter((a) => a.phase === p && (!ok || ok(a.answer))).length;
    const completed = (a: Answer) => a.status === 200 && a.body.result?.task?.status?.state === 'TASK_STATE_COMPLETED';

    try {
      await until('completed tasks while Redis is up', () => count('up', completed) >= 50, 60_000);
      await redis.stop();
      // "Away" starts once the connection knows it lost Redis (answers begun before may have met it mid-command).
      await until('the connection to see Redis gone', () => redisAway(command), 30_000);
      phase = 'away';
      await until('refusals while Redis is away', () => count('away') >= 100, 60_000);

      // The REST binding: the same refusal in its own shape.
      const restAway = await rest();
      expect(restAway.status).toBe(503);
      expect(restAway.retryAfter).toMatch(/^\d+$/);
      expect(restAway.body.error).toMatchObject({ code: 503, status: 'UNAVAILABLE' });
      expect(restAway.body.error.details[0]).toMatchObject({ reason: 'TASK_STORE_UNAVAILABLE' });

      // Answers begun from here until the connection is ready again may be either.
      phase = 'restarting';
      await redis.start();
      await until('the connection to be back', () => !redisAway(command), 30_000);
      phase = 'back';
      await until('completed tasks once Redis is back', () => count('back', completed) >= 50, 60_000);
    } finally {
      stop = true;
      await Promise.all(callers);
    }

    // Every answer while away: 503 with Retry-After, the JSON-RPC error naming the task store.
    const wrong = answers
      .filter((a) => a.phase === 'away')
      .map((a) => a.answer)
      .filter(
        (a) =>
          a.status !== 503 ||
          !/^\d+$/.test(a.retryAfter ?? '') ||
          a.body.error?.code !== -32000 ||
          a.body.error?.data?.[0]?.reason !== 'TASK_STORE_UNAVAILABLE' ||
          !/task store/i.test(a.body.error?.message ?? ''),
      );
    expect(wrong.slice(0, 3)).toEqual([]);
    // Around the stop and the restart an answer may be either; never a 500, -32603 or a hang.
    const faults = answers.filter((a) => a.answer.status === 0 || a.answer.status === 500 || a.answer.body.error?.code === -32603);
    expect(faults.slice(0, 3)).toEqual([]);
  }, 180_000);
});
