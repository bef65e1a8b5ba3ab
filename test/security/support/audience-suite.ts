/**
 * Issue 11 item 8: an a2a token names the one agent it is for (`aud` = urn:a2a-agent:<agentId>,
 * ADR 0065). A token a partner minted for another agent, or for the old shared audience, is
 * refused by this agent's node and by the token exchange; `npm run token -- partner` mints for
 * the demo agent.
 *
 * A describe factory over a target (./targets.ts, issue 28): in process, and through a gateway node
 * whose reconcile-invoice is served by an `@a2a-js/sdk` upstream. The partner's sends go to that
 * capability; through the gateway a token for another audience reaches nothing upstream, and an
 * accepted one reaches it only as an exchanged upstream token, never as itself.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import jwt from 'jsonwebtoken';
import { jwksOf, upstreamClaims } from '../../e2e/gateway-support/gateway';
import { a2aRpc, AGENT, bearer, type Json, type SecurityStack } from './stack';
import { GATEWAY_CAPABILITY, startTarget, type Target, type TargetKind } from './targets';

const run = promisify(execFile);

export function a2aTokensAreBoundToOneAgent(kind: TargetKind): void {
  describe(`a2a tokens are bound to one agent (issue 11 item 8), ${kind}`, () => {
    let target: Target;
    let stack: SecurityStack;
    beforeAll(async () => {
      target = await startTarget(kind, 'audience');
      stack = target.stack;
    });
    afterAll(async () => {
      await target?.close();
    });

    const token = (aud: string | string[]) =>
      jwt.sign({ token_use: 'a2a', tenant: 'acme-partner', scope: 'recon.run' }, stack.cpConfig.JWT_SECRET, {
        algorithm: 'HS256',
        subject: 'orchestrator@acme-partner',
        issuer: stack.cpConfig.A2A_JWT_ISSUER,
        audience: aud,
        expiresIn: 600,
      });
    const extendedSkills = async (t: string) => {
      const res = await a2aRpc(stack.nodeUrl, 'GetExtendedAgentCard', {}, bearer(t));
      return { status: res.status, reason: res.body.error?.data?.[0]?.reason, skills: res.body.result?.skills?.map((s: Json) => s.id) };
    };
    const exchange = (subjectToken: string) =>
      fetch(`${stack.cpUrl}/node/v1/token-exchange`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(stack.nodeConfig.NODE_TOKEN!) },
        body: JSON.stringify({ subjectToken, tool: 'erp', capabilityId: 'reconcile-invoice' }),
      });
    /** A send to the capability the gateway serves through its upstream. */
    const send = async (t: string) => {
      const message = {
        messageId: `aud-${randomBytes(4).toString('hex')}`,
        role: 'ROLE_USER',
        parts: [{ text: 'reconcile invoice INV-20931 against the PO' }],
        metadata: { skillId: GATEWAY_CAPABILITY },
      };
      const res = await a2aRpc(stack.nodeUrl, 'SendMessage', { message }, bearer(t));
      return { status: res.status, reason: res.body.error?.data?.[0]?.reason, state: res.body.result?.task?.status?.state };
    };
    const mark = () => target.upstream?.seen.length ?? 0;
    /** Through the gateway: `t` reached the upstream exactly once since `from`, exchanged (never as itself). */
    const reachedUpstreamExchanged = async (from: number, t: string) => {
      if (!target.upstream) return;
      const calls = target.upstream.seen.slice(from);
      expect(calls.map((c) => c.method)).toEqual(['SendMessage']);
      const claims = await upstreamClaims(stack, await jwksOf(stack), target.upstream.jsonrpc, calls[0].authorization, t);
      expect(claims).toMatchObject({ token_use: 'upstream', sub: 'orchestrator@acme-partner', capability: GATEWAY_CAPABILITY });
      expect(JSON.stringify(calls)).not.toContain(t);
    };

    it('accepts a token whose audience names this agent', async () => {
      expect(await extendedSkills(token(`urn:a2a-agent:${AGENT}`))).toMatchObject({
        status: 200,
        skills: ['invoice-lookup', 'reconcile-invoice'],
      });
      expect((await exchange(token(`urn:a2a-agent:${AGENT}`))).status).toBe(200);
      const from = mark();
      const accepted = token(`urn:a2a-agent:${AGENT}`);
      expect(await send(accepted)).toMatchObject({ status: 200, state: 'TASK_STATE_COMPLETED' });
      await reachedUpstreamExchanged(from, accepted);
    });

    it.each([
      ['another agent', 'urn:a2a-agent:payroll-agent'],
      ['the old shared audience', 'a2a-agents'],
      ['a prefix of this agent', 'urn:a2a-agent:finance'],
      ['this agent with a suffix', `urn:a2a-agent:${AGENT}-evil`],
    ])('refuses a token minted for %s, at the node and at the exchange (nothing reaches an upstream)', async (_name, aud) => {
      const from = mark();
      expect(await extendedSkills(token(aud))).toMatchObject({ status: 401, reason: 'TOKEN_WRONG_AUDIENCE' });
      const res = await exchange(token(aud));
      expect(res.status).toBe(400);
      expect(((await res.json()) as Json).error.code).toBe('SUBJECT_TOKEN_INVALID');
      const refused = token(aud);
      expect(await send(refused)).toMatchObject({ status: 401, reason: 'TOKEN_WRONG_AUDIENCE' });
      expect(target.upstream?.seen.slice(from) ?? []).toEqual([]);
      expect(JSON.stringify(target.upstream?.seen ?? [])).not.toContain(refused);
    });

    it('`npm run token -- partner` mints a token for the demo agent that its node accepts', async () => {
      const { stdout } = await run('npx', ['tsx', 'tools/dev-token.ts', 'partner'], {
        env: { PATH: process.env.PATH, JWT_SECRET: stack.cpConfig.JWT_SECRET },
      });
      const minted = stdout.trim();
      expect(jwt.decode(minted)).toMatchObject({ aud: `urn:a2a-agent:${AGENT}`, token_use: 'a2a' });
      expect((await extendedSkills(minted)).skills).toEqual(['invoice-lookup', 'reconcile-invoice']);
      const from = mark();
      expect(await send(minted)).toMatchObject({ status: 200, state: 'TASK_STATE_COMPLETED' });
      await reachedUpstreamExchanged(from, minted);
    });
  });
}
