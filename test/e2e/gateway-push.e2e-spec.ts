/**
 * Issue 28, must have 4: push notifications to callers of a capability served by an upstream are
 * sent by the node, from the events it saw. The caller's webhook URL, token and credentials are
 * the node's business: they never reach the upstream (which could otherwise call the webhook past
 * the node's SSRF rules and allow list), and the upstream is never asked to hold a push config.
 * The upstream is the official `@a2a-js/sdk` server (A2A 1.0, JSON-RPC) on 127.0.0.1; the webhook
 * receiver is a real HTTP server on 127.0.0.1, which a platform admin allowed.
 */
import { randomBytes } from 'node:crypto';
import { mintA2AToken } from '@cp/auth';
import { sdkClient10 } from '../support/a2a-sdk-client';
import { until } from '../support/until';
import { receiver, type Receiver } from '../security/support/push';
import { a2aRpc, AGENT, bearer, startSecurityStack, type Json, type SecurityStack } from '../security/support/stack';
import { allowLoopbackUpstreams, pointAtUpstream, streamOf, UPSTREAM_CAPABILITY } from './gateway-support/gateway';
import { sdkUpstream, UPSTREAM_RESULT, type SdkUpstream } from './gateway-support/sdk-upstream';

jest.setTimeout(180_000);

