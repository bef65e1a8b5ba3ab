/**
 * Issue 28: the node as a gateway in front of an A2A agent it did not write. An official
 * `@a2a-js/sdk` server (express, JSON-RPC, A2A 1.0) runs on 127.0.0.1 as the upstream of
 * reconcile-invoice; a platform admin lets the agent reach 127.0.0.1 (`protocol.upstreamAllow`);
 * the official SDK client calls the node. SendMessage and a stream complete with the upstream's
 * artifact; the upstream sees an exchanged token (audience itself, subject the caller, act the
 * node), never the caller's token nor the node's; a caller who is not entitled causes no upstream
 * request; CancelTask reaches the upstream task.
 */
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import express from 'express';
import jwt from 'jsonwebtoken';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { AgentCard, Message, Task, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { mintA2AToken } from '@cp/auth';
import { NodeSync } from '@cp/node-sdk';
import { AgentNodeModule } from '../../apps/agent-node/src/agent-node.module';
import { bootApp } from '../support/boot';
import { freePort } from '../support/free-port';
import { gqlOk } from '../support/graphql-client';
import { until } from '../support/until';
import { a2aRpc, AGENT, bearer, startSecurityStack, type Json, type SecurityStack } from '../security/support/stack';
import { platformAdmin } from '../security/support/push';

jest.setTimeout(180_000);

const MANIFEST = 'query($a: String!, $c: String!) { manifest(agentId: $a, capabilityId: $c) { document } agent(id: $a) { revision } }';
const UPDATE_MANIFEST = 'mutation($input: ManifestDocumentInput!) { updateManifest(input: $input) { revision } }';
const UPDATE_AGENT = 'mutation($input: UpdateAgentInput!) { updateAgent(input: $input) { revision } }';
const RESULT = { reconciled: true, by: 'sdk-upstream' };

interface Seen {
  method: string;
  authorization: string | undefined;
}

/** The official SDK server as an upstream: answers with one artifact, or holds a task until it is canceled. */
async function sdkUpstream(): Promise<{
  url: string;
  seen: Seen[];
  canceled: string[];
  /** Upstream tasks that asked for input, and those a continuation reached. */
  asked: string[];
  continued: string[];
  /** Tasks whose first event waits for `open()`: the upstream has accepted the request but said nothing yet. */
  gated: Array<() => void>;
  close(): Promise<void>;
}> {
  const seen: Seen[] = [];
  const canceled: string[] = [];
  const asked: string[] = [];
  const continued: string[] = [];
  const gated: Array<() => void> = [];
  const holds = new Map<string, () => void>();
  const executor: AgentExecutor = {
    async execute(rc, bus) {
      if (JSON.stringify(rc.userMessage).includes('slow start')) await new Promise<void>((resolve) => gated.push(resolve));
      bus.publish(AgentEvent.task(Task.fromJSON({ id: rc.taskId, contextId: rc.contextId, status: { state: 'TASK_STATE_WORKING' } })));
      const text = rc.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join(' ');
      if (rc.task) continued.push(rc.taskId);
      else if (text.includes('ask me')) {
        asked.push(rc.taskId);
        bus.publish(
          AgentEvent.statusUpdate(
            TaskStatusUpdateEvent.fromJSON({
              taskId: rc.taskId,
              contextId: rc.contextId,
              status: {
                state: 'TASK_STATE_INPUT_REQUIRED',
                message: { messageId: `ask-${rc.taskId}`, role: 'ROLE_AGENT', parts: [{ text: 'which purchase order?' }] },
              },
            }),
          ),
        );
        bus.finished();
        return;
      }
      if (text.includes('hold')) {
        // Said after the task event: once a caller sees it, the node has linked its task to this one.
        bus.publish(
          AgentEvent.statusUpdate(
            TaskStatusUpdateEvent.fromJSON({
              taskId: rc.taskId,
              contextId: rc.contextId,
              status: {
                state: 'TASK_STATE_WORKING',
                message: { messageId: `held-${rc.taskId}`, role: 'ROLE_AGENT', parts: [{ text: 'held by the upstream' }] },
              },
            }),
          ),
        );
        await new Promise<void>((resolve) => holds.set(rc.taskId, resolve));
        return;
      }
      bus.publish(
        AgentEvent.artifactUpdate(
          TaskArtifactUpdateEvent.fromJSON({
            taskId: rc.taskId,
            contextId: rc.contextId,
            artifact: { artifactId: 'reconciliation', name: 'reconciliation', parts: [{ data: RESULT, mediaType: 'application/json' }] },
            lastChunk: true,
          }),
        ),
      );
      bus.publish(
        AgentEvent.statusUpdate(
          TaskStatusUpdateEvent.fromJSON({ taskId: rc.taskId, contextId: rc.contextId, status: { state: 'TASK_STATE_COMPLETED' } }),
        ),
      );
      bus.finished();
    },
    async cancelTask(taskId, bus) {
      canceled.push(taskId);
      bus.publish(
        AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ taskId, contextId: '', status: { state: 'TASK_STATE_CANCELED' } })),
      );
      bus.finished();
      holds.get(taskId)?.();
    },
  };
  const app = express();
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/a2a/jsonrpc`;
  const card = AgentCard.fromJSON({
    name: 'Reconciliation service',
    description: 'Reconciles invoices',
    version: '1.0.0',
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['application/json'],
    skills: [{ id: 'reconcile-invoice', name: 'Reconcile', description: 'Reconcile an invoice', tags: ['finance'] }],
  });
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use('/a2a/jsonrpc', express.json(), (req, _res, next) => {
    seen.push({ method: String((req.body as Json)?.method), authorization: req.headers.authorization });
    next();
  });
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    url,
    seen,
    canceled,
    asked,
    continued,
    gated,
    close: () => {
      for (const open of gated) open();
      for (const release of holds.values()) release();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('the node as a gateway in front of an @a2a-js/sdk upstream (issue 28)', () => {
  let stack: SecurityStack;
  let upstream: Awaited<ReturnType<typeof sdkUpstream>>;
  let partner: string;
  let noScope: string;
  let jwks: ReturnType<typeof createLocalJWKSet>;

  const clientFor = (token: string) => {
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${token}`);
      return fetch(input, { ...init, headers });
    };
    return new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })] }),
    ).createFromUrl(stack.nodeUrl);
  };
  const message = (text: string) =>
    Message.fromJSON({
      messageId: `m-${randomBytes(4).toString('hex')}`,
      role: 'ROLE_USER',
      parts: [{ text }],
      metadata: { skillId: 'reconcile-invoice' },
    });
  /** The claims of an upstream token, verified as an upstream would: against the JWKS, with its own audience. */
  const verified = async (authorization: string | undefined) => {
    expect(authorization).toMatch(/^Bearer /);
    const { payload } = await jwtVerify(authorization!.slice(7), jwks, {
      audience: new URL(upstream.url).origin,
      issuer: stack.cpConfig.JWT_ISSUER,
    });
    return payload;
  };

  beforeAll(async () => {
    upstream = await sdkUpstream();
    // Not about approvals: testConfig's empty APPROVAL_DEFAULT_KINDS reads as unset on main (all kinds gated), so name one kind this suite never changes.
    stack = await startSecurityStack('gateway_sdk', { APPROVAL_DEFAULT_KINDS: 'undeprecate' });
    const admin = platformAdmin(stack);
    const agent = await gqlOk(stack.cpUrl, admin, `{ agent(id: "${AGENT}") { revision } }`);
    await gqlOk(stack.cpUrl, admin, UPDATE_AGENT, {
      input: { id: AGENT, expectedRevision: agent.agent.revision, protocol: { upstreamAllow: ['127.0.0.1'] } },
    });
    const current = await gqlOk(stack.cpUrl, admin, MANIFEST, { a: AGENT, c: 'reconcile-invoice' });
    const { updateManifest } = await gqlOk(stack.cpUrl, admin, UPDATE_MANIFEST, {
      input: {
        agentId: AGENT,
        expectedRevision: current.agent.revision,
        manifest: { ...current.manifest.document, upstream: { url: upstream.url, binding: 'jsonrpc', version: '1.0' } },
      },
    });
    const sync = stack.node.get(NodeSync);
    await until(
      'the node serves the upstream manifest',
      () => (sync.current()?.revision ?? 0) >= (updateManifest.revision as number),
      30_000,
    );
    partner = mintA2AToken(stack.cpConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run', 'ledger.write'], 600, AGENT);
    noScope = mintA2AToken(stack.cpConfig, 'viewer@acme-partner', 'acme-partner', [], 600, AGENT);
    jwks = createLocalJWKSet((await (await fetch(`${stack.cpUrl}/.well-known/jwks.json`)).json()) as JSONWebKeySet);
  });
  afterAll(async () => {
    await stack?.close();
    await upstream?.close();
  });

  it('SendMessage completes with the upstream artifact; the upstream saw an exchanged token, never the caller or node token', async () => {
    const before = upstream.seen.length;
    const client = await clientFor(partner);
    const wire = Task.toJSON(
      (await client.sendMessage({ message: message('reconcile INV-20931 against the PO') } as never)) as Task,
    ) as Json;
    expect(wire.status.state).toBe('TASK_STATE_COMPLETED');
    expect(wire.artifacts[0].parts[0].data).toEqual(RESULT);
    const calls = upstream.seen.slice(before);
    expect(calls.map((c) => c.method)).toEqual(['SendStreamingMessage']);
    const claims = await verified(calls[0].authorization);
    const nodeSubject = (jwt.decode(stack.nodeConfig.NODE_TOKEN!) as Json).sub as string;
    expect(claims).toMatchObject({
      token_use: 'upstream',
      sub: 'orchestrator@acme-partner',
      act: { sub: nodeSubject },
      scope: 'recon.run',
      capability: 'reconcile-invoice',
    });
    for (const call of upstream.seen) {
      expect(call.authorization).not.toContain(partner);
      expect(call.authorization).not.toContain(stack.nodeConfig.NODE_TOKEN!);
    }
    // The node kept its own task: the upstream's id is not the node's.
    expect(wire.id).not.toBe((calls[0] as Json).taskId);
  });

  it('a stream through the SDK client ends completed with the upstream artifact', async () => {
    const client = await clientFor(partner);
    const events: Json[] = [];
    for await (const e of client.sendMessageStream({ message: message('reconcile INV-20932 please') } as never)) events.push(e);
    const kinds = events.map((e) => e.payload.$case as string);
    expect(kinds[0]).toBe('task');
    const artifacts = events.filter((e) => e.payload.$case === 'artifactUpdate');
    expect(artifacts).toHaveLength(1);
    expect(artifacts[0].payload.value.artifact.parts[0].content).toEqual({ $case: 'data', value: RESULT });
    const last = events[events.length - 1].payload;
    expect(last.$case).toBe('statusUpdate');
    expect(last.value.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('a caller who is not entitled causes no upstream request', async () => {
    const before = upstream.seen.length;
    for (const headers of [{}, bearer(noScope)]) {
      const r = await a2aRpc(
        stack.nodeUrl,
        'SendMessage',
        {
          message: { messageId: `m-${randomBytes(4).toString('hex')}`, role: 'ROLE_USER', parts: [{ text: 'reconcile INV-1' }] },
          metadata: { skillId: 'reconcile-invoice' },
        },
        headers,
      );
      expect(r.status).toBeLessThan(500);
      expect(JSON.stringify(r.body)).not.toContain('sdk-upstream');
    }
    // Routing/entitlement decided: nothing reached the upstream (checked after the node answered).
    expect(upstream.seen.slice(before)).toEqual([]);
  });

  it('CancelTask reaches the upstream task, even when it arrives before the upstream said anything', async () => {
    const client = await clientFor(partner);
    let nodeTaskId: string | undefined;
    const stream = client.sendMessageStream({ message: message('reconcile INV-3, slow start, then hold') } as never);
    const consumed = (async () => {
      for await (const e of stream) {
        const value = (e as Json).payload?.value as Json | undefined;
        const id = value?.id ?? value?.taskId;
        if (typeof id === 'string') nodeTaskId = id;
      }
    })();
    // The upstream has the request but has not answered: the node knows no upstream task id yet.
    await until('the upstream holds the request', () => nodeTaskId !== undefined && upstream.gated.length === 1, 30_000);
    const canceled = Task.toJSON(await client.cancelTask({ id: nodeTaskId! } as never)) as Json;
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    upstream.gated[0]();
    await until('the upstream got CancelTask', () => upstream.canceled.length === 1, 30_000);
    const cancelCall = upstream.seen.find((s) => s.method === 'CancelTask');
    expect(cancelCall).toBeDefined();
    expect((await verified(cancelCall!.authorization)).sub).toBe('orchestrator@acme-partner');
    await consumed.catch(() => undefined);
  });

  it('CancelTask on another replica of the node reaches the upstream task (links in Redis)', async () => {
    const port = await freePort();
    const dir = await mkdtemp(join(tmpdir(), 'gateway-replica-'));
    const { app: replica } = await bootApp(
      AgentNodeModule,
      { ...stack.nodeConfig, NODE_ID: 'gateway-replica-2', NODE_CACHE_DIR: dir },
      { port },
    );
    try {
      const sync = replica.get(NodeSync);
      await until(
        'the replica serves the upstream manifest',
        () => (sync.current()?.revision ?? 0) >= stack.node.get(NodeSync).current()!.revision,
        30_000,
      );
      const before = upstream.canceled.length;
      const client = await clientFor(partner);
      let nodeTaskId: string | undefined;
      let held = false;
      const consumed = (async () => {
        for await (const e of client.sendMessageStream({ message: message('reconcile INV-4 and hold') } as never)) {
          const value = (e as Json).payload?.value as Json | undefined;
          const id = value?.id ?? value?.taskId;
          if (typeof id === 'string') nodeTaskId = id;
          if (JSON.stringify(e).includes('held by the upstream')) held = true;
        }
      })();
      await until('the upstream task is linked', () => nodeTaskId !== undefined && held, 30_000);
      const r = await a2aRpc(`http://127.0.0.1:${port}`, 'CancelTask', { id: nodeTaskId }, bearer(partner));
      expect(r.body.result?.status.state).toBe('TASK_STATE_CANCELED');
      await until('the upstream got CancelTask from the other replica', () => upstream.canceled.length === before + 1, 30_000);
      await consumed.catch(() => undefined);
    } finally {
      await replica.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('an input-required continuation sent to another replica reaches the same upstream task', async () => {
    const port = await freePort();
    const dir = await mkdtemp(join(tmpdir(), 'gateway-replica-'));
    const { app: replica } = await bootApp(
      AgentNodeModule,
      { ...stack.nodeConfig, NODE_ID: 'gateway-replica-3', NODE_CACHE_DIR: dir },
      { port },
    );
    try {
      const sync = replica.get(NodeSync);
      await until(
        'the replica serves the upstream manifest',
        () => (sync.current()?.revision ?? 0) >= stack.node.get(NodeSync).current()!.revision,
        30_000,
      );
      const client = await clientFor(partner);
      const first = Task.toJSON(
        (await client.sendMessage({ message: message('reconcile INV-5, ask me which PO') } as never)) as Task,
      ) as Json;
      expect(first.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(upstream.asked).toHaveLength(1);
      const answer = await a2aRpc(
        `http://127.0.0.1:${port}`,
        'SendMessage',
        {
          message: {
            messageId: `m-${randomBytes(4).toString('hex')}`,
            role: 'ROLE_USER',
            taskId: first.id,
            contextId: first.contextId,
            parts: [{ text: 'PO-77' }],
          },
        },
        bearer(partner),
      );
      expect(answer.body.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
      expect(answer.body.result.task.id).toBe(first.id);
      expect(upstream.continued).toEqual(upstream.asked);
    } finally {
      await replica.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
