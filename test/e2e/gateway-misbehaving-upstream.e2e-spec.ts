/**
 * Issue 28: a deliberately misbehaving upstream behind the whole product (control plane, token
 * exchange, agent node). Each message picks a misbehaviour: slow past the idle or request timeout,
 * disconnecting mid-answer, an oversized event or answer, invalid JSON, events for another task (or
 * an answer to another request), events out of order, headers that try to smuggle (Set-Cookie,
 * hop-by-hop, a huge header). Each is tried on both of the node's ways to its upstream: a stream,
 * when its caller streams, and one answer, when its caller waits for one (ADR 0350). Each time the
 * caller's task ends FAILED with a clear reason, the answer is never a 5xx, nothing of the
 * upstream's headers or bodies reaches the caller, and the upstream received only the exchanged
 * token (verified against the JWKS), never the caller's.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { createLocalJWKSet } from 'jose';
import { mintA2AToken } from '@cp/auth';
import { a2aRpc, AGENT, bearer, startSecurityStack, type Json, type SecurityStack } from '../security/support/stack';
import { allowLoopbackUpstreams, jwksOf, pointAtUpstream, upstreamClaims } from './gateway-support/gateway';

jest.setTimeout(180_000);

const SECRET = 'hunter2-upstream-internal';

interface Got {
  authorization?: string;
  body: Json;
}

/**
 * A raw 1.0 JSON-RPC upstream whose misbehaviour is chosen by the message text: in an event stream
 * when the node streams (its caller does), in its one answer when the node sends (its caller waits
 * for one answer, ADR 0350).
 */
async function hostileUpstream(): Promise<{ url: string; got: Got[]; close(): Promise<void> }> {
  const got: Got[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      // The node's card probes (GET) are not A2A calls: answered 404, not recorded.
      if (req.method !== 'POST') return void res.writeHead(404).end();
      const body = JSON.parse(raw) as Json;
      got.push({ authorization: req.headers.authorization, body });
      const text = JSON.stringify(body.params?.message?.parts ?? []);
      const leaky = { 'set-cookie': `session=${SECRET}`, 'x-internal': SECRET };
      if (body.method === 'SendMessage') return answerBadly(text, body, res, leaky);
      const send = (result: unknown) => res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: body.id, result })}\n\n`);
      const task = (state = 'TASK_STATE_WORKING') => send({ task: { id: 'up-1', contextId: 'up-c', status: { state } } });
      const head = (extra: http.OutgoingHttpHeaders = {}) =>
        res.writeHead(200, { 'content-type': 'text/event-stream', ...leaky, ...extra });
      if (text.includes('slow')) {
        head();
        task(); // then silence past the idle timeout
      } else if (text.includes('disconnect')) {
        head();
        task();
        setTimeout(() => res.socket?.destroy(), 50);
      } else if (text.includes('oversized')) {
        head();
        task();
        send({
          statusUpdate: {
            taskId: 'up-1',
            contextId: 'up-c',
            status: { state: 'TASK_STATE_WORKING', message: { parts: [{ text: SECRET.repeat(60_000) }] } },
          },
        });
        res.end();
      } else if (text.includes('invalid json')) {
        head();
        res.end(`data: {"jsonrpc":"2.0", ${SECRET}\n\n`);
      } else if (text.includes('another task')) {
        head();
        task();
        send({ statusUpdate: { taskId: 'someone-elses-task', contextId: 'up-c', status: { state: 'TASK_STATE_COMPLETED' } } });
        res.end();
      } else if (text.includes('out of order')) {
        head();
        task('TASK_STATE_COMPLETED');
        send({ artifactUpdate: { taskId: 'up-1', contextId: 'up-c', artifact: { artifactId: 'late', parts: [{ text: SECRET }] } } });
        res.end();
      } else if (text.includes('huge header')) {
        head({ 'x-huge': 'h'.repeat(64 * 1024) });
        task('TASK_STATE_COMPLETED');
        res.end();
      } else if (text.includes('hop by hop')) {
        // Hop-by-hop and smuggling headers on an otherwise good answer: the answer gets through, they do not.
        head({ connection: 'x-internal, keep-alive', 'proxy-authenticate': SECRET, 'transfer-encoding': 'chunked' });
        send({
          artifactUpdate: { taskId: 'up-1', contextId: 'up-c', artifact: { artifactId: 'a', parts: [{ text: 'fine' }] }, lastChunk: true },
        });
        task('TASK_STATE_COMPLETED');
        res.end();
      } else if (text.includes('error body')) {
        res.writeHead(500, { 'content-type': 'application/json', 'set-cookie': `s=${SECRET}` });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, error: { code: -32603, message: `db at 10.0.0.5 ${SECRET}` } }));
      } else {
        head();
        task('TASK_STATE_COMPLETED');
        res.end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/a2a/jsonrpc`,
    got,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** The same misbehaviours in a SendMessage answer. */
function answerBadly(text: string, body: Json, res: http.ServerResponse, leaky: http.OutgoingHttpHeaders): void {
  const json = (extra: http.OutgoingHttpHeaders = {}) => res.writeHead(200, { 'content-type': 'application/json', ...leaky, ...extra });
  const answer = (result: unknown, id: unknown = body.id) => res.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
  const done = (extra: Json = {}) => ({ task: { id: 'up-1', contextId: 'up-c', status: { state: 'TASK_STATE_COMPLETED' }, ...extra } });
  if (text.includes('slow')) return; // no answer past the request timeout
  if (text.includes('disconnect')) {
    json({ 'content-length': '4096' });
    res.write('{"jsonrpc":"2.0",');
    setTimeout(() => res.socket?.destroy(), 50);
  } else if (text.includes('oversized')) {
    json();
    answer(done({ status: { state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: SECRET.repeat(60_000) }] } } }));
  } else if (text.includes('invalid json')) {
    json();
    res.end(`{"jsonrpc":"2.0", ${SECRET}`);
  } else if (text.includes('another task')) {
    // One answer names one task: here, the answer to another request.
    json();
    answer(done(), 'someone-elses-request');
  } else if (text.includes('huge header')) {
    json({ 'x-huge': 'h'.repeat(64 * 1024) });
    answer(done());
  } else if (text.includes('hop by hop')) {
    json({ connection: 'x-internal, keep-alive', 'proxy-authenticate': SECRET });
    answer(done({ artifacts: [{ artifactId: 'a', parts: [{ text: 'fine' }] }] }));
  } else if (text.includes('error body')) {
    res.writeHead(500, { 'content-type': 'application/json', 'set-cookie': `s=${SECRET}` });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, error: { code: -32603, message: `db at 10.0.0.5 ${SECRET}` } }));
  } else {
    json();
    answer(done());
  }
}

