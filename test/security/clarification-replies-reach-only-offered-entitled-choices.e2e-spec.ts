/**
 * Issue 31 §1 (ADR 0260): a reply on an input-required task may pick one of the router's offered
 * choices. A hostile reply must not reach, nor reveal, a capability the caller cannot see (here
 * `reconcile-invoice`, extended and scoped, asked for by a caller without the scope), and 100 KB
 * replies, control characters and out-of-range numbers pick nothing, never a 5xx: the reply is
 * routed afresh over the caller's own entitled set, on the same task. A real node A2A server on a
 * free port with the Redis task store; three public capabilities make "invoice" ambiguous.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { a2aVerifier, mintA2AToken } from '@cp/auth';
import { loadConfig } from '@cp/common';
import { buildNodeBundle, financeAgentExample, type CapabilityManifest } from '@cp/capabilities';
import { ActiveBundle } from '../../libs/node-sdk/src/active-bundle';
import { ToolGateway } from '../../libs/node-sdk/src/tools/tool-gateway';
import { registerA2AServer } from '../../libs/node-sdk/src/a2a/a2a-server';
import { HandlerRegistry } from '../../libs/node-sdk/src/a2a/handler-registry';
import { RedisTaskStore } from '../../libs/node-sdk/src/a2a/redis-task-store';
import { RedisTaskEvents } from '../../libs/node-sdk/src/a2a/task-events';
import type { Json } from './support/stack';

const config = loadConfig({ NODE_ENV: 'test' });
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const PREFIX = `test:sec-clarreply:${process.pid}:${Date.now()}:`;

const HIDDEN = [/reconcile-invoice/i, /Reconcile an invoice/i, /purchase order/i];

describe('clarification replies reach only offered, entitled choices (issue 31)', () => {
  let app: FastifyInstance;
  let url = '';
  const connections: Redis[] = [];
  const connect = () => {
    const r = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: 2 });
    connections.push(r);
    return r;
  };
  // Authenticated, without recon.run: reconcile-invoice is not in its router index.
  const caller = mintA2AToken(config, 'q@acme', 'acme-partner', []);

  beforeAll(async () => {
    const f = financeAgentExample();
    const lookup = f.manifests[0];
    const publicOne = (id: string, name: string, description: string): CapabilityManifest => ({
      ...lookup,
      id,
      handler: `${id}.v1`,
      skill: { ...lookup.skill, name, description, examples: [] },
    });
    const manifests = [
      ...f.manifests,
      publicOne('vendor-payment', 'Pay a vendor', 'Schedules a payment to a supplier for an approved invoice.'),
      publicOne('invoice-dispute', 'Dispute an invoice', 'Opens a dispute with a supplier about an invoice amount.'),
    ];
    const bundle = new ActiveBundle(
      buildNodeBundle({ agentId: 'finance-agent', revision: 1, agent: f.agent, manifests, previewTenants: [] }),
    );
    const done = async () => ({ state: 'completed' as const, artifacts: [{ parts: [{ data: { ok: true } }] }] });
    const handlers = new HandlerRegistry();
    for (const m of manifests) handlers.register(m.handler, done);
    app = Fastify({ bodyLimit: 1_000_000 });
    registerA2AServer(app, {
      bundle: () => bundle,
      verifier: a2aVerifier(config),
      handlers,
      tools: new ToolGateway(
        { exchange: async () => ({ accessToken: 't', expiresAt: Date.now() + 60_000, scopes: [] }) },
        new Map(),
        silent,
      ),
      tasks: new RedisTaskStore(connect(), PREFIX),
      events: new RedisTaskEvents(connect(), connect(), PREFIX),
      log: silent,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await app?.close();
    const keys = await connections[0].keys(`${PREFIX}*`);
    if (keys.length > 0) await connections[0].del(...keys);
    for (const c of connections) c.disconnect();
  });

  const send = async (text: string, taskId?: string): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${caller}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }], ...(taskId ? { taskId } : {}) } },
      }),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const asked = async (): Promise<Json> => {
    const r = await send('invoice please');
    expect(r.status).toBe(200);
    const task = r.body.result.task as Json;
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    return task;
  };

  it('asks without naming the hidden capability, and offers at most three choices', async () => {
    const task = await asked();
    const question = task.status.message.parts[0].text as string;
    expect(question).toMatch(/^(Which of these did you mean\?|Did you mean this\?)\n1\. /);
    expect((task.metadata.routing.candidates as Json[]).length).toBeLessThanOrEqual(3);
    for (const hidden of HIDDEN) expect(JSON.stringify(task)).not.toMatch(hidden);
  });

  it.each([
    ['the hidden capability by id', 'reconcile-invoice'],
    ['the hidden capability by name', 'Reconcile an invoice'],
    ['the hidden capability by its words', 'match it to the purchase order and list the line differences'],
    ['a number out of range', '4'],
    ['a huge number', '9'.repeat(400)],
    ['control characters', '\u0000\u0007\u001b[2J\u202e2'],
    ['100 KB of text', `reconcile-invoice ${'x '.repeat(50_000)}`],
  ])('a reply naming %s neither reaches nor reveals anything hidden, on the same task', async (_label, reply) => {
    const task = await asked();
    const r = await send(reply, task.id as string);
    expect(r.status).toBeLessThan(500);
    const after = r.body.result?.task as Json | undefined;
    // Answered on the same task (routed afresh over the entitled set, or asked again), never refused.
    expect(after?.id).toBe(task.id);
    expect(after?.metadata?.routing?.capabilityId).not.toBe('reconcile-invoice');
    for (const hidden of HIDDEN) {
      // The reply itself may echo what the caller typed into history; nothing else may.
      const shown = JSON.stringify({ status: after?.status, metadata: after?.metadata, error: r.body.error });
      expect(shown).not.toMatch(hidden);
    }
  });

  it('a reply naming an offered choice by number routes to it on the same task', async () => {
    const task = await asked();
    const first = (task.metadata.routing.candidates as Json[])[0].id as string;
    const r = await send('1', task.id as string);
    expect(r.body.result.task.id).toBe(task.id);
    expect(r.body.result.task.metadata.routing).toMatchObject({ capabilityId: first, layer: 'clarified' });
  });
});
