/**
 * Issue 28 item 5: the node translates between A2A 0.3 and 1.0 on both sides of a gateway.
 *   - A 0.3-only upstream (the official `@a2a-js/sdk` server's own v0.3 compat layer, JSON-RPC and
 *     HTTP+JSON) behind the node's 1.0 front: the official 1.0 client calls the node; the upstream
 *     receives 0.3 method names, paths and shapes (`message/stream`, `kind` tags, `/v1/…`
 *     proto-JSON), and its 0.3 events become the node task's 1.0 updates (send, stream,
 *     input-required continuation, cancel).
 *   - A 0.3 caller (the SDK's legacy client) in front of a 1.0 upstream: stream and cancel end to end.
 * Every upstream request carries the exchanged token, never the caller's.
 */
import { randomBytes } from 'node:crypto';
import type { createLocalJWKSet } from 'jose';
import { Message, Task, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { mintA2AToken } from '@cp/auth';
import { authedFetch, sdkClient03, sdkClient10 } from '../support/a2a-sdk-client';
import { until } from '../support/until';
import { AGENT, startSecurityStack, type Json, type SecurityStack } from '../security/support/stack';
import {
  allowLoopbackUpstreams,
  jwksOf,
  pointAtUpstream,
  reconcileMessage as message,
  streamOf,
  upstreamClaims,
} from './gateway-support/gateway';
import { sdkUpstream, UPSTREAM_RESULT, type SdkUpstream } from './gateway-support/sdk-upstream';

jest.setTimeout(180_000);

describe('a gateway node translates A2A 0.3 ⇄ 1.0 (issue 28 item 5)', () => {
  let stack: SecurityStack;
  let upstream: SdkUpstream;
  let partner: string;
  let jwks: ReturnType<typeof createLocalJWKSet>;

  const client10 = (token: string): Promise<Client> => sdkClient10(stack.nodeUrl, token);
  /** The SDK's 0.3 client on the node's pure 0.3 card (as in a2a-protocol-compat), JSON-RPC or HTTP+JSON. */
  const client03 = (token: string, binding: 'jsonrpc' | 'http+json'): Promise<Client> =>
    sdkClient03(stack.nodeUrl, binding, authedFetch(token));
  const claimsOf = (authorization: string | undefined) => upstreamClaims(stack, jwks, upstream.jsonrpc, authorization, partner);
  /** reconcile-invoice's upstream, applied and synced to the node. */
  const pointAt = (upstreamSpec: Json) => pointAtUpstream(stack, upstreamSpec);
  /** Streams a message that the upstream holds, cancels the node task, and waits until the upstream got the cancel. */
  const heldThenCanceled = async (client: Client, text: string) => {
    const before = upstream.canceled.length;
    const s = streamOf(client, text);
    await until(
      'the upstream holds the task',
      () => s.taskId() !== undefined && JSON.stringify(s.events).includes('held by the upstream'),
      30_000,
    );
    const canceled = Task.toJSON(await client.cancelTask({ id: s.taskId()! } as never)) as Json;
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    await until('the upstream got CancelTask', () => upstream.canceled.length === before + 1, 30_000);
    return s;
  };

  beforeAll(async () => {
    upstream = await sdkUpstream();
    // Not about approvals: testConfig's empty APPROVAL_DEFAULT_KINDS reads as unset on main (all kinds gated), so name one kind this suite never changes.
    stack = await startSecurityStack('gateway_v03', { APPROVAL_DEFAULT_KINDS: 'undeprecate' });
    await allowLoopbackUpstreams(stack, { versions: ['1.0', '0.3'] });
    partner = mintA2AToken(stack.cpConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run', 'ledger.write'], 600, AGENT);
    jwks = await jwksOf(stack);
  });
  afterAll(async () => {
    await stack?.close();
    await upstream?.close();
  });

  describe.each(['jsonrpc', 'http+json'] as const)('a 0.3-only upstream over %s behind the 1.0 front', (binding) => {
    const rpc = binding === 'jsonrpc';
    // A caller's SendMessage reaches the upstream as its one-answer send (ADR 0350).
    const sendPath = rpc ? '/a2a/jsonrpc/' : '/a2a/rest/v1/message:send';
    const sends = () => upstream.seen.filter((s) => (rpc ? s.method === 'message/send' : s.path === sendPath));

    beforeAll(() => pointAt({ url: rpc ? upstream.jsonrpc : upstream.rest, binding, version: '0.3' }));

    it('SendMessage completes with the upstream artifact; the upstream got a 0.3 request with an exchanged token', async () => {
      const before = upstream.seen.length;
      const client = await client10(partner);
      const wire = Task.toJSON(
        (await client.sendMessage({ message: message('reconcile INV-20931 against the PO') } as never)) as Task,
      ) as Json;
      expect(wire.status.state).toBe('TASK_STATE_COMPLETED');
      expect(wire.artifacts).toHaveLength(1);
      expect(wire.artifacts[0].parts[0].data).toEqual(UPSTREAM_RESULT);
      const calls = upstream.seen.slice(before);
      expect(calls).toHaveLength(1);
      const [call] = calls;
      expect(call.version).toBe('0.3');
      if (rpc) {
        expect(call.method).toBe('message/send');
        expect((call.body as Json).params.message).toMatchObject({ kind: 'message', role: 'user', parts: [{ kind: 'text' }] });
      } else {
        expect(call.path).toBe(sendPath);
        expect((call.body as Json).message).toMatchObject({ role: 'ROLE_USER', content: [{ text: 'reconcile INV-20931 against the PO' }] });
      }
      expect(await claimsOf(call.authorization)).toMatchObject({ token_use: 'upstream', sub: 'orchestrator@acme-partner' });
      // The node kept its own task id, not the upstream's.
      expect(upstream.canceled).not.toContain(wire.id);
    });

    it('a stream through the 1.0 SDK client carries the upstream progress and artifact, translated to 1.0', async () => {
      const s = streamOf(await client10(partner), 'reconcile INV-20932 please');
      await s.done;
      const kinds = s.events.map((e) => e.payload.$case as string);
      expect(kinds[0]).toBe('task');
      expect(JSON.stringify(s.events)).toContain('matching lines');
      const artifacts = s.events.filter((e) => e.payload.$case === 'artifactUpdate');
      expect(artifacts).toHaveLength(1);
      expect(artifacts[0].payload.value.artifact.parts[0].content).toEqual({ $case: 'data', value: UPSTREAM_RESULT });
      const last = s.events[s.events.length - 1].payload;
      expect(last.value.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    it('an input-required continuation goes to the same 0.3 upstream task', async () => {
      const client = await client10(partner);
      const asked = upstream.asked.length;
      const first = Task.toJSON(
        (await client.sendMessage({ message: message('reconcile INV-5, ask me which PO') } as never)) as Task,
      ) as Json;
      expect(first.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(JSON.stringify(first.status)).toContain('which purchase order?');
      expect(upstream.asked).toHaveLength(asked + 1);
      const reply = Message.fromJSON({
        messageId: `m-${randomBytes(4).toString('hex')}`,
        role: 'ROLE_USER',
        taskId: first.id,
        contextId: first.contextId,
        parts: [{ text: 'PO-77' }],
      });
      const second = Task.toJSON((await client.sendMessage({ message: reply } as never)) as Task) as Json;
      expect(second.id).toBe(first.id);
      expect(second.status.state).toBe('TASK_STATE_COMPLETED');
      expect(upstream.continued.at(-1)).toBe(upstream.asked.at(-1));
      // The continuation named the upstream's task in 0.3 shape.
      const last = sends().at(-1)!.body as Json;
      expect((rpc ? last.params.message : last.message).taskId).toBe(upstream.asked.at(-1));
    });

    it('CancelTask reaches the 0.3 upstream task (tasks/cancel, or POST /v1/tasks/{id}:cancel)', async () => {
      const client = await client10(partner);
      const s = await heldThenCanceled(client, 'reconcile INV-3 and hold');
      const upstreamTask = upstream.canceled.at(-1)!;
      const cancel = upstream.seen.find((x) =>
        rpc ? x.method === 'tasks/cancel' : x.path === `/a2a/rest/v1/tasks/${upstreamTask}:cancel`,
      );
      expect(cancel).toBeDefined();
      expect(cancel!.version).toBe('0.3');
      expect((await claimsOf(cancel!.authorization)).sub).toBe('orchestrator@acme-partner');
      await s.done.catch(() => undefined);
    });
  });

  describe.each(['jsonrpc', 'http+json'] as const)('a 0.3 caller over %s in front of a 1.0 upstream', (callerBinding) => {
    beforeAll(() => pointAt({ url: upstream.jsonrpc, binding: 'jsonrpc', version: '1.0' }));

    it('streams the upstream artifact to the 0.3 caller in 0.3 shapes; the upstream spoke 1.0', async () => {
      const before = upstream.seen.length;
      const s = streamOf(await client03(partner, callerBinding), 'reconcile INV-7 for a 0.3 caller');
      await s.done;
      const artifacts = s.events.filter((e) => e.payload.$case === 'artifactUpdate');
      expect(artifacts).toHaveLength(1);
      expect(artifacts[0].payload.value.artifact.parts[0].content).toEqual({ $case: 'data', value: UPSTREAM_RESULT });
      expect(s.events.at(-1)!.payload.value.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const calls = upstream.seen.slice(before);
      expect(calls.map((c) => c.method)).toEqual(['SendStreamingMessage']);
      expect(calls[0].version).toBe('1.0');
      await claimsOf(calls[0].authorization);
    });

    it('a 0.3 CancelTask reaches the 1.0 upstream task', async () => {
      const client = await client03(partner, callerBinding);
      const s = await heldThenCanceled(client, 'reconcile INV-8 and hold');
      expect(upstream.seen.filter((x) => x.method === 'CancelTask').length).toBeGreaterThan(0);
      await s.done.catch(() => undefined);
    });
  });
});
