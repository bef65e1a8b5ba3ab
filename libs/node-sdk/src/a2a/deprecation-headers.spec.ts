/**
 * Issue 21: responses for a deprecated capability carry Deprecation (RFC 9745), Sunset (RFC 8594)
 * and a Link to the replacement, on both bindings, streams included; the task metadata notice
 * names the replacement and the date. Real Fastify, bundles built by the core.
 */
import type { FastifyInstance } from 'fastify';
import { mintA2AToken } from '@cp/auth';
import { buildNodeBundle, financeAgentExample, type CapabilityManifest } from '@cp/capabilities';
import { ActiveBundle } from '../active-bundle';
import { completedWith, serveTestA2A, testConfig as config } from '../testing/a2a-test-node';
import { HandlerRegistry } from './handler-registry';

const DEPRECATED_AT = '2027-01-10T12:00:00.000Z';
const SUNSET = '2027-03-01T00:00:00.000Z';
const f = financeAgentExample();
const [lookup, recon] = f.manifests;
const lookupV2: CapabilityManifest = {
  ...lookup,
  id: 'invoice-lookup-v2',
  handler: 'invoices.v2.lookup',
  skill: { ...lookup.skill, name: 'Invoice lookup v2', description: 'Finds invoices by number, faster.' },
};
// recon is replaced by a capability only acme-partner may use.
const reconV2: CapabilityManifest = {
  ...recon,
  id: 'reconcile-invoice-v2',
  handler: 'recon.v4.reconcile',
  tenants: ['acme-partner'],
  skill: { ...recon.skill, name: 'Reconcile v2', description: 'Matches invoice lines to purchase orders, again.' },
};

function bundle(sunsetAt: string | null) {
  return new ActiveBundle(
    buildNodeBundle({
      agentId: 'finance-agent',
      revision: 1,
      agent: f.agent,
      manifests: [
        { ...lookup, state: 'deprecated', replacedBy: lookupV2.id, deprecatedAt: DEPRECATED_AT, sunsetAt },
        lookupV2,
        { ...recon, state: 'deprecated', replacedBy: reconV2.id, deprecatedAt: DEPRECATED_AT },
        reconV2,
      ],
      previewTenants: [],
    }),
  );
}

const done = completedWith();
let current = bundle(SUNSET);
let app: FastifyInstance;
let url: string;

beforeAll(async () => {
  ({ app, url } = await serveTestA2A({
    bundle: () => current,
    handlers: new HandlerRegistry()
      .register('invoices.v1.lookup', done)
      .register('invoices.v2.lookup', done)
      .register('recon.v3.reconcile', done)
      .register('recon.v4.reconcile', done),
  }));
});
afterAll(async () => app.close());

const token = (tenant: string) => ({ authorization: `Bearer ${mintA2AToken(config, `p@${tenant}`, tenant, ['recon.run'])}` });
const send = (skillId: string, text = 'find invoice INV-1') => ({
  message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }], metadata: { skillId } },
});
const rpc = async (method: string, params: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return { headers: res.headers, text: await res.text() };
};
const deprecation = `@${Date.parse(DEPRECATED_AT) / 1000}`;

describe('deprecation headers on A2A responses', () => {
  it('JSON-RPC SendMessage: Deprecation, Sunset, Link to the replacement, and the task notice with replacement and date', async () => {
    const res = await rpc('SendMessage', send('invoice-lookup'));
    expect(res.headers.get('deprecation')).toBe(deprecation);
    expect(res.headers.get('sunset')).toBe('Mon, 01 Mar 2027 00:00:00 GMT');
    expect(res.headers.get('link')).toBe(
      '</.well-known/agent-card.json#skill=invoice-lookup-v2>; rel="successor-version"; title="invoice-lookup-v2"',
    );
    const task = JSON.parse(res.text).result.task;
    expect(task.metadata.deprecation).toEqual({
      message: `capability "invoice-lookup" is deprecated; use "invoice-lookup-v2" instead; it will be removed on or after ${SUNSET}`,
      replacedBy: 'invoice-lookup-v2',
      deprecatedAt: DEPRECATED_AT,
      sunsetAt: SUNSET,
    });
    // GetTask on the same task answers the same headers.
    const got = await rpc('GetTask', { id: task.id });
    expect(got.headers.get('deprecation')).toBe(deprecation);
  });

  it('HTTP+JSON message:send and GetTask carry them too', async () => {
    const res = await fetch(`${url}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0' },
      body: JSON.stringify(send('invoice-lookup')),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('deprecation')).toBe(deprecation);
    expect(res.headers.get('sunset')).toBe('Mon, 01 Mar 2027 00:00:00 GMT');
    const { task } = (await res.json()) as { task: { id: string } };
    const got = await fetch(`${url}/a2a/rest/tasks/${task.id}`, { headers: { 'a2a-version': '1.0' } });
    expect(got.headers.get('link')).toContain('invoice-lookup-v2');
  });

  it('streams (both bindings) send the headers before the first event', async () => {
    const rpcStream = await rpc('SendStreamingMessage', send('invoice-lookup'));
    expect(rpcStream.headers.get('content-type')).toBe('text/event-stream');
    expect(rpcStream.headers.get('deprecation')).toBe(deprecation);
    expect(rpcStream.headers.get('sunset')).toBe('Mon, 01 Mar 2027 00:00:00 GMT');
    const restStream = await fetch(`${url}/a2a/rest/message:stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0' },
      body: JSON.stringify(send('invoice-lookup')),
    });
    expect(restStream.headers.get('deprecation')).toBe(deprecation);
    await restStream.text();
  });

  it('a capability that is not deprecated gets none of them', async () => {
    const res = await rpc('SendMessage', send('invoice-lookup-v2'));
    expect(JSON.parse(res.text).result.task.metadata.deprecation).toBeUndefined();
    expect(res.headers.get('deprecation')).toBeNull();
    expect(res.headers.get('sunset')).toBeNull();
    expect(res.headers.get('link')).toBeNull();
  });

  it('never names a replacement the caller may not use: no Link and no replacement in the notice for another tenant', async () => {
    const other = await rpc('SendMessage', send('reconcile-invoice', 'reconcile invoice INV-1'), token('globex'));
    expect(other.headers.get('deprecation')).toBe(deprecation);
    expect(other.headers.get('link')).toBeNull();
    expect(other.text).not.toContain('reconcile-invoice-v2');
    const partner = await rpc('SendMessage', send('reconcile-invoice', 'reconcile invoice INV-1'), token('acme-partner'));
    expect(partner.headers.get('link')).toBe(
      '</a2a/rest/extendedAgentCard#skill=reconcile-invoice-v2>; rel="successor-version"; title="reconcile-invoice-v2"',
    );
  });

  it('no Sunset before a removal date is announced; the notice says none is', async () => {
    current = bundle(null);
    try {
      const res = await rpc('SendMessage', send('invoice-lookup'));
      expect(res.headers.get('deprecation')).toBe(deprecation);
      expect(res.headers.get('sunset')).toBeNull();
      expect(JSON.parse(res.text).result.task.metadata.deprecation.message).toMatch(/no removal date is announced yet$/);
    } finally {
      current = bundle(SUNSET);
    }
  });
});
