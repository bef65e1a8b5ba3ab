/**
 * Tasks that survive, scale out and stream (issue 12): a control plane on a real database and
 * Redis, TWO finance-agent node processes sharing one Redis task store behind one address (a
 * round-robin proxy), and the official @a2a-js/sdk client streaming over JSON-RPC and REST.
 * Create on one node, subscribe on the other, kill one, read from the other, restart it. Then a
 * soak of fixed size (no timing asserted: speed is for benchmarks): many concurrent anonymous and
 * authenticated streams, memory within limits, no stream left behind after clients disconnect.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import { Message, StreamResponse, Task } from '@a2a-js/sdk';
import { Redis } from 'ioredis';
import { mintA2AToken, mintNodeToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import { bootApp } from '../support/boot';
import { controlPlaneUnderTest } from '../support/control-plane-under-test';
import { spawnA2ANode, type A2ANodeProcess } from '../support/a2a-node-process';
import { startRoundRobinProxy, type RoundRobinProxy } from '../support/round-robin-proxy';
import { testConfig } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { freePort } from '../support/free-port';

const AGENT = 'finance-agent';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const controlPlane = controlPlaneUnderTest({ a2a: true });

async function until<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('A2A tasks across two node processes behind one address (@a2a-js/sdk as peer)', () => {
  let db: TestDatabase;
  let cp: NestFastifyApplication;
  let proxy: RoundRobinProxy;
  let dir: string;
  let redis: Redis;
  let prefix: string;
  let cpConfig: AppConfig;
  const nodes: A2ANodeProcess[] = [];
  const ports: number[] = [];
  let nodeEnv: (i: number) => Record<string, string>;
  let partnerToken: string;
  let noScopeToken: string;
  /** Which backend the next SDK request goes to (undefined: round robin). */
  let pin: number | undefined;

  const clientFor = (binding: 'jsonrpc' | 'rest', token?: string) => {
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      if (token) headers.set('authorization', `Bearer ${token}`);
      if (pin !== undefined) headers.set('x-backend', String(pin));
      return fetch(input, { ...init, headers });
    };
    const transport = binding === 'jsonrpc' ? new JsonRpcTransportFactory({ fetchImpl }) : new RestTransportFactory({ fetchImpl });
    // Only this binding's transport: the SDK's defaults would pick the card's first interface.
    return new ClientFactory({ transports: [transport] }).createFromUrl(proxy.url);
  };
  const userMessage = (text: string, extra: Json = {}) =>
    Message.fromJSON({ messageId: `m-${randomBytes(4).toString('hex')}`, role: 'ROLE_USER', parts: [{ text }], ...extra });
  const wire = (e: StreamResponse) => StreamResponse.toJSON(e) as Json;

  beforeAll(async () => {
    db = await createTestDatabase('a2a_replicas');
    dir = await mkdtemp(join(tmpdir(), 'a2a-replicas-'));
    prefix = `e2e-rep-${process.pid}-${randomBytes(3).toString('hex')}:`;
    cpConfig = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: prefix });
    let cpUrl: string;
    ({ app: cp, url: cpUrl } = await bootApp(controlPlane, cpConfig));
    ports.push(await freePort(), await freePort());
    proxy = await startRoundRobinProxy(() => ports.map((p) => `http://127.0.0.1:${p}`));
    await seedWhenEmpty(cp.get(PrismaService), { agentNodeUrl: proxy.url });
    nodeEnv = (i) => ({
      REDIS_KEY_PREFIX: prefix,
      CONTROL_PLANE_URL: cpUrl,
      AGENT_ID: AGENT,
      NODE_ID: `replica-${i}`,
      NODE_TOKEN: mintNodeToken(cpConfig, AGENT),
      NODE_CACHE_DIR: join(dir, `n${i}`),
      MAX_BODY_BYTES: '1048576',
      A2A_OWNER_MAX_BYTES: '4194304',
      A2A_HISTORY_PART_MAX_BYTES: '4096',
      // The soak holds 15 watchers of one task on each node; the per-task cap (ADR 0205, default 10)
      // is tested on its own in test/security/stream-slots-are-capped-per-owner-task-and-time.
      A2A_MAX_STREAMS_PER_TASK: '16',
    });
    // Two tsx-compiled node processes: on a loaded machine their start alone can pass jest's 30 s.
    nodes.push(...(await Promise.all([0, 1].map((i) => spawnA2ANode(nodeEnv(i), ports[i])))));
    redis = new Redis(cpConfig.REDIS_URL);
    partnerToken = mintA2AToken(cpConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run']);
    noScopeToken = mintA2AToken(cpConfig, 'viewer@acme-partner', 'acme-partner', []);
  }, 120_000);

  afterAll(async () => {
    for (const n of nodes) await n.kill();
    await proxy?.close();
    await cp?.close();
    if (redis) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the card served through the proxy declares streaming and accepts anonymous callers for public skills', async () => {
    const card = (await (await fetch(`${proxy.url}/.well-known/agent-card.json`)).json()) as Json;
    expect(card.capabilities.streaming).toBe(true);
    expect(card.securityRequirements).toEqual([{ schemes: { bearer: { list: [] } } }, {}]);
  });

  for (const binding of ['jsonrpc', 'rest'] as const) {
    it(`${binding}: a task created on one node streams its progress and artifact to a subscriber on the other`, async () => {
      const [create, watch] = binding === 'jsonrpc' ? [0, 1] : [1, 0];
      pin = create;
      const client = await clientFor(binding, partnerToken);
      // No invoice number yet: reconcile-invoice asks for it and the task waits (input-required).
      const first: Json[] = [];
      for await (const e of client.sendMessageStream({
        message: userMessage('reconcile an invoice against its purchase order'),
      } as never)) {
        first.push(wire(e));
      }
      expect(first.map((e) => Object.keys(e)[0])).toEqual(['task', 'statusUpdate', 'statusUpdate']);
      const taskId = first[0].task.id as string;
      expect(first.at(-1)!.statusUpdate.status.state).toBe('TASK_STATE_INPUT_REQUIRED');

      // Subscribe through the OTHER node; continue the task through the first.
      pin = watch;
      const watcher = await clientFor(binding, partnerToken);
      const seen: Json[] = [];
      const subscribed = (async () => {
        for await (const e of watcher.resubscribeTask({ id: taskId } as never)) seen.push(wire(e));
      })();
      await until(async () => seen.length > 0);
      expect(seen[0].task).toMatchObject({ id: taskId, status: { state: 'TASK_STATE_INPUT_REQUIRED' } });
      expect((await nodes[watch].stats()).openStreams).toBe(1);

      pin = create;
      const cont = await clientFor(binding, partnerToken);
      const direct: Json[] = [];
      for await (const e of cont.sendMessageStream({ message: userMessage('INV-20931', { taskId }) } as never)) direct.push(wire(e));
      await subscribed;

      for (const events of [direct, seen.slice(1)]) {
        const progress = events.filter((e) => e.statusUpdate?.status.message).map((e) => e.statusUpdate.status.message.parts[0].text);
        expect(progress.slice(0, 2)).toEqual([
          'fetching the purchase order for INV-20931 from the ERP',
          expect.stringMatching(/^matching 3 invoice lines against PO-\d+$/),
        ]);
        const artifact = events.find((e) => e.artifactUpdate)!.artifactUpdate;
        expect(artifact).toMatchObject({ taskId, lastChunk: true, artifact: { name: 'reconciliation' } });
        expect(artifact.artifact.parts[0].data).toMatchObject({ invoiceNumber: 'INV-20931', matched: false });
        expect(events.at(-1)!.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
        // Progress comes before the artifact, the artifact before completion.
        const order = events.map((e) => (e.artifactUpdate ? 'artifact' : e.statusUpdate?.status.state));
        expect(order.indexOf('artifact')).toBeGreaterThan(order.indexOf('TASK_STATE_WORKING'));
        expect(order.indexOf('artifact')).toBeLessThan(order.indexOf('TASK_STATE_COMPLETED'));
      }
      // Subscribing to the now terminal task fails as the spec says, on either node.
      pin = watch;
      const late = await clientFor(binding, partnerToken);
      await expect(
        (async () => {
          for await (const _e of late.resubscribeTask({ id: taskId } as never)) void _e;
        })(),
      ).rejects.toThrow(/nothing left to subscribe to/);
      pin = undefined;
    });
  }

  it('checks the caller before the first event: another owner streaming into a task gets the same error as SendMessage, no stream', async () => {
    pin = 0;
    const owner = await clientFor('jsonrpc', partnerToken);
    const task = Task.toJSON(
      (await owner.sendMessage({ message: userMessage('reconcile an invoice against its purchase order') } as never)) as Task,
    ) as Json;
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    pin = undefined;
    const continuation = { message: { messageId: 'e1', role: 'ROLE_USER', taskId: task.id, parts: [{ text: 'INV-20931' }] } };
    const call = async (method: string, params: Json) => {
      const res = await fetch(`${proxy.url}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${noScopeToken}`, 'x-backend': '1' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      return { type: res.headers.get('content-type'), body: (await res.json()) as Json };
    };
    const plain = await call('SendMessage', continuation);
    const streamed = await call('SendStreamingMessage', continuation);
    expect(plain.body.error).toMatchObject({ code: -32001, data: [{ reason: 'TASK_NOT_FOUND' }] });
    expect(streamed.type).toMatch(/^application\/json/);
    expect(streamed.body).toEqual(plain.body);
    const subscribe = await call('SubscribeToTask', { id: task.id });
    expect(subscribe.type).toMatch(/^application\/json/);
    expect(subscribe.body.error).toEqual(plain.body.error);
    // The owner cancels through the other node; the first node reads it canceled.
    pin = 1;
    const canceled = Task.toJSON(await (await clientFor('rest', partnerToken)).cancelTask({ id: task.id } as never)) as Json;
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    pin = 0;
    expect((Task.toJSON(await (await clientFor('jsonrpc', partnerToken)).getTask({ id: task.id } as never)) as Json).status.state).toBe(
      'TASK_STATE_CANCELED',
    );
    pin = undefined;
  });

  it('a task survives its node: kill the node that created it, read it from the other, restart, read it again', async () => {
    pin = 0;
    const client = await clientFor('jsonrpc', partnerToken);
    const sent = Task.toJSON(
      (await client.sendMessage({ message: userMessage('reconcile invoice INV-4411 against its PO') } as never)) as Task,
    ) as Json;
    expect(sent.status.state).toBe('TASK_STATE_COMPLETED');
    await nodes[0].kill();
    pin = 1;
    const other = await clientFor('rest', partnerToken);
    const got = Task.toJSON(await other.getTask({ id: sent.id } as never)) as Json;
    expect(got).toMatchObject({ id: sent.id, status: { state: 'TASK_STATE_COMPLETED' } });
    expect(got.artifacts[0].parts[0].data.invoiceNumber).toBe('INV-4411');
    expect(got.history.map((m: Json) => m.parts[0].text)).toEqual(['reconcile invoice INV-4411 against its PO']);
    nodes[0] = await spawnA2ANode(nodeEnv(0), ports[0]);
    pin = 0;
    const again = await clientFor('jsonrpc', partnerToken);
    expect((Task.toJSON(await again.getTask({ id: sent.id } as never)) as Json).artifacts).toEqual(got.artifacts);
    const listed = await fetch(`${proxy.url}/a2a/rest/tasks?pageSize=100`, {
      headers: { 'a2a-version': '1.0', authorization: `Bearer ${partnerToken}`, 'x-backend': '0' },
    });
    expect(((await listed.json()) as Json).tasks.map((t: Json) => t.id)).toContain(sent.id);
    pin = undefined;
  });

  it('soak: concurrent anonymous and authenticated streams, half abandoned mid-stream; no stream left, memory within limits', async () => {
    const anonymousLookups = 60;
    const partnerStreams = 40;
    const open = (token: string | undefined, body: Json, backend: number) =>
      fetch(`${proxy.url}/a2a/jsonrpc`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'a2a-version': '1.0',
          'x-backend': String(backend),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: body }),
      });
    const abandoned: AbortController[] = [];
    const runs: Promise<string>[] = [];
    for (let i = 0; i < anonymousLookups + partnerStreams; i++) {
      const anonymous = i < anonymousLookups;
      const abort = new AbortController();
      const text = anonymous ? 'what is the status of my invoice?' : `reconcile invoice INV-${7000 + i} against its PO`;
      const body = {
        message: {
          messageId: `s${i}`,
          role: 'ROLE_USER',
          parts: [{ text }, ...(anonymous ? [{ raw: randomBytes(48_000).toString('base64'), mediaType: 'application/pdf' }] : [])],
        },
      };
      runs.push(
        (async () => {
          const res = await fetch(`${proxy.url}/a2a/jsonrpc`, {
            method: 'POST',
            signal: abort.signal,
            headers: {
              'content-type': 'application/json',
              'a2a-version': '1.0',
              'x-backend': String(i % 2),
              ...(anonymous ? {} : { authorization: `Bearer ${partnerToken}` }),
            },
            body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'SendStreamingMessage', params: body }),
          });
          if (i % 2 === 0) {
            // Abandon after the first bytes arrive.
            const reader = res.body!.getReader();
            await reader.read();
            abandoned.push(abort);
            abort.abort();
            return 'abandoned';
          }
          const text = await res.text();
          // A read stream that carries no result names what it got instead, so a failure says why.
          return text.includes('"result"') ? 'read' : `error ${res.status}: ${text.slice(0, 300)}`;
        })().catch((e: Error) => (i % 2 === 0 ? 'abandoned' : `failed: ${e.message} ${(e.cause as Error | undefined)?.message ?? ''}`)),
      );
    }
    // Anonymous subscribers on the waiting (input-required) lookups keep streams open, then leave.
    const outcomes = await Promise.all(runs);
    expect(outcomes.filter((o, i) => i % 2 === 1 && o !== 'read')).toEqual([]);
    expect(outcomes.filter((o) => o === 'read').length).toBe((anonymousLookups + partnerStreams) / 2);
    // Abandoned streams are gone on both nodes once their clients are.
    await until(async () => (await Promise.all(nodes.map((n) => n.stats()))).every((x) => x.openStreams === 0 && x.listeners === 0));
    const waiting = (
      await (
        await open(undefined, { message: { messageId: 'w', role: 'ROLE_USER', parts: [{ text: 'what is the status of my invoice?' }] } }, 0)
      ).text()
    )
      .split('\n\n')
      .find((f) => f.includes('"task"'))!;
    const waitingId = (JSON.parse(waiting.slice(6)) as Json).result.task.id as string;
    const watchers = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const abort = new AbortController();
        const res = await fetch(`${proxy.url}/a2a/rest/tasks/${waitingId}:subscribe`, {
          method: 'POST',
          signal: abort.signal,
          headers: { 'a2a-version': '1.0', 'x-backend': String(i % 2) },
        });
        await res.body!.getReader().read();
        return abort;
      }),
    );
    const during = await Promise.all(nodes.map((n) => n.stats()));
    expect(during[0].openStreams + during[1].openStreams).toBe(30);
    for (const w of watchers) w.abort();
    await until(async () => {
      const s = await Promise.all(nodes.map((n) => n.stats()));
      return s.every((x) => x.openStreams === 0 && x.listeners === 0);
    });
    // The review's attack, scaled to this test's time: anonymous ~800 KB messages, 8 at a time.
    const pdf = randomBytes(600_000).toString('base64');
    for (let batch = 0; batch < 10; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          const res = await fetch(`${proxy.url}/a2a/rest/message:send`, {
            method: 'POST',
            headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0', 'x-backend': String(i % 2) },
            body: JSON.stringify({
              message: {
                messageId: `big-${batch}-${i}`,
                role: 'ROLE_USER',
                parts: [{ text: 'status of invoice INV-20931' }, { raw: pdf, mediaType: 'application/pdf', filename: 'INV-20931.pdf' }],
              },
            }),
          });
          return res.status;
        }),
      );
      expect(answers.every((status) => status === 200 || status === 413)).toBe(true);
    }
    // Stored bytes stay within the configured budgets; large parts were not kept in history.
    const budgets = await redis.keys(`${prefix}agent:${AGENT}:a2a:{*}:bytes`);
    expect(budgets.length).toBeGreaterThanOrEqual(2); // the anonymous owner and the partner
    for (const k of budgets) expect(Number(await redis.get(k))).toBeLessThanOrEqual(4_194_304);
    // Anonymous messages carried 64 KB and 800 KB parts; history kept a stub of each, not the part.
    const stored = await redis.keys(`${prefix}agent:${AGENT}:a2a:{*}:task:*`);
    const sizes = await Promise.all(stored.map((k) => redis.strlen(k)));
    expect(Math.max(...sizes)).toBeLessThan(16_384);
    for (const n of nodes) {
      expect(n.exited).toBe(false);
      expect((await n.stats()).heapUsed).toBeLessThan(256 * 1024 * 1024);
    }
  });
});
