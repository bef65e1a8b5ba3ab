/**
 * Issue 11 item 7: a tool token never outlives the caller's token (exp = min(now + 300 s, caller
 * exp)), and a capability obtains only the tools its manifest lists (`tools`, server-side, never
 * in a card). A handler of the public invoice-lookup asking for the erp tool gets the very answer
 * an unknown tool gets.
 */
import jwt from 'jsonwebtoken';
import { mintAdminToken } from '@cp/auth';
import { gql, gqlOk } from '../support/graphql-client';
import { a2aRpc, AGENT, bearer, startSecurityStack, type Json, type SecurityStack } from './support/stack';

const UPDATE = 'mutation($input: ManifestDocumentInput!) { updateManifest(input: $input) { revision manifest { id document } } }';
const MANIFEST = 'query($a: String!, $c: String!) { manifest(agentId: $a, capabilityId: $c) { document } agent(id: $a) { revision } }';

describe('tool tokens are bound to the caller and the capability (issue 11 item 7)', () => {
  let stack: SecurityStack;
  let admin: string;
  beforeAll(async () => {
    stack = await startSecurityStack('exchange');
    admin = mintAdminToken(stack.cpConfig, 'sec-admin', ['platform-admin']);
  });
  afterAll(async () => {
    await stack?.close();
  });

  const partner = (expiresIn: number) =>
    jwt.sign({ token_use: 'a2a', tenant: 'acme-partner', scope: 'recon.run' }, stack.cpConfig.JWT_SECRET, {
      algorithm: 'HS256',
      subject: 'orchestrator@acme-partner',
      issuer: stack.cpConfig.A2A_JWT_ISSUER,
      audience: `urn:a2a-agent:${AGENT}`,
      expiresIn,
    });
  const exchange = async (subjectToken: string, tool: string, capabilityId: string) => {
    const res = await fetch(`${stack.cpUrl}/node/v1/token-exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(stack.nodeConfig.NODE_TOKEN!) },
      body: JSON.stringify({ subjectToken, tool, capabilityId }),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };

  it('mints a tool token that expires no later than the caller token', async () => {
    const caller = partner(40);
    const callerExp = (jwt.decode(caller) as Json).exp as number;
    const res = await exchange(caller, 'erp', 'reconcile-invoice');
    expect(res.status).toBe(200);
    const claims = jwt.decode(res.body.accessToken) as Json;
    expect(claims.exp).toBeLessThanOrEqual(callerExp);
    expect(res.body.expiresIn).toBeLessThanOrEqual(40);
    expect(res.body.expiresIn).toBeGreaterThan(0);
    expect(typeof claims.iat).toBe('number');
    // A long-lived caller still gets at most the tool TTL.
    const long = await exchange(partner(3000), 'erp', 'reconcile-invoice');
    const longClaims = jwt.decode(long.body.accessToken) as Json;
    expect(longClaims.exp - longClaims.iat).toBeLessThanOrEqual(300);
  });

  it('refuses the erp tool to invoice-lookup with the same answer as an unknown tool', async () => {
    const caller = partner(600);
    expect((await exchange(caller, 'erp', 'reconcile-invoice')).status).toBe(200);
    const unbound = await exchange(caller, 'erp', 'invoice-lookup');
    const unknown = await exchange(caller, 'no-such-tool', 'invoice-lookup');
    const unknownCapability = await exchange(caller, 'erp', 'no-such-capability');
    expect(unbound.status).toBe(unknown.status);
    expect(unknown.body.error.code).toBe('UNKNOWN_TOOL');
    expect(unbound.body.error.code).toBe(unknown.body.error.code);
    expect(unbound.body.error.message.replace('erp', 'X')).toBe(unknown.body.error.message.replace('no-such-tool', 'X'));
    expect(unbound.body.accessToken).toBeUndefined();
    expect(unknownCapability.body.accessToken).toBeUndefined();
    expect(unknownCapability.status).toBeGreaterThanOrEqual(400);
  });

  it('lets the registry grant a tool through the manifest, and keeps the list out of every card', async () => {
    const current = await gqlOk(stack.cpUrl, admin, MANIFEST, { a: AGENT, c: 'reconcile-invoice' });
    expect(current.manifest.document.tools).toEqual(['erp']);
    // Hostile tool lists are refused by validation, naming the field; nothing changes.
    for (const tools of [['ERP!'], ['erp', 'erp'], 'erp', [''], ['x'.repeat(100)]]) {
      const lookup = await gqlOk(stack.cpUrl, admin, MANIFEST, { a: AGENT, c: 'invoice-lookup' });
      const res = await gql(stack.cpUrl, admin, UPDATE, {
        input: { agentId: AGENT, expectedRevision: lookup.agent.revision, manifest: { ...lookup.manifest.document, tools } },
      });
      expect(res.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
      expect(JSON.stringify(res.errors?.[0]?.extensions.validationErrors)).toContain('tools');
    }
    const lookup = await gqlOk(stack.cpUrl, admin, MANIFEST, { a: AGENT, c: 'invoice-lookup' });
    await gqlOk(stack.cpUrl, admin, UPDATE, {
      input: { agentId: AGENT, expectedRevision: lookup.agent.revision, manifest: { ...lookup.manifest.document, tools: ['erp'] } },
    });
    expect((await exchange(partner(600), 'erp', 'invoice-lookup')).status).toBe(200);
    // Wait for the node to serve the new revision, then check no card mentions tools.
    const deadline = Date.now() + 10_000;
    let card = '';
    while (Date.now() < deadline) {
      const ext = await a2aRpc(stack.nodeUrl, 'GetExtendedAgentCard', {}, bearer(partner(600)));
      card = JSON.stringify(ext.body.result);
      if (ext.body.result?.version !== undefined && card.includes('invoice-lookup')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const publicCard = await (await fetch(`${stack.nodeUrl}/.well-known/agent-card.json`)).text();
    for (const text of [card, publicCard]) {
      expect(text).not.toMatch(/"tools"/);
      expect(text).not.toContain('"erp"');
    }
  });
});
