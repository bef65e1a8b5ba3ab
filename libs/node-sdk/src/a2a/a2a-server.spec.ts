/** The A2A layer on a real Fastify server with bundles built by the core (no control plane). */
import type { FastifyInstance } from 'fastify';
import { mintA2AToken } from '@cp/auth';
import { buildNodeBundle, financeAgentExample, type RegistrySnapshot } from '@cp/capabilities';
import { ActiveBundle } from '../active-bundle';
import { completedWith, serveTestA2A, testConfig as config } from '../testing/a2a-test-node';
import { HandlerRegistry } from './handler-registry';
import type { ServedBundle } from './served-bundle';

const REQUIRED = 'https://example.com/ext/signed-receipts/v1';
const OPTIONAL = 'https://example.com/ext/trace/v1';

function snapshot(overrides: { extensions?: RegistrySnapshot['agent']['extensions']; extendedSwitch?: boolean } = {}): RegistrySnapshot {
  const f = financeAgentExample();
  return {
    agentId: 'finance-agent',
    revision: 1,
    agent: {
      ...f.agent,
      extensions: overrides.extensions ?? [],
      protocol: { ...f.agent.protocol, extendedAgentCard: overrides.extendedSwitch ?? true },
    },
    manifests: f.manifests,
    previewTenants: [],
  };
}

async function serve(bundle: () => ServedBundle | undefined): Promise<{ app: FastifyInstance; url: string; usage: string[] }> {
  const usage: string[] = [];
  const handlers = new HandlerRegistry().register('invoices.v1.lookup', completedWith()).register('recon.v3.reconcile', async (ctx) => ({
    state: 'completed',
    artifacts: [{ parts: [{ data: { ext: ctx.activeExtensions } }] }],
  }));
  const { app, url } = await serveTestA2A({ bundle, handlers, usage: { record: (c, t) => usage.push(`${c}/${t}`) } });
  return { app, url, usage };
}

const rpc = async (url: string, method: string, params: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'x', method, params }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
};
const partner = () => ({ authorization: `Bearer ${mintA2AToken(config, 'p@acme', 'acme-partner', ['recon.run'])}` });
const msg = (text: string) => ({ message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text }] } });

describe('A2A server layer', () => {
  const servers: FastifyInstance[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it('negotiates A2A-Extensions: required-but-missing refused, activated echoed, unknown ignored', async () => {
    const b = new ActiveBundle(buildNodeBundle(snapshot({ extensions: [{ uri: REQUIRED, required: true }, { uri: OPTIONAL }] })));
    const { app, url } = await serve(() => b);
    servers.push(app);
    const refused = await rpc(url, 'SendMessage', msg('reconcile invoice INV-1 against its PO'), partner());
    expect(refused.body.error).toMatchObject({
      code: -32008,
      data: [{ reason: 'EXTENSION_SUPPORT_REQUIRED', metadata: { required: REQUIRED } }],
    });
    const ok = await rpc(url, 'SendMessage', msg('reconcile invoice INV-1 against its PO'), {
      ...partner(),
      'a2a-extensions': `${REQUIRED}, https://unknown.example/x/v1`,
    });
    expect(ok.headers.get('a2a-extensions')).toBe(REQUIRED);
    expect(ok.body.result.task.artifacts[0].parts[0].data).toEqual({ ext: [REQUIRED] });
  });

  it('answers UnsupportedOperationError when the card declares no extended card, NotConfigured when declared but missing', async () => {
    const none = new ActiveBundle(buildNodeBundle(snapshot({ extendedSwitch: false })));
    const a = await serve(() => none);
    servers.push(a.app);
    expect((await rpc(a.url, 'GetExtendedAgentCard', {}, partner())).body.error).toMatchObject({ code: -32004 });
    const declared = new ActiveBundle(buildNodeBundle(snapshot()));
    const unconfigured: ServedBundle = {
      revision: declared.revision,
      publicCard: declared.publicCard,
      policy: declared.policy,
      entitlementContext: declared.entitlementContext,
      routerIndexFor: (c) => declared.routerIndexFor(c),
      extendedCardFor: () => undefined,
    };
    const b = await serve(() => unconfigured);
    servers.push(b.app);
    expect((await rpc(b.url, 'GetExtendedAgentCard', {}, partner())).body.error).toMatchObject({
      code: -32007,
      data: [{ reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED' }],
    });
  });

  it('answers 503 (card) and -32000 NODE_NOT_READY (JSON-RPC) before any bundle is applied', async () => {
    const { app, url } = await serve(() => undefined);
    servers.push(app);
    expect((await fetch(`${url}/.well-known/agent-card.json`)).status).toBe(503);
    const r = await rpc(url, 'SendMessage', msg('x'));
    expect(r.status).toBe(503);
    expect(r.body.error.data[0].reason).toBe('NODE_NOT_READY');
  });

  it('re-checks entitlement against the CURRENT bundle at execution and counts only executed calls', async () => {
    const full = new ActiveBundle(buildNodeBundle(snapshot()));
    // The policy swapped under the request: reconcile-invoice now needs a scope nobody has.
    const f = financeAgentExample();
    const tightened = new ActiveBundle(
      buildNodeBundle({
        ...snapshot(),
        revision: 2,
        manifests: f.manifests.map((m) => (m.id === 'reconcile-invoice' ? { ...m, requiresScopes: ['recon.admin'] } : m)),
      }),
    );
    let calls = 0;
    // The reads for the version, negotiation and routing see the old bundle, the execution-time read the new one.
    const { app, url, usage } = await serve(() => (calls++ < 3 ? full : tightened));
    servers.push(app);
    const r = await rpc(url, 'SendMessage', msg('reconcile invoice INV-1 against its PO'), partner());
    expect(r.body.error).toMatchObject({
      code: -32004,
      message: 'the capability this message was routed to is not available to you',
      data: [{ reason: 'CAPABILITY_UNAVAILABLE' }],
    });
    expect(usage).toEqual([]);
  });
});
