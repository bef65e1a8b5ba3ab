/**
 * Issue 28: the node as a gateway in front of an A2A agent it did not write. An official
 * `@a2a-js/sdk` server (express, JSON-RPC, A2A 1.0) runs on 127.0.0.1 as the upstream of
 * reconcile-invoice; a platform admin lets the agent reach 127.0.0.1 (`protocol.upstreamAllow`);
 * the official SDK client calls the node. SendMessage and a stream complete with the upstream's
 * artifact; the upstream sees an exchanged token (audience itself, subject the caller, act the
 * node), never the caller's token nor the node's; a caller who is not entitled causes no upstream
 * request; CancelTask reaches the upstream task.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { createLocalJWKSet } from 'jose';
import { Task, TaskState } from '@a2a-js/sdk';
import { mintA2AToken } from '@cp/auth';
import { NodeSync } from '@cp/node-sdk';
import { AgentNodeModule } from '../../apps/agent-node/src/agent-node.module';
import { sdkClient10 } from '../support/a2a-sdk-client';
import { bootApp } from '../support/boot';
import { freePort } from '../support/free-port';
import { until } from '../support/until';
import { a2aRpc, AGENT, bearer, nodeSubject, startSecurityStack, type Json, type SecurityStack } from '../security/support/stack';
import {
  allowLoopbackUpstreams,
  jwksOf,
  pointAtUpstream,
  reconcileMessage as message,
  streamOf,
  upstreamClaims,
} from './gateway-support/gateway';
import { sdkUpstream, UPSTREAM_RESULT as RESULT, type SdkUpstream } from './gateway-support/sdk-upstream';

jest.setTimeout(180_000);

describe('the node as a gateway in front of an @a2a-js/sdk upstream (issue 28)', () => {
  let stack: SecurityStack;
  let upstream: SdkUpstream;
  let partner: string;
  let noScope: string;
  let jwks: ReturnType<typeof createLocalJWKSet>;

  const clientFor = (token: string) => sdkClient10(stack.nodeUrl, token);
  /** The claims of an upstream token, verified as an upstream would: against the JWKS, with its own audience. */
  const verified = (authorization: string | undefined) => upstreamClaims(stack, jwks, upstream.jsonrpc, authorization);
  /** A second replica of the node (same Redis, same control plane), serving what the first serves; closed after `use`. */
  const onReplica = async (nodeId: string, use: (replicaUrl: string) => Promise<void>) => {
    const port = await freePort();
    const dir = await mkdtemp(join(tmpdir(), 'gateway-replica-'));
    const { app: replica } = await bootApp(AgentNodeModule, { ...stack.nodeConfig, NODE_ID: nodeId, NODE_CACHE_DIR: dir }, { port });
    try {
      const sync = replica.get(NodeSync);
      await until(
        'the replica serves the upstream manifest',
        () => (sync.current()?.revision ?? 0) >= stack.node.get(NodeSync).current()!.revision,
        30_000,
      );
      await use(`http://127.0.0.1:${port}`);
    } finally {
      await replica.close();
      await rm(dir, { recursive: true, force: true });
    }
  };

  beforeAll(async () => {
    upstream = await sdkUpstream();
    // Not about approvals: testConfig's empty APPROVAL_DEFAULT_KINDS reads as unset on main (all kinds gated), so name one kind this suite never changes.
    stack = await startSecurityStack('gateway_sdk', { APPROVAL_DEFAULT_KINDS: 'undeprecate' });
    await allowLoopbackUpstreams(stack);
    await pointAtUpstream(stack, { url: upstream.jsonrpc, binding: 'jsonrpc', version: '1.0' });
    partner = mintA2AToken(stack.cpConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run', 'ledger.write'], 600, AGENT);
    noScope = mintA2AToken(stack.cpConfig, 'viewer@acme-partner', 'acme-partner', [], 600, AGENT);
    jwks = await jwksOf(stack);
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
    // The caller waited for one answer: so did the node (ADR 0350).
    expect(calls.map((c) => c.method)).toEqual(['SendMessage']);
    const claims = await verified(calls[0].authorization);
    expect(claims).toMatchObject({
      token_use: 'upstream',
      sub: 'orchestrator@acme-partner',
      act: { sub: nodeSubject(stack) },
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
    const s = streamOf(client, 'reconcile INV-3, slow start, then hold');
    // The upstream has the request but has not answered: the node knows no upstream task id yet.
    await until('the upstream holds the request', () => s.taskId() !== undefined && upstream.gated.length === 1, 30_000);
    const canceled = Task.toJSON(await client.cancelTask({ id: s.taskId()! } as never)) as Json;
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    upstream.gated[0]();
    await until('the upstream got CancelTask', () => upstream.canceled.length === 1, 30_000);
    const cancelCall = upstream.seen.find((s) => s.method === 'CancelTask');
    expect(cancelCall).toBeDefined();
    expect((await verified(cancelCall!.authorization)).sub).toBe('orchestrator@acme-partner');
    await s.done.catch(() => undefined);
  });

  it('CancelTask while a SendMessage waits for the upstream reaches the upstream task at once, found in the context the node chose (ADR 0371)', async () => {
    const before = upstream.seen.length;
    const client = await clientFor(partner);
    // "hold": the SDK answers this SendMessage only once its task ended (here: canceled).
    const sent = client.sendMessage({ message: message('reconcile INV-6 and hold') } as never) as Promise<Task>;
    await until('the upstream holds the message', () => upstream.seen.slice(before).some((c) => c.method === 'SendMessage'), 30_000);
    const findPending = async () => {
      const listed = await a2aRpc(stack.nodeUrl, 'ListTasks', {}, bearer(partner));
      return ((listed.body.result?.tasks ?? []) as Json[]).find(
        (t) => t.status.state === 'TASK_STATE_WORKING' && JSON.stringify(t.history ?? []).includes('INV-6'),
      );
    };
    let pending: Json | undefined;
    await until('the node task is listed', async () => (pending = await findPending()) !== undefined, 30_000);
    const r = await a2aRpc(stack.nodeUrl, 'CancelTask', { id: pending!.id }, bearer(partner));
    expect(r.body.result?.status.state).toBe('TASK_STATE_CANCELED');
    const send = upstream.seen.slice(before).find((c) => c.method === 'SendMessage')!.body as Json;
    const chosen = send.params.message.contextId;
    expect(chosen).toEqual(expect.any(String));
    expect(chosen).not.toBe(pending!.contextId);
    // The node looks for the upstream task in that context, then cancels it (the SDK answers the
    // held SendMessage only once that task is canceled: the cancel did not wait for the answer).
    const cancelAfterList = () => {
      const calls = upstream.seen.slice(before);
      const list = calls.findIndex((c) => c.method === 'ListTasks' && (c.body as Json).params?.contextId === chosen);
      return list < 0 ? undefined : calls.slice(list + 1).find((c) => c.method === 'CancelTask');
    };
    const cancel = await until('the upstream got CancelTask after ListTasks', cancelAfterList, 30_000);
    expect((await verified(cancel.authorization)).sub).toBe('orchestrator@acme-partner');
    // The task it canceled is the one in the chosen context, as the upstream itself lists it.
    const own = await fetch(upstream.jsonrpc, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: { contextId: chosen } }),
    });
    const tasks = ((await own.json()) as Json).result.tasks as Json[];
    expect(tasks.map((t) => [t.id, t.status.state])).toEqual([[(cancel.body as Json).params.id, 'TASK_STATE_CANCELED']]);
    expect(upstream.canceled).toContain((cancel.body as Json).params.id);
    const answered = Task.toJSON(await sent) as Json;
    expect(answered.id).toBe(pending!.id);
    expect(answered.status.state).toBe('TASK_STATE_CANCELED');
    // Once: no second CancelTask for it when the answer named the task afterwards.
    const again = upstream.seen
      .slice(before)
      .filter((c) => c.method === 'CancelTask' && (c.body as Json).params?.id === (cancel.body as Json).params.id);
    expect(again).toHaveLength(1);
  });

  it('CancelTask on another replica of the node reaches the upstream task (links in Redis)', async () => {
    await onReplica('gateway-replica-2', async (replicaUrl) => {
      const before = upstream.canceled.length;
      const client = await clientFor(partner);
      const s = streamOf(client, 'reconcile INV-4 and hold');
      await until(
        'the upstream task is linked',
        () => s.taskId() !== undefined && JSON.stringify(s.events).includes('held by the upstream'),
        30_000,
      );
      const r = await a2aRpc(replicaUrl, 'CancelTask', { id: s.taskId() }, bearer(partner));
      expect(r.body.result?.status.state).toBe('TASK_STATE_CANCELED');
      await until('the upstream got CancelTask from the other replica', () => upstream.canceled.length === before + 1, 30_000);
      await s.done.catch(() => undefined);
    });
  });

  it('CancelTask on another replica while a SendMessage waits for its upstream reaches the upstream task at once, in the context the task id gives (ADR 0386)', async () => {
    await onReplica('gateway-replica-4', async (replicaUrl) => {
      const before = upstream.seen.length;
      const client = await clientFor(partner);
      // "hold": the SDK answers this SendMessage only once its task ended (here: canceled).
      const sent = client.sendMessage({ message: message('reconcile INV-8 and hold') } as never) as Promise<Task>;
      await until('the upstream holds the message', () => upstream.seen.slice(before).some((c) => c.method === 'SendMessage'), 30_000);
      let pending: Json | undefined;
      await until(
        'the node task is listed',
        async () => {
          const listed = await a2aRpc(replicaUrl, 'ListTasks', {}, bearer(partner));
          pending = ((listed.body.result?.tasks ?? []) as Json[]).find(
            (t) => t.status.state === 'TASK_STATE_WORKING' && JSON.stringify(t.history ?? []).includes('INV-8'),
          );
          return pending !== undefined;
        },
        30_000,
      );
      // The other replica, which does not run the forwarding, takes the cancel.
      const r = await a2aRpc(replicaUrl, 'CancelTask', { id: pending!.id }, bearer(partner));
      expect(r.body.result?.status.state).toBe('TASK_STATE_CANCELED');
      const send = upstream.seen.slice(before).find((c) => c.method === 'SendMessage')!.body as Json;
      const chosen = send.params.message.contextId;
      expect(chosen).not.toBe(pending!.contextId);
      expect(JSON.stringify(send)).not.toContain(pending!.id);
      const cancelAfterList = () => {
        const calls = upstream.seen.slice(before);
        const list = calls.findIndex((c) => c.method === 'ListTasks' && (c.body as Json).params?.contextId === chosen);
        return list < 0 ? undefined : calls.slice(list + 1).find((c) => c.method === 'CancelTask');
      };
      const cancel = await until('the upstream got CancelTask after ListTasks, from the other replica', cancelAfterList, 30_000);
      expect((await verified(cancel.authorization)).sub).toBe('orchestrator@acme-partner');
      // The held SendMessage is answered once its upstream task is canceled: the cancel did not wait for it.
      const answered = Task.toJSON(await sent) as Json;
      expect(answered.id).toBe(pending!.id);
      expect(answered.status.state).toBe('TASK_STATE_CANCELED');
      expect(upstream.canceled).toContain((cancel.body as Json).params.id);
    });
  });

  it('an input-required continuation sent to another replica reaches the same upstream task', async () => {
    await onReplica('gateway-replica-3', async (replicaUrl) => {
      const client = await clientFor(partner);
      const first = Task.toJSON(
        (await client.sendMessage({ message: message('reconcile INV-5, ask me which PO') } as never)) as Task,
      ) as Json;
      expect(first.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(upstream.asked).toHaveLength(1);
      const answer = await a2aRpc(
        replicaUrl,
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
    });
  });
});
