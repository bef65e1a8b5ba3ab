/**
 * Issue 11 item 12: a token's own text (its header's alg or kid, its claims) never reaches a
 * response header. A CR/LF in `alg` used to answer 500 (Fastify refuses the header);
 * WWW-Authenticate now carries a fixed description per error code.
 */
import { createHmac } from 'node:crypto';
import { gql } from '../support/graphql-client';
import { a2aRpc, bearer, startSecurityStack, type Json, type SecurityStack } from './support/stack';

const MARKER = 'zz-token-text-zz';
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A JWT with any header at all, signed (HS256) with `secret` over whatever the header says. */
function handMade(header: Json, payload: Json, secret: string): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

describe('token text never reaches response headers (issue 11 item 12)', () => {
  let stack: SecurityStack;
  beforeAll(async () => {
    stack = await startSecurityStack('headers');
  });
  afterAll(async () => {
    await stack?.close();
  });

  const payload = () => ({
    token_use: 'a2a',
    sub: MARKER,
    tenant: 'acme-partner',
    scope: 'recon.run',
    iat: Math.floor(Date.now() / 1000),
    exp: Math.floor(Date.now() / 1000) + 60,
  });
  const hostileHeaders: [string, Json][] = [
    ['CR/LF in alg', { alg: `HS256\r\nX-Injected: ${MARKER}`, typ: 'JWT' }],
    ['LF in alg', { alg: `RS256\n${MARKER}`, typ: 'JWT' }],
    ['a quote and CR/LF in kid', { alg: 'RS256', kid: `"${MARKER}\r\nSet-Cookie: a=b` }],
    ['a non-Latin-1 alg', { alg: `HS256\u2028${MARKER}\u{1F600}` }],
  ];

  const assertClean = (status: number, headers: Headers) => {
    expect(status).toBe(401);
    for (const [name, value] of headers) {
      expect(`${name}: ${value}`).not.toContain(MARKER);
      expect(name).not.toBe('x-injected');
    }
  };

  it.each(hostileHeaders)('the node (JSON-RPC) answers 401 with a fixed WWW-Authenticate for %s', async (_name, header) => {
    const token = handMade(header, payload(), stack.cpConfig.JWT_SECRET);
    const res = await a2aRpc(stack.nodeUrl, 'GetExtendedAgentCard', {}, bearer(token));
    assertClean(res.status, res.headers);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="[A-Za-z ,.'-]+"$/);
    expect(res.body.error.data[0].reason).toMatch(/^TOKEN_/);
  });

  it.each(hostileHeaders)('the node (REST) answers 401 with a fixed WWW-Authenticate for %s', async (_name, header) => {
    const token = handMade(header, payload(), stack.cpConfig.JWT_SECRET);
    const res = await fetch(`${stack.nodeUrl}/a2a/rest/extendedAgentCard`, { headers: { 'a2a-version': '1.0', ...bearer(token) } });
    assertClean(res.status, res.headers);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
  });

  it.each(hostileHeaders)('the control plane node API answers 401 without token text for %s', async (_name, header) => {
    const token = handMade(header, { ...payload(), token_use: 'node', agent_id: 'finance-agent' }, stack.cpConfig.JWT_SECRET);
    const bundle = await fetch(`${stack.cpUrl}/node/v1/bundle`, { headers: bearer(token) });
    assertClean(bundle.status, bundle.headers);
    expect(JSON.stringify(await bundle.json())).not.toContain(MARKER);
    const res = await fetch(`${stack.cpUrl}/node/v1/token-exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(token) },
      body: JSON.stringify({ subjectToken: token, tool: 'erp', capabilityId: 'reconcile-invoice' }),
    });
    assertClean(res.status, res.headers);
    expect(JSON.stringify(await res.json())).not.toContain(MARKER);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="[A-Za-z ,.'-]+"$/);
  });

  it.each(hostileHeaders)('the admin API answers UNAUTHENTICATED (not 500) for %s', async (_name, header) => {
    const token = handMade(header, { ...payload(), token_use: 'admin', roles: ['platform-admin'] }, stack.cpConfig.JWT_SECRET);
    const res = await gql(stack.cpUrl, token, '{ me { subject } }');
    expect(res.status).toBeLessThan(500);
    expect(res.errors?.[0]?.extensions.code).toBe('UNAUTHENTICATED');
    expect(JSON.stringify(res.errors)).not.toContain(MARKER);
  });

  it('uses the same description for every token with the same fault, whatever its text', async () => {
    const descriptions = new Set<string | null>();
    for (const alg of ['HS999', `HS256\r\n${MARKER}`, 'none', 'x'.repeat(500)]) {
      const res = await a2aRpc(stack.nodeUrl, 'GetExtendedAgentCard', {}, bearer(handMade({ alg }, payload(), 's')));
      descriptions.add(res.headers.get('www-authenticate'));
    }
    expect(descriptions.size).toBe(1);
  });
});
