/**
 * Issue 27, "every A2A route is traced": every operation of every binding (JSON-RPC at 1.0 and at
 * 0.3, HTTP+JSON at 1.0 and the 0.3 `/v1` paths), refused or answered, runs in a SERVER span that
 * continues the caller's trace and names the operation (`a2a.method`, the 1.0 name) and the binding.
 * The node serves 0.3 beside 1.0 with push on, so every route reaches its operation.
 */
import { randomBytes } from 'node:crypto';
import { SpanKind } from '@opentelemetry/api';
import { mintA2AToken } from '@cp/auth';
import { recordSpans, type RecordedSpans } from '@cp/common/testing';
import { bearer, startSecurityStack, type Json, type SecurityStack } from '../security/support/stack';
import { until } from '../support/until';

interface RouteCall {
  /** What the case is called in the test's name. */
  name: string;
  binding: 'jsonrpc' | 'rest';
  /** The 1.0 operation name the span must carry. */
  method: string;
  request: (traceparent: string) => Promise<Response>;
}

describe('every A2A route of every binding runs in a SERVER span naming its operation (issue 27)', () => {
  let stack: SecurityStack;
  let spans: RecordedSpans;
  let token: string;
  let taskId: string;

  beforeAll(async () => {
    spans = recordSpans('e2e-routes');
    stack = await startSecurityStack(
      'traced',
      {},
      { protocol: { versions: ['1.0', '0.3'], pushNotifications: true, webhookAllow: ['127.0.0.1'] } },
    );
    token = mintA2AToken(stack.cpConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run']);
    // A task waiting for input: every task route has something to act on.
    const res = await fetch(`${stack.nodeUrl}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0', ...bearer(token) },
      body: JSON.stringify({ message: { messageId: 'm-wait', role: 'ROLE_USER', parts: [{ text: 'what is the status of my invoice?' }] } }),
    });
    taskId = ((await res.json()) as Json).task.id as string;
  });
  afterAll(async () => {
    await stack?.close();
    await spans?.stop();
  });

  const message = (id: string) => ({
    messageId: `m-${id}-${randomBytes(3).toString('hex')}`,
    role: 'ROLE_USER',
    parts: [{ text: 'status of invoice INV-20931' }],
  });
  const v03Message = (id: string) => ({
    messageId: `m-${id}-${randomBytes(3).toString('hex')}`,
    role: 'user',
    kind: 'message',
    parts: [{ kind: 'text', text: 'status of invoice INV-20931' }],
  });
  const push = { url: 'http://127.0.0.1:9/hook', token: 'push-token-123' };

  const rpc = (version: '1.0' | '0.3', method: string, params: () => unknown) => (traceparent: string) =>
    fetch(`${stack.nodeUrl}/a2a/jsonrpc`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        traceparent,
        ...(version === '1.0' ? { 'a2a-version': '1.0' } : {}),
        ...bearer(token),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: params() }),
    });
  const http = (version: '1.0' | '0.3', verb: string, path: () => string, body?: () => unknown) => (traceparent: string) =>
    fetch(`${stack.nodeUrl}/a2a/rest${version === '0.3' ? '/v1' : ''}${path()}`, {
      method: verb,
      headers: {
        traceparent,
        'a2a-version': version,
        ...(body ? { 'content-type': version === '1.0' ? 'application/a2a+json' : 'application/json' } : {}),
        ...bearer(token),
      },
      ...(body ? { body: JSON.stringify(body()) } : {}),
    });

  const jsonRpc10: RouteCall[] = [
    ['SendMessage', () => ({ message: message('s') })],
    ['SendStreamingMessage', () => ({ message: message('ss') })],
    ['GetTask', () => ({ id: taskId })],
    ['ListTasks', () => ({})],
    ['SubscribeToTask', () => ({ id: taskId })],
    ['CreateTaskPushNotificationConfig', () => ({ taskId, ...push })],
    ['GetTaskPushNotificationConfig', () => ({ taskId, id: 'nope' })],
    ['ListTaskPushNotificationConfigs', () => ({ taskId })],
    ['DeleteTaskPushNotificationConfig', () => ({ taskId, id: 'nope' })],
    ['GetExtendedAgentCard', () => ({})],
    ['CancelTask', () => ({ id: 'no-such-task' })],
  ].map(([method, params]) => ({
    name: `JSON-RPC 1.0 ${method as string}`,
    binding: 'jsonrpc',
    method: method as string,
    request: rpc('1.0', method as string, params as () => unknown),
  }));
  const jsonRpc03: RouteCall[] = [
    ['message/send', 'SendMessage', () => ({ message: v03Message('s') })],
    ['message/stream', 'SendStreamingMessage', () => ({ message: v03Message('ss') })],
    ['tasks/get', 'GetTask', () => ({ id: taskId })],
    ['tasks/resubscribe', 'SubscribeToTask', () => ({ id: taskId })],
    ['tasks/pushNotificationConfig/set', 'CreateTaskPushNotificationConfig', () => ({ taskId, pushNotificationConfig: push })],
    ['tasks/pushNotificationConfig/get', 'GetTaskPushNotificationConfig', () => ({ id: taskId, pushNotificationConfigId: 'nope' })],
    ['tasks/pushNotificationConfig/list', 'ListTaskPushNotificationConfigs', () => ({ id: taskId })],
    ['tasks/pushNotificationConfig/delete', 'DeleteTaskPushNotificationConfig', () => ({ id: taskId, pushNotificationConfigId: 'nope' })],
    ['agent/getAuthenticatedExtendedCard', 'GetExtendedAgentCard', () => undefined],
    ['tasks/cancel', 'CancelTask', () => ({ id: 'no-such-task' })],
  ].map(([name, method, params]) => ({
    name: `JSON-RPC 0.3 ${name as string}`,
    binding: 'jsonrpc',
    method: method as string,
    request: rpc('0.3', name as string, params as () => unknown),
  }));
  const rest = (version: '1.0' | '0.3'): RouteCall[] => {
    const card = version === '1.0' ? '/extendedAgentCard' : '/card';
    const msg = version === '1.0' ? message : v03Message;
    const calls: [string, string, string, () => string, (() => unknown)?][] = [
      ['SendMessage', 'POST', 'message:send', () => '/message:send', () => ({ message: msg('s') })],
      ['SendStreamingMessage', 'POST', 'message:stream', () => '/message:stream', () => ({ message: msg('ss') })],
      ['GetTask', 'GET', 'tasks/{id}', () => `/tasks/${taskId}`],
      ['SubscribeToTask', 'GET', 'tasks/{id}:subscribe', () => `/tasks/${taskId}:subscribe`],
      ['SubscribeToTask', 'POST', 'tasks/{id}:subscribe', () => `/tasks/${taskId}:subscribe`],
      [
        'CreateTaskPushNotificationConfig',
        'POST',
        'tasks/{id}/pushNotificationConfigs',
        () => `/tasks/${taskId}/pushNotificationConfigs`,
        () => (version === '1.0' ? push : { pushNotificationConfig: push }),
      ],
      ['ListTaskPushNotificationConfigs', 'GET', 'tasks/{id}/pushNotificationConfigs', () => `/tasks/${taskId}/pushNotificationConfigs`],
      [
        'GetTaskPushNotificationConfig',
        'GET',
        'tasks/{id}/pushNotificationConfigs/{c}',
        () => `/tasks/${taskId}/pushNotificationConfigs/nope`,
      ],
      [
        'DeleteTaskPushNotificationConfig',
        'DELETE',
        'tasks/{id}/pushNotificationConfigs/{c}',
        () => `/tasks/${taskId}/pushNotificationConfigs/nope`,
      ],
      ['GetExtendedAgentCard', 'GET', card.slice(1), () => card],
      ['CancelTask', 'POST', 'tasks/{id}:cancel', () => '/tasks/no-such-task:cancel'],
    ];
    if (version === '1.0') calls.push(['ListTasks', 'GET', 'tasks', () => '/tasks']);
    return calls.map(([method, verb, shown, path, body]) => ({
      name: `HTTP+JSON ${version} ${verb} ${version === '0.3' ? 'v1/' : ''}${shown}`,
      binding: 'rest',
      method,
      request: http(version, verb, path, body),
    }));
  };

  const routes = [...jsonRpc10, ...jsonRpc03, ...rest('1.0'), ...rest('0.3')];

  it.each(routes.map((r) => [r.name, r] as const))('%s', async (_name, route) => {
    const traceId = randomBytes(16).toString('hex');
    const res = await route.request(`00-${traceId}-${randomBytes(8).toString('hex')}-01`);
    expect(res.status).toBeLessThan(500);
    // A stream's span ends with the stream: the client leaves once the answer has begun.
    if (res.headers.get('content-type')?.startsWith('text/event-stream')) await res.body!.cancel();
    else await res.text();
    const server = await until(
      `a SERVER span for ${route.name}`,
      () => spans.trace(traceId).find((s) => s.kind === SpanKind.SERVER && s.name.startsWith(`a2a.${route.binding}`)),
      15_000,
    );
    expect(server.attributes).toMatchObject({ 'a2a.binding': route.binding, 'a2a.method': route.method });
    expect(server.attributes['a2a.outcome']).toBeDefined();
    // The route span continues the caller's trace: its parent is the caller's span.
    expect(server.parentSpanContext?.traceId).toBe(traceId);
  });
});
