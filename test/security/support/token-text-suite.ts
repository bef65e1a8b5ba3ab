/**
 * Issue 11 item 12: a token's own text (its header's alg or kid, its claims) never reaches a
 * response header. A CR/LF in `alg` used to answer 500 (Fastify refuses the header);
 * WWW-Authenticate now carries a fixed description per error code.
 *
 * A describe factory over a target (./targets.ts, issue 28): in process, and through a gateway node
 * whose reconcile-invoice is served by an `@a2a-js/sdk` upstream. The node's answers are checked on
 * both, also for sends to that capability; through the gateway a hostile token reaches nothing
 * upstream, and no token's text (hostile or well-formed) appears in anything the upstream received. The control plane's own surfaces
 * (node API, admin API) do not depend on the target: they are checked in process only.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { mintA2AToken } from '@cp/auth';
import { gql } from '../../support/graphql-client';
import { a2aRpc, AGENT, bearer, type Json, type SecurityStack } from './stack';
import { GATEWAY_CAPABILITY, startTarget, type Target, type TargetKind } from './targets';

const MARKER = 'zz-token-text-zz';
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A JWT with any header at all, signed (HS256) with `secret` over whatever the header says. */
function handMade(header: Json, payload: Json, secret: string): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

export function tokenTextNeverReachesResponseHeaders(kind: TargetKind): void {
  describe(`token text never reaches response headers (issue 11 item 12), ${kind}`, () => {
    let target: Target;
    let stack: SecurityStack;
    beforeAll(async () => {
      target = await startTarget(kind, 'headers');
      stack = target.stack;
    });
    afterAll(async () => {
      await target?.close();
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
    const mark = () => target.upstream?.seen.length ?? 0;
    const upstreamMethods = (from: number) => (target.upstream?.seen.slice(from) ?? []).map((r) => r.method);
    /** Through the gateway: nothing reached the upstream since `from`, and `token` is in nothing it ever received. */
    const nothingUpstream = (from: number, token: string) => {
      expect(target.upstream?.seen.slice(from) ?? []).toEqual([]);
      expect(JSON.stringify(target.upstream?.seen ?? [])).not.toContain(token);
    };
    const message = () => ({
      messageId: `tt-${randomBytes(4).toString('hex')}`,
      role: 'ROLE_USER',
      parts: [{ text: 'reconcile invoice INV-20931 against the PO' }],
      metadata: { skillId: GATEWAY_CAPABILITY },
    });

    it('a well-formed token is answered without its text in a header; through the gateway it reaches the upstream only exchanged', async () => {
      const token = mintA2AToken(stack.cpConfig, MARKER, 'acme-partner', ['recon.run'], 600, AGENT);
      const from = mark();
      const res = await a2aRpc(stack.nodeUrl, 'SendMessage', { message: message() }, bearer(token));
      expect(res.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      for (const [name, value] of res.headers) expect(`${name}: ${value}`).not.toContain(token);
      expect(upstreamMethods(from)).toEqual(kind === 'gateway' ? ['SendMessage'] : []);
      expect(JSON.stringify(target.upstream?.seen ?? [])).not.toContain(token);
      expect(JSON.stringify(target.upstream?.seen ?? [])).not.toContain(token.split('.')[2]);
    });

    it.each(hostileHeaders)('the node (JSON-RPC) answers 401 with a fixed WWW-Authenticate for %s', async (_name, header) => {
      const token = handMade(header, payload(), stack.cpConfig.JWT_SECRET);
      const from = mark();
      const res = await a2aRpc(stack.nodeUrl, 'GetExtendedAgentCard', {}, bearer(token));
      assertClean(res.status, res.headers);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="[A-Za-z ,.'-]+"$/);
      expect(res.body.error.data[0].reason).toMatch(/^TOKEN_/);
      for (const method of ['SendMessage', 'SendStreamingMessage']) {
        const sent = await a2aRpc(stack.nodeUrl, method, { message: message() }, bearer(token));
        assertClean(sent.status, sent.headers);
        expect(sent.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="[A-Za-z ,.'-]+"$/);
        expect(JSON.stringify(sent.body)).not.toContain(MARKER);
      }
      nothingUpstream(from, token);
    });

    it.each(hostileHeaders)('the node (REST) answers 401 with a fixed WWW-Authenticate for %s', async (_name, header) => {
      const token = handMade(header, payload(), stack.cpConfig.JWT_SECRET);
      const from = mark();
      const res = await fetch(`${stack.nodeUrl}/a2a/rest/extendedAgentCard`, { headers: { 'a2a-version': '1.0', ...bearer(token) } });
      assertClean(res.status, res.headers);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
      for (const path of ['message:send', 'message:stream']) {
        const sent = await fetch(`${stack.nodeUrl}/a2a/rest/${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...bearer(token) },
          body: JSON.stringify({ message: message() }),
        });
        assertClean(sent.status, sent.headers);
        expect(sent.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
        expect(await sent.text()).not.toContain(MARKER);
      }
      nothingUpstream(from, token);
    });

    if (kind === 'in-process') {
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
    }

    it('uses the same description for every token with the same fault, whatever its text', async () => {
      const descriptions = new Set<string | null>();
      const from = mark();
      for (const alg of ['HS999', `HS256\r\n${MARKER}`, 'none', 'x'.repeat(500)]) {
        const token = handMade({ alg }, payload(), 's');
        const res = await a2aRpc(stack.nodeUrl, 'GetExtendedAgentCard', {}, bearer(token));
        descriptions.add(res.headers.get('www-authenticate'));
        const sent = await a2aRpc(stack.nodeUrl, 'SendMessage', { message: message() }, bearer(token));
        descriptions.add(sent.headers.get('www-authenticate'));
        nothingUpstream(from, token);
      }
      expect(descriptions.size).toBe(1);
    });
  });
}
