/**
 * The agent node end to end (issue 6): a control plane (node API, usage ingestion, token
 * exchange) on a real database and Redis, an agent node synced from it with NodeSync, and the
 * official @a2a-js/sdk client as the caller. Assertions are on wire JSON.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { Message, Task } from '@a2a-js/sdk';
import jwt from 'jsonwebtoken';
import { a2aAudience, mintA2AToken, mintNodeToken } from '@cp/auth';
import { type AppConfig } from '@cp/common';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import { NodeSync, UsageReporter } from '@cp/node-sdk';
import { AgentNodeModule, ExecutorAgentNodeModule } from '../../apps/agent-node/src/agent-node.module';
import { controlPlaneUnderTest } from '../support/control-plane-under-test';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { freePort } from '../support/free-port';

const AGENT = 'finance-agent';

const controlPlane = controlPlaneUnderTest({ a2a: true });

/** The app on its own port (a node's card URLs name it before it listens). */
const boot = (module: unknown, config: AppConfig, port = 0) => bootApp(module, config, { port });

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// The same checks for the finance agent's native handlers and for the second example agent, whose
// capabilities are @a2a-js/sdk AgentExecutors registered through the node-sdk adapter (ADR 0163).
describe.each([
  ['native node-sdk handlers', AgentNodeModule],
  ['@a2a-js/sdk AgentExecutors (the second example agent)', ExecutorAgentNodeModule],
] as const)('agent node (A2A 1.0) synced from a real control plane, called with @a2a-js/sdk: %s', (_name, NodeModule) => {
  let db: TestDatabase;
  let cpConfig: AppConfig;
  let nodeConfig: AppConfig;
  let cp: NestFastifyApplication;
  let node: NestFastifyApplication;
  let nodeUrl: string;
  let dir: string;
  let partnerToken: string;
  let noScopeToken: string;

  const rpcUrl = () => `${nodeUrl}/a2a/jsonrpc`;
  const rpc = async (method: string, params: unknown, headers: Record<string, string> = {}, id: unknown = 1) => {
    const res = await fetch(rpcUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
  };
  const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
  const message = (parts: Json[], extra: Json = {}) => ({
    message: { messageId: `m-${randomBytes(4).toString('hex')}`, role: 'ROLE_USER', parts, ...extra },
  });
  const PDF = {
    raw: Buffer.from('%PDF-1.4 fake invoice INV-20931').toString('base64'),
    mediaType: 'application/pdf',
    filename: 'INV-20931.pdf',
  };

  const clientFor = (token?: string) => {
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      if (token) headers.set('authorization', `Bearer ${token}`);
      return fetch(input, { ...init, headers });
    };
    return new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })] }),
    ).createFromUrl(nodeUrl);
  };

  beforeAll(async () => {
    db = await createTestDatabase('agent_node_a2a');
    dir = await mkdtemp(join(tmpdir(), 'agent-node-e2e-'));
    const prefix = `e2e-an-${randomBytes(4).toString('hex')}:`;
    cpConfig = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: prefix });
    const cpBoot = await boot(controlPlane, cpConfig);
    cp = cpBoot.app;
    const port = await freePort();
    nodeUrl = `http://127.0.0.1:${port}`;
    await seedWhenEmpty(cp.get(PrismaService), { agentNodeUrl: nodeUrl });
    nodeConfig = testConfig({
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: prefix,
      CONTROL_PLANE_URL: cpBoot.url,
      AGENT_ID: AGENT,
      NODE_ID: 'e2e-node-1',
      NODE_TOKEN: mintNodeToken(cpConfig, AGENT),
      NODE_CACHE_DIR: dir,
      USAGE_FLUSH_INTERVAL_MS: '3600000',
      MAX_BODY_BYTES: '65536',
    });
    node = (await boot(NodeModule, nodeConfig, port)).app;
    const sync = node.get(NodeSync);
    const deadline = Date.now() + 10_000;
    while (!sync.current() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    expect(sync.current()?.revision).toBe(1);
    partnerToken = mintA2AToken(cpConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run']);
    noScopeToken = mintA2AToken(cpConfig, 'viewer@acme-partner', 'acme-partner', []);
  });

  afterAll(async () => {
    await node?.close();
    await cp?.close();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  describe('cards', () => {
    it('serves the public card with ETag, Cache-Control and 304, listing only invoice-lookup', async () => {
      const res = await fetch(`${nodeUrl}/.well-known/agent-card.json`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toMatch(/max-age=\d+/);
      const etag = res.headers.get('etag')!;
      const card = (await res.json()) as Json;
      expect(card.skills.map((s: Json) => s.id)).toEqual(['invoice-lookup']);
      expect(card.capabilities).toMatchObject({ extendedAgentCard: true, streaming: true, pushNotifications: false });
      expect(card.supportedInterfaces[0]).toEqual({ url: `${nodeUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
      expect(etag).toBe(node.get(NodeSync).current()!.publicCard.etag);
      const again = await fetch(`${nodeUrl}/.well-known/agent-card.json`, { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
    });

    it('gives the official client the card, and the partner the extended card with reconcile-invoice', async () => {
      // The SDK reads the public card, sees capabilities.extendedAgentCard and calls GetExtendedAgentCard.
      const card = await (await clientFor(partnerToken)).getAgentCard();
      expect(card.skills.map((s) => s.id)).toEqual(['invoice-lookup', 'reconcile-invoice']);
      // Anonymous: the SDK's extended-card call is refused, nothing more is revealed.
      await expect((await clientFor()).getAgentCard()).rejects.toThrow('this operation needs a bearer token');
      const partner = await rpc('GetExtendedAgentCard', {}, bearer(partnerToken));
      expect(partner.status).toBe(200);
      expect(partner.body.result.skills.map((s: Json) => s.id)).toEqual(['invoice-lookup', 'reconcile-invoice']);
      const noScope = await rpc('GetExtendedAgentCard', {}, bearer(noScopeToken));
      expect(noScope.body.result.skills.map((s: Json) => s.id)).toEqual(['invoice-lookup']);
      const rest = await fetch(`${nodeUrl}/a2a/rest/extendedAgentCard`, { headers: { 'a2a-version': '1.0', ...bearer(partnerToken) } });
      expect(rest.status).toBe(200);
      expect(rest.headers.get('content-type')).toContain('application/a2a+json');
      expect(((await rest.json()) as Json).skills.map((s: Json) => s.id)).toEqual(['invoice-lookup', 'reconcile-invoice']);
    });

    it('refuses the extended card without a token (401, WWW-Authenticate)', async () => {
      const r = await rpc('GetExtendedAgentCard', {});
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe('Bearer');
      expect(r.body.error).toMatchObject({
        code: -32000,
        data: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TOKEN_MISSING', domain: 'capability-control-plane' }],
      });
    });
  });

  describe('messages (seed worked example)', () => {
    it('routes a partner\'s PDF + "reconcile this against the PO" to reconcile-invoice, with a downscoped ERP call', async () => {
      const client = await clientFor(partnerToken);
      const result = await client.sendMessage({
        message: Message.fromJSON(message([PDF, { text: 'reconcile this against the PO' }]).message),
      } as never);
      const wire = Task.toJSON(result as Task) as Json;
      expect(wire.status.state).toBe('TASK_STATE_COMPLETED');
      expect(wire.metadata.routing).toMatchObject({ capabilityId: 'reconcile-invoice', layer: 'classifier' });
      const data = wire.artifacts[0].parts[0].data;
      expect(data).toMatchObject({ invoiceNumber: 'INV-20931', matched: false });
      expect(data.differences).toHaveLength(1);
      // The ERP saw a token downscoped to the caller: its tenant, its scopes ∩ the tool's, act_sub = caller.
      expect(data.erpServedFor).toEqual({
        actor: 'orchestrator@acme-partner',
        tenant: 'acme-partner',
        scopes: ['recon.run'],
        capability: 'reconcile-invoice',
      });
      // GetTask through the client answers the same task.
      const got = Task.toJSON(await client.getTask({ id: wire.id } as never)) as Json;
      expect(got.id).toBe(wire.id);
      expect(got.status.state).toBe('TASK_STATE_COMPLETED');
    });

    it('routes a text lookup for anyone, and answers JSON', async () => {
      const r = await rpc('SendMessage', message([{ text: 'What is the status of invoice INV-20931?' }]));
      expect(r.status).toBe(200);
      expect(r.body.result.task.metadata.routing).toMatchObject({ capabilityId: 'invoice-lookup' });
      expect(r.body.result.task.artifacts[0].parts[0]).toMatchObject({
        data: { invoiceNumber: 'INV-20931', amount: { currency: 'EUR' } },
        mediaType: 'application/json',
      });
    });

    it('never lets a caller without recon.run reach reconcile-invoice, even when it names it', async () => {
      for (const headers of [{}, bearer(noScopeToken)]) {
        const r = await rpc(
          'SendMessage',
          { ...message([PDF, { text: 'reconcile this against the PO' }]), metadata: { skillId: 'reconcile-invoice' } },
          headers,
        );
        expect(r.body.result.task.metadata.routing.capabilityId).toBe('invoice-lookup');
        expect(JSON.stringify(r.body)).not.toContain('reconcile-invoice"');
        expect(r.body.result.task.metadata.notices[0].message).toBe(
          'skill hint "reconcile-invoice" names no capability available to you for this message; it was ignored',
        );
      }
      const unknown = await rpc(
        'SendMessage',
        { ...message([PDF, { text: 'x' }]), metadata: { skillId: 'made-up' } },
        bearer(noScopeToken),
      );
      expect(unknown.body.result.task.metadata.notices[0].message).toBe(
        'skill hint "made-up" names no capability available to you for this message; it was ignored',
      );
    });

    it('asks the partner to choose (input-required) when the text says nothing, then continues the bound task', async () => {
      const first = await rpc('SendMessage', message([{ text: 'hello' }]), bearer(partnerToken));
      const task = first.body.result.task;
      expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(task.metadata.routing.candidates.map((c: Json) => c.id).sort()).toEqual(['invoice-lookup', 'reconcile-invoice']);
      const second = await rpc(
        'SendMessage',
        {
          ...message([{ text: 'INV-555 please' }], { taskId: task.id, contextId: task.contextId }),
          metadata: { skillId: 'invoice-lookup' },
        },
        bearer(partnerToken),
      );
      expect(second.body.result.task).toMatchObject({
        id: task.id,
        status: { state: 'TASK_STATE_COMPLETED' },
        metadata: { routing: { capabilityId: 'invoice-lookup', layer: 'hint' } },
      });
      // Another caller cannot see or continue it.
      const other = await rpc('GetTask', { id: task.id }, bearer(noScopeToken));
      expect(other.body.error).toMatchObject({ code: -32001 });
    });

    it('routes a data part by its shape, and refuses media types nothing accepts', async () => {
      const data = await rpc('SendMessage', message([{ data: { invoiceNumber: 'INV-777' } }]), bearer(partnerToken));
      // application/json is not among the finance skills' input modes.
      expect(data.body.error).toMatchObject({
        code: -32005,
        data: [{ reason: 'CONTENT_TYPE_NOT_SUPPORTED', metadata: { mediaTypes: 'application/json' } }],
      });
      const png = await rpc('SendMessage', message([{ raw: 'iVBORw0KGgo=', mediaType: 'image/png' }]));
      expect(png.body.error.code).toBe(-32005);
    });

    it('honours acceptedOutputModes or fails clearly', async () => {
      const r = await rpc('SendMessage', {
        ...message([{ text: 'status of INV-1234' }]),
        configuration: { acceptedOutputModes: ['text/csv'] },
      });
      expect(r.body.error).toMatchObject({
        code: -32005,
        message: 'capability "invoice-lookup" produces application/json; you accept only text/csv',
      });
    });
  });

  describe('protocol errors', () => {
    const raw = (body: string, headers: Record<string, string> = {}) =>
      fetch(rpcUrl(), { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers }, body }).then(
        async (res) => ({ status: res.status, body: (await res.json()) as Json }),
      );

    it('answers malformed JSON -32700, a bad envelope -32600, an unknown method -32601, bad params -32602', async () => {
      expect(await raw('{"jsonrpc":"2.0",')).toMatchObject({ status: 200, body: { jsonrpc: '2.0', id: null, error: { code: -32700 } } });
      expect((await raw('{"jsonrpc":"1.0","id":1,"method":"GetTask"}')).body).toMatchObject({ id: 1, error: { code: -32600 } });
      expect((await raw('[{"jsonrpc":"2.0","id":1,"method":"GetTask"}]')).body.error.code).toBe(-32600);
      expect((await rpc('message/send', {})).body).toMatchObject({
        id: 1,
        error: { code: -32601, data: [{ reason: 'METHOD_NOT_FOUND' }] },
      });
      expect((await rpc('SendMessage', { message: { role: 'ROLE_USER', parts: [] } })).body.error).toMatchObject({
        code: -32602,
        message: 'params.message.messageId: must be a non-empty string',
      });
      expect((await rpc('GetTask', { id: 'nope' })).body.error).toMatchObject({ code: -32001, data: [{ reason: 'TASK_NOT_FOUND' }] });
    });

    it('answers a 0.3 call where the agent serves no 0.3 with VersionNotSupportedError, never method-not-found; push is not served', async () => {
      for (const method of ['message/send', 'tasks/get', 'SendMessage']) {
        const r = await rpc(method, { id: 'x' }, { 'a2a-version': '' });
        expect(r.body.error).toMatchObject({ code: -32009, data: [{ reason: 'VERSION_NOT_SUPPORTED', domain: 'a2a-protocol.org' }] });
      }
      const card = (await (await fetch(`${nodeUrl}/.well-known/agent-card.json`)).json()) as Json;
      expect(card.protocolVersion).toBeUndefined();
      expect(card.supportedInterfaces.map((i: Json) => i.protocolVersion)).toEqual(['1.0', '1.0']);
      const push = await rpc('CreateTaskPushNotificationConfig', { taskId: 'x', url: 'https://example.com/hook' });
      expect(push.body.error).toMatchObject({
        code: -32003,
        data: [{ reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED', domain: 'a2a-protocol.org' }],
      });
    });

    it('answers an oversized body 413 in JSON-RPC and REST shapes', async () => {
      const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: message([{ text: 'x'.repeat(70_000) }]) });
      const r = await raw(big);
      expect(r.status).toBe(413);
      expect(r.body.error).toMatchObject({ code: -32000, data: [{ reason: 'PAYLOAD_TOO_LARGE' }] });
      const rest = await fetch(`${nodeUrl}/a2a/rest/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: big,
      });
      expect(rest.status).toBe(413);
      expect(((await rest.json()) as Json).error).toMatchObject({
        code: 413,
        status: 'RESOURCE_EXHAUSTED',
        details: [{ reason: 'PAYLOAD_TOO_LARGE' }],
      });
    });

    it('answers bad and expired tokens 401 naming why, never falling back to anonymous', async () => {
      const expired = jwt.sign(
        { token_use: 'a2a', tenant: 'acme-partner', scope: 'recon.run', exp: Math.floor(Date.now() / 1000) - 60 },
        cpConfig.JWT_SECRET,
        {
          subject: 'x',
          audience: a2aAudience(cpConfig, AGENT),
          issuer: cpConfig.A2A_JWT_ISSUER,
        },
      );
      const e = await rpc('SendMessage', message([{ text: 'INV-1' }]), bearer(expired));
      expect(e.status).toBe(401);
      expect(e.body.error.data[0]).toMatchObject({ reason: 'TOKEN_EXPIRED' });
      expect(e.headers.get('www-authenticate')).toContain('invalid_token');
      const forged = mintA2AToken({ ...cpConfig, JWT_SECRET: 'another-secret-another-secret-0123456789' }, 'x', 'acme-partner', [
        'recon.run',
      ]);
      expect((await rpc('SendMessage', message([{ text: 'INV-1' }]), bearer(forged))).body.error.data[0].reason).toBe(
        'TOKEN_BAD_SIGNATURE',
      );
      const nodeTok = mintNodeToken(cpConfig, AGENT);
      expect((await rpc('GetExtendedAgentCard', {}, bearer(nodeTok))).status).toBe(401);
      const rest = await fetch(`${nodeUrl}/a2a/rest/extendedAgentCard`, { headers: { 'a2a-version': '1.0', ...bearer(expired) } });
      expect(rest.status).toBe(401);
      expect(((await rest.json()) as Json).error).toMatchObject({
        code: 401,
        status: 'UNAUTHENTICATED',
        details: [{ reason: 'TOKEN_EXPIRED' }],
      });
    });

    it('answers VersionNotSupportedError for a missing (0.3) or unknown A2A-Version', async () => {
      const missing = await fetch(rpcUrl(), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: 'x' } }),
      });
      expect(((await missing.json()) as Json).error).toMatchObject({
        code: -32009,
        data: [{ reason: 'VERSION_NOT_SUPPORTED', metadata: { requested: '0.3', supported: '1.0' } }],
      });
      expect((await rpc('GetTask', { id: 'x' }, { 'a2a-version': '0.5' })).body.error.code).toBe(-32009);
      const viaQuery = await fetch(`${rpcUrl()}?A2A-Version=1.0`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: 'x' } }),
      });
      expect(((await viaQuery.json()) as Json).error.code).toBe(-32001);
      const rest = await fetch(`${nodeUrl}/a2a/rest/tasks/x`);
      expect(rest.status).toBe(400);
      expect(((await rest.json()) as Json).error).toMatchObject({
        status: 'FAILED_PRECONDITION',
        details: [{ reason: 'VERSION_NOT_SUPPORTED' }],
      });
    });

    it("answers undeclared push with the digest's errors, and SubscribeToTask on an unknown task TaskNotFound", async () => {
      expect((await rpc('SubscribeToTask', { id: 'no-such-task' })).body.error.code).toBe(-32001);
      expect((await rpc('CreateTaskPushNotificationConfig', { taskId: 'x', url: 'http://example.com' })).body.error.code).toBe(-32003);
      const rest = await fetch(`${nodeUrl}/a2a/rest/tasks/x/pushNotificationConfigs`, { headers: { 'a2a-version': '1.0' } });
      expect(((await rest.json()) as Json).error.details[0].reason).toBe('PUSH_NOTIFICATION_NOT_SUPPORTED');
    });

    it('serves the HTTP+JSON binding: message:send, tasks/{id}, 404 in AIP-193 shape', async () => {
      const sent = await fetch(`${nodeUrl}/a2a/rest/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0' },
        body: JSON.stringify(message([{ text: 'status of invoice INV-42' }])),
      });
      expect(sent.status).toBe(200);
      const task = ((await sent.json()) as Json).task;
      const got = await fetch(`${nodeUrl}/a2a/rest/tasks/${task.id}`, { headers: { 'a2a-version': '1.0' } });
      expect(((await got.json()) as Json).id).toBe(task.id);
      const missing = await fetch(`${nodeUrl}/a2a/rest/tasks/does-not-exist`, { headers: { 'a2a-version': '1.0' } });
      expect(missing.status).toBe(404);
      expect(((await missing.json()) as Json).error).toMatchObject({
        code: 404,
        status: 'NOT_FOUND',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }],
      });
    });
  });

  describe('usage', () => {
    it('counts every routed call and reports it in an idempotent batch the control plane stores', async () => {
      const reporter = node.get(UsageReporter);
      await reporter.flush();
      expect(reporter.queued).toHaveLength(0);
      const prisma = cp.get(PrismaService);
      const rows = await prisma.usageBucket.findMany({ where: { agentId: AGENT, nodeId: 'e2e-node-1' } });
      const byKey = Object.fromEntries(rows.map((r) => [`${r.capabilityId}/${r.tenantId}`, Number(r.count)]));
      expect(byKey['reconcile-invoice/acme-partner']).toBe(1);
      expect(byKey['invoice-lookup/anonymous']).toBeGreaterThanOrEqual(3);
      // An empty window is reported too.
      const before = await prisma.usageBatch.count({ where: { nodeId: 'e2e-node-1' } });
      await reporter.flush();
      expect(await prisma.usageBatch.count({ where: { nodeId: 'e2e-node-1' } })).toBe(before + 1);
    });
  });

  it('keeps the tool credential from the node: token exchange refuses a caller not entitled to the capability', async () => {
    const res = await fetch(new URL('/node/v1/token-exchange', nodeConfig.CONTROL_PLANE_URL), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${nodeConfig.NODE_TOKEN}` },
      body: JSON.stringify({ subjectToken: noScopeToken, tool: 'erp', capabilityId: 'reconcile-invoice' }),
    });
    expect(res.status).toBe(403);
    const ok = await fetch(new URL('/node/v1/token-exchange', nodeConfig.CONTROL_PLANE_URL), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${nodeConfig.NODE_TOKEN}` },
      body: JSON.stringify({
        subjectToken: mintA2AToken(cpConfig, 'p', 'acme-partner', ['recon.run', 'payroll.run']),
        tool: 'erp',
        capabilityId: 'reconcile-invoice',
      }),
    });
    const body = (await ok.json()) as Json;
    expect(body).toMatchObject({ tokenType: 'Bearer', expiresIn: 300, scopes: ['recon.run'], tool: 'erp' });
    const claims = jwt.decode(body.accessToken) as Json;
    expect(claims).toMatchObject({
      token_use: 'tool',
      tenant: 'acme-partner',
      scope: 'recon.run',
      act_sub: 'p',
      capability: 'reconcile-invoice',
      aud: 'tool:erp',
    });
    expect(claims.exp - claims.iat).toBeLessThanOrEqual(300);
  });
});
