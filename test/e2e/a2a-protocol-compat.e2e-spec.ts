/**
 * Issue 19 end to end: one agent node serving A2A 1.0 and 0.3 (protocol setting of the agent in
 * the control plane), called with the official SDK's 1.0 client and its 0.3 (legacy JSON-RPC)
 * client; JSON-RPC notifications; push notifications delivered to a local webhook receiver, with
 * SSRF attempts, another caller's configs and bounded retries. Real control plane, PostgreSQL,
 * Redis and BullMQ; assertions on wire JSON.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Client } from '@a2a-js/sdk/client';
import { Message, Task, StreamResponse } from '@a2a-js/sdk';
import { mintA2AToken, mintNodeToken } from '@cp/auth';
import { type AppConfig } from '@cp/common';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import { NodeSync, UsageReporter } from '@cp/node-sdk';
import { AgentNodeModule } from '../../apps/agent-node/src/agent-node.module';
import { authedFetch, sdkClient03, sdkClient10 } from '../support/a2a-sdk-client';
import { controlPlaneUnderTest } from '../support/control-plane-under-test';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { freePort } from '../support/free-port';
import { until } from '../support/until';

const AGENT = 'finance-agent';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const controlPlane = controlPlaneUnderTest({ a2a: true });

/** The app on its own port (a node's card URLs name it before it listens). */
const boot = (module: unknown, config: AppConfig, port = 0) => bootApp(module, config, { port });

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Json;
}

/** A webhook receiver: records every POST; paths choose the answer (/fail: 503, /redirect: 307 to `redirectTo`). */
async function receiver(host: string, redirectTo?: () => string): Promise<{ url: string; got: Received[]; server: http.Server }> {
  const got: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      let parsed: Json = {};
      try {
        parsed = JSON.parse(body) as Json;
      } catch {
        parsed = { raw: body };
      }
      got.push({ path: req.url ?? '', headers: req.headers, body: parsed });
      if (req.url?.startsWith('/fail')) res.writeHead(503).end();
      else if (req.url?.startsWith('/redirect') && redirectTo) res.writeHead(307, { location: redirectTo() }).end();
      else res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { url: `http://${host}:${(server.address() as AddressInfo).port}`, got, server };
}

