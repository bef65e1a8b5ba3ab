/**
 * Issue 11 item 8: an a2a token names the one agent it is for (`aud` = urn:a2a-agent:<agentId>,
 * ADR 0065). A token a partner minted for another agent, or for the old shared audience, is
 * refused by this agent's node and by the token exchange; `npm run token -- partner` mints for
 * the demo agent.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import jwt from 'jsonwebtoken';
import { a2aRpc, AGENT, bearer, startSecurityStack, type Json, type SecurityStack } from './support/stack';

const run = promisify(execFile);

describe('a2a tokens are bound to one agent (issue 11 item 8)', () => {
  let stack: SecurityStack;
  beforeAll(async () => {
    stack = await startSecurityStack('audience');
  });
  afterAll(async () => {
    await stack?.close();
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

  it('accepts a token whose audience names this agent', async () => {
    expect(await extendedSkills(token(`urn:a2a-agent:${AGENT}`))).toMatchObject({
      status: 200,
      skills: ['invoice-lookup', 'reconcile-invoice'],
    });
    expect((await exchange(token(`urn:a2a-agent:${AGENT}`))).status).toBe(200);
  });

  it.each([
    ['another agent', 'urn:a2a-agent:payroll-agent'],
    ['the old shared audience', 'a2a-agents'],
    ['a prefix of this agent', 'urn:a2a-agent:finance'],
    ['this agent with a suffix', `urn:a2a-agent:${AGENT}-evil`],
  ])('refuses a token minted for %s, at the node and at the exchange', async (_name, aud) => {
    expect(await extendedSkills(token(aud))).toMatchObject({ status: 401, reason: 'TOKEN_WRONG_AUDIENCE' });
    const res = await exchange(token(aud));
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error.code).toBe('SUBJECT_TOKEN_INVALID');
  });

  it('`npm run token -- partner` mints a token for the demo agent that its node accepts', async () => {
    const { stdout } = await run('npx', ['tsx', 'tools/dev-token.ts', 'partner'], {
      env: { PATH: process.env.PATH, JWT_SECRET: stack.cpConfig.JWT_SECRET },
    });
    const minted = stdout.trim();
    expect(jwt.decode(minted)).toMatchObject({ aud: `urn:a2a-agent:${AGENT}`, token_use: 'a2a' });
    expect((await extendedSkills(minted)).skills).toEqual(['invoice-lookup', 'reconcile-invoice']);
  });
});
