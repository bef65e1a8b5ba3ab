/**
 * Issue 28: a deliberately misbehaving upstream behind the whole product (control plane, token
 * exchange, agent node). Each message picks a misbehaviour: slow past the idle timeout,
 * disconnecting mid-stream, an oversized event, invalid JSON, events for another task, events out
 * of order, headers that try to smuggle (Set-Cookie, hop-by-hop, a huge header), a malformed 0.3
 * event. Each time the caller's task ends FAILED with a clear reason, the answer is never a 5xx,
 * nothing of the upstream's headers or bodies reaches the caller, and the upstream received only
 * the exchanged token (verified against the JWKS), never the caller's.
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

/** A raw 1.0 JSON-RPC upstream whose misbehaviour is chosen by the message text. */
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
      const send = (result: unknown) => res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: body.id, result })}\n\n`);
      const task = (state = 'TASK_STATE_WORKING') => send({ task: { id: 'up-1', contextId: 'up-c', status: { state } } });
      const head = (extra: http.OutgoingHttpHeaders = {}) =>
        res.writeHead(200, { 'content-type': 'text/event-stream', 'set-cookie': `session=${SECRET}`, 'x-internal': SECRET, ...extra });
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
    await pointAtUpstream(stack, { url: upstream.url, binding: 'jsonrpc', version: '1.0', timeouts: { idle: 1500 } });
    partner = mintA2AToken(stack.cpConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run'], 600, AGENT);
    jwks = await jwksOf(stack);
  });
  afterAll(async () => {
    await stack?.close();
    await upstream?.close();
  });

  const call = (text: string) =>
    a2aRpc(
      stack.nodeUrl,
      'SendMessage',
      {
        message: { messageId: `m-${randomBytes(4).toString('hex')}`, role: 'ROLE_USER', parts: [{ text: `reconcile INV-1: ${text}` }] },
        metadata: { skillId: 'reconcile-invoice' },
      },
      bearer(partner),
    );
  const noLeak = (r: Awaited<ReturnType<typeof call>>) => {
    expect(r.status).toBeLessThan(500);
    expect(JSON.stringify(r.body)).not.toContain(SECRET);
    expect(r.headers.get('set-cookie')).toBeNull();
    expect(r.headers.get('x-internal')).toBeNull();
    expect(r.headers.get('x-huge')).toBeNull();
    expect(r.headers.get('proxy-authenticate')).toBeNull();
    for (const [, value] of r.headers) expect(value).not.toContain(SECRET);
  };

  it.each([
    ['slow: silent past the idle timeout', 'slow', 'silent for more than 1500 ms'],
    ['disconnect mid-stream', 'disconnect', 'connection was lost'],
    ['an oversized event', 'oversized', 'larger than'],
    ['invalid JSON', 'invalid json', 'not JSON'],
    ['events for another task', 'another task', 'another task'],
    ['events out of order (after the final state)', 'out of order', 'after the task ended'],
    ['a huge response header', 'huge header', 'could not be reached'],
    ['an error with internal details in its body', 'error body', 'HTTP 500'],
  ])('%s ends the task FAILED with a clear reason, leaking nothing', async (_name, text, reason) => {
    const before = upstream.got.length;
    const r = await call(text);
    noLeak(r);
    const task = r.body.result?.task as Json;
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(JSON.stringify(task.status)).toContain('the upstream agent did not complete this task');
    expect(JSON.stringify(task.status)).toContain(reason);
    expect(upstream.got.length).toBe(before + 1);
  });

  it('hop-by-hop and cookie headers of a good answer stay at the node; the answer gets through', async () => {
    const r = await call('hop by hop');
    noLeak(r);
    expect(r.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(r.body.result.task.artifacts[0].parts).toEqual([{ text: 'fine' }]);
  });

  it('every request the upstream received carried the exchanged token, never the caller or node token', async () => {
    expect(upstream.got.length).toBeGreaterThanOrEqual(9);
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