describe('A2A 0.3 beside 1.0, JSON-RPC notifications and push notifications on one node', () => {
  let db: TestDatabase;
  let cpConfig: AppConfig;
  let cp: NestFastifyApplication;
  let node: NestFastifyApplication;
  let nodeUrl: string;
  let dir: string;
  let partnerToken: string;
  let otherToken: string;
  let hook: Awaited<ReturnType<typeof receiver>>;
  let stolen: Awaited<ReturnType<typeof receiver>>;

  const rpcUrl = () => `${nodeUrl}/a2a/jsonrpc`;
  const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
  const rpc = async (method: string, params: unknown, headers: Record<string, string> = {}, version: string | null = '1.0') => {
    const res = await fetch(rpcUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(version ? { 'a2a-version': version } : {}), ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const msg = (text: string) => ({ messageId: `m-${randomBytes(4).toString('hex')}`, role: 'ROLE_USER', parts: [{ text }] });
  /** The SDK's 1.0 client: reads the card with A2A-Version: 1.0 and picks the 1.0 JSON-RPC interface. */
  const client10 = (token: string): Promise<Client> => sdkClient10(nodeUrl, token);

  /**
   * The SDK's 0.3 client: the card a 0.3 client reads (no A2A-Version), taken as a pure 0.3 card
   * (its 1.0 interface list removed), so the SDK's resolver and transport factory choose the
   * legacy JSON-RPC transport, which speaks 0.3 method names and shapes without A2A-Version.
   */
  const client03 = (token: string): Promise<Client> => sdkClient03(nodeUrl, 'jsonrpc', authedFetch(token));

  /**
   * The SDK's 0.3 HTTP+JSON client: the same pure 0.3 card, and only the REST transport factory
   * (legacy mode), so it picks the 0.3 HTTP+JSON interface and speaks `/v1/…` proto-JSON.
   */
  const restPaths: string[] = [];
  const client03rest = (token: string): Promise<Client> => {
    const send = authedFetch(token);
    const recording: typeof fetch = (input, init) => {
      restPaths.push(`${init?.method ?? 'GET'} ${new URL(input instanceof Request ? input.url : input).pathname}`);
      return send(input, init);
    };
    return sdkClient03(nodeUrl, 'http+json', recording);
  };

  const usageOf = async (capability: string, tenant: string): Promise<number> => {
    await node.get(UsageReporter).flush();
    const rows = await cp
      .get(PrismaService)
      .usageBucket.findMany({ where: { agentId: AGENT, capabilityId: capability, tenantId: tenant } });
    return rows.reduce((n, r) => n + Number(r.count), 0);
  };

  beforeAll(async () => {
    db = await createTestDatabase('a2a_protocol_compat');
    dir = await mkdtemp(join(tmpdir(), 'a2a-compat-e2e-'));
    const prefix = `e2e-compat-${randomBytes(4).toString('hex')}:`;
    cpConfig = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: prefix });
    const cpBoot = await boot(controlPlane, cpConfig);
    cp = cpBoot.app;
    hook = await receiver('127.0.0.1', () => `${stolen.url}/steal`);
    stolen = await receiver('127.0.0.2');
    const port = await freePort();
    nodeUrl = `http://127.0.0.1:${port}`;
    // The agent's protocol settings: 0.3 beside 1.0, push on, webhooks may reach 127.0.0.1 only.
    await seedWhenEmpty(cp.get(PrismaService), {
      agentNodeUrl: nodeUrl,
      protocol: { versions: ['1.0', '0.3'], pushNotifications: true, webhookAllow: ['127.0.0.1'] },
    });
    const nodeConfig = testConfig({
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: prefix,
      CONTROL_PLANE_URL: cpBoot.url,
      AGENT_ID: AGENT,
      NODE_ID: 'compat-node-1',
      NODE_TOKEN: mintNodeToken(cpConfig, AGENT),
      NODE_CACHE_DIR: dir,
      USAGE_FLUSH_INTERVAL_MS: '3600000',
      A2A_PUSH_ATTEMPTS: '3',
      A2A_PUSH_BACKOFF_MS: '50',
      A2A_PUSH_TIMEOUT_MS: '2000',
    });
    node = (await boot(AgentNodeModule, nodeConfig, port)).app;
    const sync = node.get(NodeSync);
    await until('the node to apply a bundle', () => sync.current() !== undefined, 10_000);
    partnerToken = mintA2AToken(cpConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run']);
    otherToken = mintA2AToken(cpConfig, 'someone@acme-partner', 'acme-partner', ['recon.run']);
  });

  afterAll(async () => {
    await node?.close();
    await cp?.close();
    await Promise.all([hook, stolen].map((r) => r && new Promise((resolve) => r.server.close(resolve))));
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  describe('cards', () => {
    it('lists an interface per protocol version: 1.0 first, then the JSON-RPC and HTTP+JSON interfaces at 0.3', async () => {
      const res = await fetch(`${nodeUrl}/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } });
      const card = (await res.json()) as Json;
      expect(res.headers.get('vary')).toBe('A2A-Version');
      expect(card.supportedInterfaces).toEqual([
        { url: `${nodeUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: `${nodeUrl}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
        { url: `${nodeUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
        { url: `${nodeUrl}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
      ]);
      expect(card.capabilities.pushNotifications).toBe(true);
      expect(card.url).toBeUndefined();
    });

    it('gives a 0.3 client (no A2A-Version) the hybrid card with the 0.3 fields and its own ETag', async () => {
      const res = await fetch(`${nodeUrl}/.well-known/agent-card.json`);
      const card = (await res.json()) as Json;
      expect(card).toMatchObject({
        protocolVersion: '0.3.0',
        url: `${nodeUrl}/a2a/jsonrpc`,
        preferredTransport: 'JSONRPC',
        supportsAuthenticatedExtendedCard: true,
        securitySchemes: { bearer: { type: 'http', scheme: 'Bearer', bearerFormat: 'JWT' } },
      });
      expect(card.security).toEqual([{ bearer: [] }, {}]);
      expect(res.headers.get('etag')).toMatch(/-v03"$/);
      const again = await fetch(`${nodeUrl}/.well-known/agent-card.json`, { headers: { 'if-none-match': res.headers.get('etag')! } });
      expect(again.status).toBe(304);
    });
  });

  describe('the official SDK, 1.0 and 0.3 clients, against one node', () => {
    it.each([
      ['1.0', client10],
      ['0.3', client03],
      ['0.3 HTTP+JSON', client03rest],
    ] as const)('%s: send, get, cancel, stream and the extended card, each send counted once in usage', async (_v, make) => {
      const client = await make(partnerToken);
      const before = await usageOf('invoice-lookup', 'acme-partner');
      const sent = Task.toJSON(
        (await client.sendMessage({ message: Message.fromJSON(msg('status of invoice INV-20931?')) } as never)) as Task,
      ) as Json;
      expect(sent.status.state).toBe('TASK_STATE_COMPLETED');
      expect(sent.artifacts[0].parts[0]).toMatchObject({ data: { invoiceNumber: 'INV-20931' } });
      const got = Task.toJSON(await client.getTask({ id: sent.id } as never)) as Json;
      expect(got).toMatchObject({ id: sent.id, status: { state: 'TASK_STATE_COMPLETED' } });

      // A lookup without a number waits for input: cancel it.
      const waiting = Task.toJSON(
        (await client.sendMessage({ message: Message.fromJSON(msg('look up an invoice please')) } as never)) as Task,
      ) as Json;
      expect(waiting.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const canceled = Task.toJSON(await client.cancelTask({ id: waiting.id } as never)) as Json;
      expect(canceled.status.state).toBe('TASK_STATE_CANCELED');

      const events: Json[] = [];
      for await (const e of client.sendMessageStream({
        message: Message.fromJSON(msg('reconcile invoice INV-20931 against the PO')),
      } as never)) {
        events.push(StreamResponse.toJSON(e) as Json);
      }
      expect(events[0].task.id).toBeDefined();
      const last = events.at(-1)!;
      expect(last.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
      expect(events.some((e) => e.artifactUpdate?.artifact.parts[0].data?.invoiceNumber === 'INV-20931')).toBe(true);

      const card = await client.getAgentCard();
      expect(card.skills.map((s) => s.id)).toEqual(['invoice-lookup', 'reconcile-invoice']);

      // Two sends of invoice-lookup (the cancel and the get are not routed calls).
      expect((await usageOf('invoice-lookup', 'acme-partner')) - before).toBe(2);
      if (make === client03rest) {
        // Every call went over the 0.3 HTTP+JSON paths.
        expect(new Set(restPaths.map((p) => p.replace(/[0-9a-f-]{36}/, '{id}')))).toEqual(
          new Set([
            'POST /a2a/rest/v1/message:send',
            'GET /a2a/rest/v1/tasks/{id}',
            'POST /a2a/rest/v1/tasks/{id}:cancel',
            'POST /a2a/rest/v1/message:stream',
            'GET /a2a/rest/v1/card',
          ]),
        );
      }
    });
  });

  describe('versions and notifications', () => {
    it('answers a 1.0 method sent without A2A-Version with VersionNotSupportedError naming the header, and an unknown 0.3 method -32601', async () => {
      const r = await rpc('SendMessage', { message: msg('hi') }, bearer(partnerToken), null);
      expect(r.body.error).toMatchObject({ code: -32009, data: [{ reason: 'VERSION_NOT_SUPPORTED', domain: 'a2a-protocol.org' }] });
      expect(r.body.error.message).toContain('A2A-Version: 1.0');
      const u = await rpc('tasks/list', {}, bearer(partnerToken), null);
      expect(u.body.error).toMatchObject({ code: -32601, data: [{ reason: 'METHOD_NOT_FOUND', domain: 'capability-control-plane' }] });
      expect((await rpc('message/send', {}, {}, '0.5')).body.error.code).toBe(-32009);
    });

    it('refuses malformed 0.3 shapes with InvalidParams naming the 0.3 field, storing nothing', async () => {
      const cases: [unknown, string][] = [
        [{ message: { kind: 'message', role: 'user', messageId: 'a', parts: [{ kind: 'video', x: 1 }] } }, 'params.message.parts[0].kind'],
        [{ message: { kind: 'message', role: 'ROLE_USER', messageId: 'a', parts: [{ kind: 'text', text: 'x' }] } }, 'params.message.role'],
        [{ message: { role: 'user', messageId: 'a', parts: [{ kind: 'text', text: 'x' }] } }, 'params.message.kind'],
        [
          { message: { kind: 'message', role: 'user', messageId: 'a', parts: [{ kind: 'file', file: { bytes: 'AA', uri: 'http://x' } }] } },
          'params.message.parts[0].file',
        ],
        [
          { message: { kind: 'message', role: 'user', messageId: 'a', parts: [{ kind: 'data', data: [1] }] } },
          'params.message.parts[0].data',
        ],
        [
          {
            message: { kind: 'message', role: 'user', messageId: 'a', parts: [{ kind: 'text', text: 'x' }] },
            configuration: { blocking: 'yes' },
          },
          'params.configuration.blocking',
        ],
        ['not an object', 'params'],
      ];
      const list = async () => (await rpc('ListTasks', {}, bearer(partnerToken))).body.result.totalSize as number;
      const before = await list();
      for (const [params, field] of cases) {
        const r = await rpc('message/send', params, bearer(partnerToken), null);
        expect(r.status).toBe(200);
        expect(r.body.error).toMatchObject({ code: -32602, data: [{ metadata: { field } }] });
      }
      expect(await list()).toBe(before);
    });

    it('0.3 HTTP+JSON: hostile bodies, paths and versions get a 0.3 error body naming what is wrong, storing nothing', async () => {
      const v1 = (path: string, init: RequestInit = {}) =>
        fetch(`${nodeUrl}/a2a/rest/v1${path}`, {
          ...init,
          headers: { 'content-type': 'application/json', ...bearer(partnerToken), ...(init.headers as Record<string, string>) },
        });
      const list = async () => (await rpc('ListTasks', {}, bearer(partnerToken))).body.result.totalSize as number;
      const before = await list();
      const bodies: [string, string][] = [
        ['{', 'PARSE_ERROR'],
        [JSON.stringify({ message: { messageId: 'a', role: 'ROLE_USER', content: [{ video: 1 }] } }), 'message.content[0]'],
        [JSON.stringify({ message: { messageId: 'a', role: 'ROLE_AGENT', content: [{ text: 'x' }] } }), 'message.role'],
        [
          JSON.stringify({ message: { messageId: 'a', content: [{ file: { fileWithUri: 'http://x', fileWithBytes: 'AA' } }] } }),
          'message.content[0].file',
        ],
        [JSON.stringify({ message: { messageId: 'a', content: [{ data: { data: [1] } }] } }), 'message.content[0].data.data'],
        [
          JSON.stringify({ message: { messageId: 'a', content: [{ text: 'x' }] }, configuration: { blocking: 'yes' } }),
          'configuration.blocking',
        ],
        [JSON.stringify({ message: { messageId: '', content: [{ text: 'x' }] } }), 'message.messageId'],
        [JSON.stringify([1, 2]), 'body'],
        [`${'['.repeat(5000)}${']'.repeat(5000)}`, ''],
      ];
      for (const [body, field] of bodies) {
        const res = await v1('/message:send', { method: 'POST', body });
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toContain('application/json');
        const error = (await res.json()) as Json;
        expect(error.code).toBe(-32602);
        if (field === 'PARSE_ERROR') expect(error.message).toMatch(/not valid JSON/);
        else if (field) expect(error.data[0].metadata.field).toBe(field);
      }
      // A body over the node's limit: 413 in the 0.3 error shape, as every other /v1 error.
      const huge = await v1('/message:send', {
        method: 'POST',
        body: JSON.stringify({ message: { messageId: 'h', content: [{ text: 'x'.repeat(2_000_000) }] } }),
      });
      expect(huge.status).toBe(413);
      expect((await huge.json()) as Json).toMatchObject({ code: expect.any(Number), message: expect.stringContaining('exceeds') });
      // An unknown operation, another caller's task, a 1.0 request on a 0.3 path.
      const unknown = await v1('/tasks/x:explode', { method: 'POST', body: '{}' });
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as Json).code).toBe(-32601);
      const sent = (await (
        await v1('/message:send', {
          method: 'POST',
          body: JSON.stringify({ message: { messageId: 'own-1', content: [{ text: 'status of invoice INV-20931?' }] } }),
        })
      ).json()) as Json;
      expect(sent.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(sent.task.status.message?.content ?? sent.task.artifacts[0].parts).toBeDefined();
      const foreign = await fetch(`${nodeUrl}/a2a/rest/v1/tasks/${sent.task.id}`, {
        headers: bearer(mintA2AToken(cpConfig, 'x@globex', 'globex', [])),
      });
      expect(foreign.status).toBe(404);
      expect(((await foreign.json()) as Json).code).toBe(-32001);
      const v10 = await v1(`/tasks/${sent.task.id}`, { headers: { 'a2a-version': '1.0' } });
      expect(v10.status).toBe(400);
      expect((await v10.json()) as Json).toMatchObject({ code: -32009, message: expect.stringContaining('no /v1 prefix') });
      expect(await list()).toBe(before + 1);

      // Push configs over the 0.3 paths: the 0.3 proto shape in and out, credentials never echoed,
      // another caller of the same tenant can neither read nor delete them.
      const configs = `/tasks/${sent.task.id}/pushNotificationConfigs`;
      const created = await v1(configs, {
        method: 'POST',
        body: JSON.stringify({
          name: `tasks/${sent.task.id}/pushNotificationConfigs/c1`,
          pushNotificationConfig: {
            id: 'c1',
            url: `${hook.url}/rest03`,
            token: 't',
            authentication: { schemes: ['Bearer'], credentials: 's3cret' },
          },
        }),
      });
      expect(created.status).toBe(200);
      const view = (await created.json()) as Json;
      expect(view).toEqual({
        name: `tasks/${sent.task.id}/pushNotificationConfigs/c1`,
        pushNotificationConfig: { id: 'c1', url: `${hook.url}/rest03`, token: 't', authentication: { schemes: ['Bearer'] } },
      });
      expect(((await (await v1(configs)).json()) as Json).configs).toEqual([view]);
      const other = { headers: bearer(otherToken) };
      expect((await v1(`${configs}/c1`, other)).status).toBe(404);
      expect((await v1(`${configs}/c1`, { ...other, method: 'DELETE' })).status).toBe(404);
      const wrongTask = await v1(configs, {
        method: 'POST',
        body: JSON.stringify({ name: 'tasks/other/pushNotificationConfigs/c2', pushNotificationConfig: { url: `${hook.url}/x` } }),
      });
      expect(wrongTask.status).toBe(400);
      expect(((await wrongTask.json()) as Json).data[0].metadata.field).toBe('name');
      expect((await v1(`${configs}/c1`, { method: 'DELETE' })).status).toBe(200);
      expect(((await (await v1(configs)).json()) as Json).configs).toEqual([]);
    });

    it('never answers a notification (no id), but runs it', async () => {
      const list = async () => (await rpc('ListTasks', {}, bearer(partnerToken))).body.result.totalSize as number;
      const before = await list();
      const res = await fetch(rpcUrl(), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...bearer(partnerToken) },
        body: JSON.stringify({ jsonrpc: '2.0', method: 'SendMessage', params: { message: msg('status of invoice INV-4711?') } }),
      });
      expect(res.status).toBe(204);
      expect(await res.text()).toBe('');
      await until('the notification to create a task', async () => (await list()) === before + 1, 5000);
      // A failing notification is not answered either.
      const bad = await fetch(rpcUrl(), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', method: 'GetTask', params: { id: 'nope' } }),
      });
      expect(bad.status).toBe(204);
      expect(await bad.text()).toBe('');
    });
  });

  describe('push notifications', () => {
    const hookConfig = (path: string, extra: Json = {}) => ({
      url: `${hook.url}${path}`,
      token: 'tok-1',
      authentication: { scheme: 'Bearer', credentials: 'cred-1' },
      ...extra,
    });
    const waitingTask = async (token = partnerToken): Promise<string> => {
      const r = await rpc('SendMessage', { message: msg('look up an invoice please') }, bearer(token));
      expect(r.body.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      return r.body.result.task.id as string;
    };

    it('delivers a task’s updates to the webhook in order, with the configured authentication and token', async () => {
      const r = await rpc(
        'SendMessage',
        {
          message: msg('reconcile invoice INV-20931 against the PO'),
          configuration: { taskPushNotificationConfig: hookConfig('/ordered') },
        },
        bearer(partnerToken),
      );
      expect(r.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      const mine = () => hook.got.filter((g) => g.path === '/ordered');
      await until(
        'the completed update at the webhook',
        () => mine().at(-1)?.body.statusUpdate?.status.state === 'TASK_STATE_COMPLETED',
        10_000,
      );
      const got = mine();
      expect(got[0].body.task.id).toBe(r.body.result.task.id);
      const kinds = got.map((g) => Object.keys(g.body)[0]);
      expect(kinds).toEqual(['task', 'statusUpdate', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
      expect(got.map((g) => g.body.statusUpdate?.status.message?.parts[0].text).filter(Boolean)[0]).toContain(
        'fetching the purchase order',
      );
      for (const g of got) {
        expect(g.headers.authorization).toBe('Bearer cred-1');
        expect(g.headers['x-a2a-notification-token']).toBe('tok-1');
        expect(g.headers['content-type']).toBe('application/a2a+json');
      }
    });

    it('creates, reads, lists and deletes configs; another caller can neither see nor delete them', async () => {
      const taskId = await waitingTask();
      const created = await rpc('CreateTaskPushNotificationConfig', { taskId, id: 'cfg-a', ...hookConfig('/crud') }, bearer(partnerToken));
      // Credentials are write-only.
      expect(created.body.result).toEqual({
        taskId,
        id: 'cfg-a',
        url: `${hook.url}/crud`,
        token: 'tok-1',
        authentication: { scheme: 'Bearer' },
      });
      expect((await rpc('GetTaskPushNotificationConfig', { taskId, id: 'cfg-a' }, bearer(partnerToken))).body.result.id).toBe('cfg-a');
      const rest = await fetch(`${nodeUrl}/a2a/rest/tasks/${taskId}/pushNotificationConfigs`, {
        headers: { 'a2a-version': '1.0', ...bearer(partnerToken) },
      });
      expect(((await rest.json()) as Json).configs.map((c: Json) => c.id)).toEqual(['cfg-a']);

      // Another caller of the same tenant: TaskNotFound everywhere, nothing changes.
      for (const [method, params] of [
        ['GetTaskPushNotificationConfig', { taskId, id: 'cfg-a' }],
        ['ListTaskPushNotificationConfigs', { taskId }],
        ['DeleteTaskPushNotificationConfig', { taskId, id: 'cfg-a' }],
        ['CreateTaskPushNotificationConfig', { taskId, ...hookConfig('/theirs') }],
      ] as const) {
        const r = await rpc(method, params, bearer(otherToken));
        expect(r.body.error).toMatchObject({ code: -32001, data: [{ reason: 'TASK_NOT_FOUND' }] });
      }
      const del = await fetch(`${nodeUrl}/a2a/rest/tasks/${taskId}/pushNotificationConfigs/cfg-a`, {
        method: 'DELETE',
        headers: { 'a2a-version': '1.0', ...bearer(otherToken) },
      });
      expect(del.status).toBe(404);
      expect((await rpc('ListTaskPushNotificationConfigs', { taskId }, bearer(partnerToken))).body.result.configs).toHaveLength(1);

      // The owner deletes, twice (idempotent); nothing is delivered after.
      expect((await rpc('DeleteTaskPushNotificationConfig', { taskId, id: 'cfg-a' }, bearer(partnerToken))).body.result).toEqual({});
      expect((await rpc('DeleteTaskPushNotificationConfig', { taskId, id: 'cfg-a' }, bearer(partnerToken))).body.result).toEqual({});
      await rpc('CancelTask', { id: taskId }, bearer(partnerToken));
      await new Promise((r) => setTimeout(r, 300));
      expect(hook.got.filter((g) => g.path === '/crud')).toEqual([]);
    });

    it('serves the 0.3 push-config methods and sends 0.3 webhooks the task in 0.3 shape', async () => {
      const taskId = await waitingTask();
      const set = await rpc(
        'tasks/pushNotificationConfig/set',
        {
          taskId,
          pushNotificationConfig: { id: 'v03', url: `${hook.url}/v03`, authentication: { schemes: ['Bearer'], credentials: 'c3' } },
        },
        bearer(partnerToken),
        null,
      );
      expect(set.body.result).toEqual({
        taskId,
        pushNotificationConfig: { id: 'v03', url: `${hook.url}/v03`, authentication: { schemes: ['Bearer'] } },
      });
      const list = await rpc('tasks/pushNotificationConfig/list', { id: taskId }, bearer(partnerToken), null);
      expect(list.body.result).toHaveLength(1);
      await rpc('tasks/cancel', { id: taskId }, bearer(partnerToken), null);
      await until('the 0.3 webhook call', () => hook.got.some((g) => g.path === '/v03'), 10_000);
      const got = hook.got.find((g) => g.path === '/v03')!;
      expect(got.body).toMatchObject({ kind: 'task', id: taskId, status: { state: 'canceled' } });
      expect(got.headers.authorization).toBe('Bearer c3');
      expect(
        (await rpc('tasks/pushNotificationConfig/delete', { id: taskId, pushNotificationConfigId: 'v03' }, bearer(partnerToken), null)).body
          .result,
      ).toBeNull();
    });

    it('refuses SSRF targets and hostile configs at creation, naming the field, storing nothing', async () => {
      const taskId = await waitingTask();
      const port = new URL(stolen.url).port;
      const refused: [Json, RegExp][] = [
        [{ url: `http://127.0.0.2:${port}/x` }, /127\.0\.0\.2 \(loopback\)/],
        [{ url: 'http://10.0.0.1/x' }, /\(private\)/],
        [{ url: 'http://169.254.169.254/latest/meta-data/' }, /\(linkLocal\)/],
        [{ url: `http://[::1]:${port}/x` }, /\(loopback\)/],
        [{ url: `http://[::ffff:127.0.0.2]:${port}/x` }, /\(ipv4Mapped\)/],
        [{ url: 'http://0.0.0.0/x' }, /\(unspecified\)/],
        [{ url: 'file:///etc/passwd' }, /scheme "file"/],
        [{ url: 'gopher://127.0.0.1/x' }, /scheme "gopher"/],
        [{ url: `http://user:pw@127.0.0.1:${port}/x` }, /credentials/],
        [{ url: `http://127.0.0.1/${'a'.repeat(3000)}` }, /longer than 2048/],
        [{ url: 42 }, /non-empty string/],
        [{ url: `${hook.url}/x`, authentication: { scheme: 'Bearer\r\nX-Evil: 1' } }, /HTTP auth scheme/],
        [{ url: `${hook.url}/x`, token: 'a\nb' }, /printable ASCII/],
        [{ url: `${hook.url}/x`, token: 'x'.repeat(5000) }, /at most 1024/],
        [{ url: `${hook.url}/x`, id: '../../etc' }, /A-Z a-z 0-9/],
        [{ url: `${hook.url}/x`, surprise: { deep: [[[1]]] } }, /is not a field/],
      ];
      for (const [config, reason] of refused) {
        const r = await rpc('CreateTaskPushNotificationConfig', { taskId, ...config }, bearer(partnerToken));
        expect(r.status).toBe(200);
        expect(r.body.error?.code).toBe(-32602);
        expect(r.body.error.message).toMatch(reason);
      }
      // A whole config given with SendMessage is checked before the task exists.
      const inline = await rpc(
        'SendMessage',
        { message: msg('status of invoice INV-1?'), configuration: { taskPushNotificationConfig: { url: 'http://169.254.169.254/' } } },
        bearer(partnerToken),
      );
      expect(inline.body.error).toMatchObject({
        code: -32602,
        data: [{ reason: 'WEBHOOK_URL_REFUSED', domain: 'capability-control-plane' }],
      });
      expect((await rpc('ListTaskPushNotificationConfigs', { taskId }, bearer(partnerToken))).body.result.configs).toEqual([]);
      // At most 10 configs per task.
      for (let i = 0; i < 10; i++)
        await rpc('CreateTaskPushNotificationConfig', { taskId, id: `c${i}`, url: `${hook.url}/many` }, bearer(partnerToken));
      const eleventh = await rpc('CreateTaskPushNotificationConfig', { taskId, id: 'c10', url: `${hook.url}/many` }, bearer(partnerToken));
      expect(eleventh.body.error).toMatchObject({ code: -32602, data: [{ reason: 'TOO_MANY_PUSH_CONFIGS' }] });
      for (let i = 0; i < 10; i++) await rpc('DeleteTaskPushNotificationConfig', { taskId, id: `c${i}` }, bearer(partnerToken));
    });

    it('re-checks at delivery: a redirect to another loopback address is refused and not retried', async () => {
      const taskId = await waitingTask();
      await rpc('CreateTaskPushNotificationConfig', { taskId, id: 'redir', url: `${hook.url}/redirect` }, bearer(partnerToken));
      await rpc('CancelTask', { id: taskId }, bearer(partnerToken));
      await until('the redirected delivery', () => hook.got.some((g) => g.path === '/redirect'), 10_000);
      await new Promise((r) => setTimeout(r, 500));
      expect(hook.got.filter((g) => g.path === '/redirect')).toHaveLength(1);
      expect(stolen.got).toEqual([]);
    });

    it('retries a failing webhook with backoff and stops after the bound (3 attempts)', async () => {
      const taskId = await waitingTask();
      await rpc('CreateTaskPushNotificationConfig', { taskId, id: 'fail', url: `${hook.url}/fail` }, bearer(partnerToken));
      await rpc('CancelTask', { id: taskId }, bearer(partnerToken));
      const attempts = () => hook.got.filter((g) => g.path === '/fail');
      await until('three delivery attempts', () => attempts().length >= 3, 10_000);
      await new Promise((r) => setTimeout(r, 800));
      expect(attempts()).toHaveLength(3);
      expect(attempts().every((a) => a.body.statusUpdate?.status.state === 'TASK_STATE_CANCELED')).toBe(true);
    });
  });
});