describe('push notifications through a gateway node (issue 28)', () => {
  let stack: SecurityStack;
  let upstream: SdkUpstream;
  let hook: Receiver;
  let partner: string;

  /** What the webhook got on `path`, bodies parsed. */
  const at = (path: string) => hook.got.filter((g) => g.path === path).map((g) => ({ ...g, json: JSON.parse(g.body) as Json }));
  const config = (path: string) => ({
    url: `${hook.url}${path}`,
    token: `tok-${path.slice(1)}`,
    authentication: { scheme: 'Bearer', credentials: `cred-${path.slice(1)}` },
  });
  const message = (text: string) => ({
    messageId: `m-${randomBytes(4).toString('hex')}`,
    role: 'ROLE_USER',
    parts: [{ text }],
    metadata: { skillId: UPSTREAM_CAPABILITY },
  });
  /** Nothing of the caller's push config reached the upstream, in any request it got. */
  const upstreamNeverHeardOf = (path: string) => {
    const everything = JSON.stringify(upstream.seen);
    expect(everything).not.toContain(hook.url);
    expect(everything).not.toContain(`tok-${path.slice(1)}`);
    expect(everything).not.toContain(`cred-${path.slice(1)}`);
    expect(everything).not.toMatch(/pushNotification/i);
    expect(upstream.seen.map((s) => s.method).filter((m) => /Push/i.test(m ?? ''))).toEqual([]);
  };
  const finalState = (path: string) => at(path).at(-1)?.json.statusUpdate?.status.state as string | undefined;

  beforeAll(async () => {
    upstream = await sdkUpstream();
    hook = await receiver('127.0.0.1');
    // Not about approvals: name one kind the setup never changes, so the changes below land at once.
    stack = await startSecurityStack('gateway_push', { APPROVAL_DEFAULT_KINDS: 'undeprecate' });
    await allowLoopbackUpstreams(stack, { pushNotifications: true, webhookAllow: ['127.0.0.1'] });
    await pointAtUpstream(stack, { url: upstream.jsonrpc, binding: 'jsonrpc', version: '1.0' });
    partner = mintA2AToken(stack.cpConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run', 'ledger.write'], 600, AGENT);
  });
  afterAll(async () => {
    await stack?.close();
    await upstream?.close();
    await hook?.close();
  });

  it('SendMessage: the webhook gets every update the node saw, in order, ending completed with the upstream artifact', async () => {
    const r = await a2aRpc(
      stack.nodeUrl,
      'SendMessage',
      { message: message('reconcile INV-61 against the PO'), configuration: { taskPushNotificationConfig: config('/send') } },
      bearer(partner),
    );
    const task = r.body.result?.task as Json;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    await until('the completed update at the webhook', () => finalState('/send') === 'TASK_STATE_COMPLETED', 15_000);
    const got = at('/send');
    // The task as it stood when the config was stored first, then what the node saw, in order.
    expect(got[0].json.task.id).toBe(task.id);
    const updates = got.slice(1).map((g) => Object.keys(g.json)[0]);
    expect(updates).toContain('artifactUpdate');
    expect(updates.indexOf('artifactUpdate')).toBeLessThan(updates.lastIndexOf('statusUpdate'));
    for (const g of got.slice(1)) expect(g.json.statusUpdate?.taskId ?? g.json.artifactUpdate?.taskId).toBe(task.id);
    const artifact = got.find((g) => g.json.artifactUpdate)!.json.artifactUpdate.artifact as Json;
    expect(JSON.stringify(artifact.parts)).toContain(JSON.stringify(UPSTREAM_RESULT).slice(1, -1));
    for (const g of got) {
      expect(g.headers.authorization).toBe('Bearer cred-send');
      expect(g.headers['x-a2a-notification-token']).toBe('tok-send');
      // The node's task, never the upstream's: the webhook body names no upstream task id.
      expect(JSON.stringify(g.json)).not.toContain(upstream.jsonrpc);
    }
    upstreamNeverHeardOf('/send');
  });

  it('SendStreamingMessage: the stream and the webhook both end completed, from the same events', async () => {
    const res = await fetch(`${stack.nodeUrl}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', accept: 'text/event-stream', ...bearer(partner) },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendStreamingMessage',
        params: { message: message('reconcile INV-62 please'), configuration: { taskPushNotificationConfig: config('/stream') } },
      }),
    });
    expect(res.status).toBe(200);
    const events = (await res.text())
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => (JSON.parse(l.slice(6)) as Json).result as Json);
    const taskId = events[0].task.id as string;
    expect(events.at(-1)!.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    await until('the completed update at the webhook', () => finalState('/stream') === 'TASK_STATE_COMPLETED', 15_000);
    const pushed = at('/stream').slice(1);
    // Every update the stream carried after its first event reached the webhook too, in the same order.
    const kinds = (xs: Json[]) =>
      xs.map((e) => `${Object.keys(e)[0]}:${e.statusUpdate?.status.state ?? e.artifactUpdate?.artifact.artifactId}`);
    expect(kinds(pushed.map((g) => g.json))).toEqual(kinds(events.slice(1)));
    for (const g of pushed) expect(g.json.statusUpdate?.taskId ?? g.json.artifactUpdate?.taskId).toBe(taskId);
    upstreamNeverHeardOf('/stream');
  });

  it('a config added to a running upstream task hears its cancel; the upstream hears the cancel, not the config', async () => {
    const client = await sdkClient10(stack.nodeUrl, partner);
    const s = streamOf(client, 'reconcile INV-63 and hold');
    await until(
      'the upstream holds the task',
      () => s.taskId() !== undefined && JSON.stringify(s.events).includes('held by the upstream'),
      30_000,
    );
    const taskId = s.taskId()!;
    const created = await a2aRpc(
      stack.nodeUrl,
      'CreateTaskPushNotificationConfig',
      { taskId, id: 'cfg-hold', ...config('/hold') },
      bearer(partner),
    );
    expect(created.body.error).toBeUndefined();
    const canceledBefore = upstream.canceled.length;
    const r = await a2aRpc(stack.nodeUrl, 'CancelTask', { id: taskId }, bearer(partner));
    expect(r.body.result?.status.state).toBe('TASK_STATE_CANCELED');
    await until('the canceled update at the webhook', () => finalState('/hold') === 'TASK_STATE_CANCELED', 15_000);
    await until('the upstream got CancelTask', () => upstream.canceled.length === canceledBefore + 1, 30_000);
    await s.done.catch(() => undefined);
    expect(at('/hold').every((g) => g.headers['x-a2a-notification-token'] === 'tok-hold')).toBe(true);
    upstreamNeverHeardOf('/hold');
  });

  it('a webhook outside the allow list is refused before anything reaches the upstream', async () => {
    const before = upstream.seen.length;
    const r = await a2aRpc(
      stack.nodeUrl,
      'SendMessage',
      {
        message: message('reconcile INV-64'),
        configuration: { taskPushNotificationConfig: { url: 'http://169.254.169.254/latest/meta-data', token: 'tok-x' } },
      },
      bearer(partner),
    );
    expect(r.status).toBeLessThan(500);
    expect(r.body.error?.message).toMatch(/taskPushNotificationConfig/);
    expect(r.body.result).toBeUndefined();
    expect(upstream.seen.length).toBe(before);
  });
});