describe('a misbehaving upstream behind the gateway node (issue 28)', () => {
  let stack: SecurityStack;
  let upstream: Awaited<ReturnType<typeof hostileUpstream>>;
  let partner: string;
  let jwks: ReturnType<typeof createLocalJWKSet>;

  beforeAll(async () => {
    upstream = await hostileUpstream();
    // Not about approvals: testConfig's empty APPROVAL_DEFAULT_KINDS reads as unset on main (all kinds gated), so name one kind this suite never changes.
    stack = await startSecurityStack('gateway_hostile', { APPROVAL_DEFAULT_KINDS: 'undeprecate' });
    await allowLoopbackUpstreams(stack);
    await pointAtUpstream(stack, { url: upstream.url, binding: 'jsonrpc', version: '1.0', timeouts: { idle: 1500, request: 1500 } });
    partner = mintA2AToken(stack.cpConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run'], 600, AGENT);
    jwks = await jwksOf(stack);
  });
  afterAll(async () => {
    await stack?.close();
    await upstream?.close();
  });

  const params = (text: string) => ({
    message: { messageId: `m-${randomBytes(4).toString('hex')}`, role: 'ROLE_USER', parts: [{ text: `reconcile INV-1: ${text}` }] },
    metadata: { skillId: 'reconcile-invoice' },
  });
  type Answer = { status: number; headers: Headers; body: Json; text?: string };
  /** SendMessage: the node sends too, and its answer is the task. */
  const call = (text: string): Promise<Answer> => a2aRpc(stack.nodeUrl, 'SendMessage', params(text), bearer(partner));
  /** SendStreamingMessage read to its end (the node streams from its upstream), then the task as stored. */
  const streamCall = async (text: string): Promise<Answer> => {
    const res = await fetch(`${stack.nodeUrl}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...bearer(partner) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: params(text) }),
    });
    const sse = await res.text();
    const taskId = /"task":\{"id":"([^"]+)"/.exec(sse)?.[1];
    const got = await a2aRpc(stack.nodeUrl, 'GetTask', { id: taskId }, bearer(partner));
    return { status: res.status, headers: res.headers, body: { result: { task: got.body.result } }, text: sse };
  };
  const noLeak = (r: Answer) => {
    expect(r.status).toBeLessThan(500);
    expect(JSON.stringify(r.body)).not.toContain(SECRET);
    expect(r.text ?? '').not.toContain(SECRET);
    expect(r.headers.get('set-cookie')).toBeNull();
    expect(r.headers.get('x-internal')).toBeNull();
    expect(r.headers.get('x-huge')).toBeNull();
    expect(r.headers.get('proxy-authenticate')).toBeNull();
    for (const [, value] of r.headers) expect(value).not.toContain(SECRET);
  };
  const callers = { 'waits for one answer': call, streams: streamCall };

  // [case, trigger, reason when the caller streams, reason when it waits for one answer]
  const cases: [string, string, string, string][] = [
    [
      'slow: silent past the idle (stream) or request (answer) timeout',
      'slow',
      'silent for more than 1500 ms',
      'did not answer within 1500 ms',
    ],
    ['disconnect mid-answer', 'disconnect', 'connection was lost', 'connection was lost'],
    ['an oversized event or answer', 'oversized', 'larger than', 'larger than'],
    ['invalid JSON', 'invalid json', 'not JSON', 'not JSON'],
    ['events for another task, or an answer to another request', 'another task', 'another task', 'another request'],
    ['a huge response header', 'huge header', 'a head larger than 16384 bytes', 'a head larger than 16384 bytes'],
    ['an error with internal details in its body', 'error body', 'HTTP 500', 'HTTP 500'],
  ];
  it.each(
    cases.flatMap(([name, text, streamed, answered]) => [
      [name, 'streams', text, streamed] as const,
      [name, 'waits for one answer', text, answered] as const,
    ]),
  )('%s: a caller who %s gets the task FAILED with a clear reason, leaking nothing', async (_name, caller, text, reason) => {
    const before = upstream.got.length;
    const r = await callers[caller](text);
    noLeak(r);
    const task = r.body.result?.task as Json;
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(JSON.stringify(task.status)).toContain('the upstream agent did not complete this task');
    expect(JSON.stringify(task.status)).toContain(reason);
    expect(upstream.got.length).toBe(before + 1);
    expect(upstream.got.at(-1)!.body.method).toBe(caller === 'streams' ? 'SendStreamingMessage' : 'SendMessage');
  });

  it('events out of order (after the final state) end a streamed task FAILED, leaking nothing', async () => {
    const r = await streamCall('out of order');
    noLeak(r);
    expect(r.body.result.task.status.state).toBe('TASK_STATE_FAILED');
    expect(JSON.stringify(r.body.result.task.status)).toContain('after the task ended');
  });

  it.each(['streams', 'waits for one answer'] as const)(
    'hop-by-hop and cookie headers of a good answer stay at the node; the answer gets through to a caller who %s',
    async (caller) => {
      const r = await callers[caller]('hop by hop');
      noLeak(r);
      expect(r.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(r.body.result.task.artifacts[0].parts).toEqual([{ text: 'fine' }]);
    },
  );

  it('every request the upstream received carried the exchanged token, never the caller or node token', async () => {
    expect(upstream.got.length).toBeGreaterThanOrEqual(17);
    for (const g of upstream.got) {
      const payload = await upstreamClaims(stack, jwks, upstream.url, g.authorization, partner);
      expect(payload).toMatchObject({ token_use: 'upstream', sub: 'orchestrator@acme-partner', capability: 'reconcile-invoice' });
    }
  });

  it('the node still serves after all of it: a good upstream answer completes', async () => {
    const r = await call('well behaved');
    noLeak(r);
    expect(r.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });
});
