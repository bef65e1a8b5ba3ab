/**
 * Issue 28 item 3 (ADR 0231): an upstream behind a gateway node never gets the caller's token or
 * the node's credential, but a token from the control plane's exchange (`kind: "upstream"`):
 * audience the upstream as the registry names it, subject the caller, `act.sub` the node, scopes
 * the caller's ∩ what the capability may use upstream, never outliving the caller's token, signed
 * by the key ring and verifiable against the public JWKS. A node of another agent, a capability
 * without an upstream, an anonymous caller and a caller who is not entitled are each refused with a
 * clear error and no token. Only a platform admin widens `protocol.upstreamAllow`.
 */
import jwt from 'jsonwebtoken';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { mintA2AToken, mintAdminToken, mintNodeToken } from '@cp/auth';
import { codeOf, gql, gqlOk } from '../support/graphql-client';
import { setUpstream } from '../e2e/gateway-support/gateway';
import { AGENT, bearer, nodeSubject, startSecurityStack, type Json, type SecurityStack } from './support/stack';
import { platformAdmin } from './support/push';

jest.setTimeout(180_000);

const UPDATE_AGENT = `mutation($input: UpdateAgentInput!) { updateAgent(input: $input) { revision protocol { upstreamAllow } } }`;
const UPSTREAM_URL = 'https://recon.upstream.example/a2a/v1';

describe('upstream tokens are exchanged, never borrowed (issue 28 item 3)', () => {
  let stack: SecurityStack;
  let admin: string;

  const caller = (scopes: string[], expiresIn = 600, subject = 'orchestrator@acme-partner') =>
    mintA2AToken(stack.cpConfig, subject, 'acme-partner', scopes, expiresIn, AGENT);
  const exchange = async (body: Json, nodeToken = stack.nodeConfig.NODE_TOKEN!) => {
    const res = await fetch(`${stack.cpUrl}/node/v1/token-exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(nodeToken) },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const issued = () => stack.prisma.auditEvent.count({ where: { action: 'upstream-token.issue' } });

  beforeAll(async () => {
    // Not about approvals: testConfig's empty APPROVAL_DEFAULT_KINDS reads as unset on main (all kinds gated), so name one kind this suite never changes.
    stack = await startSecurityStack('upstream_tokens', { APPROVAL_DEFAULT_KINDS: 'undeprecate' });
    admin = platformAdmin(stack);
    await setUpstream(stack, {
      url: UPSTREAM_URL,
      binding: 'jsonrpc',
      version: '1.0',
      auth: { kind: 'token-exchange', scopes: ['recon.run', 'invoices.read'] },
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('mints aud = the upstream, sub = the caller, act.sub = the node, scopes = caller ∩ capability, exp ≤ the caller, verifiable with the JWKS', async () => {
    const subjectToken = caller(['recon.run', 'ledger.write'], 120);
    const callerExp = (jwt.decode(subjectToken) as Json).exp as number;
    const before = await issued();
    const res = await exchange({ kind: 'upstream', subjectToken, capabilityId: 'reconcile-invoice' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ tokenType: 'Bearer', audience: 'https://recon.upstream.example', scopes: ['recon.run'] });
    expect(res.body.accessToken).not.toBe(subjectToken);

    const jwks = (await (await fetch(`${stack.cpUrl}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
    const { payload, protectedHeader } = await jwtVerify(res.body.accessToken as string, createLocalJWKSet(jwks), {
      audience: 'https://recon.upstream.example',
      issuer: stack.cpConfig.JWT_ISSUER,
    });
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload).toMatchObject({
      token_use: 'upstream',
      sub: 'orchestrator@acme-partner',
      act: { sub: nodeSubject(stack) },
      scope: 'recon.run',
      tenant: 'acme-partner',
      capability: 'reconcile-invoice',
      agent_id: AGENT,
    });
    expect(payload.exp).toBeLessThanOrEqual(callerExp);
    expect(res.body.expiresIn).toBeLessThanOrEqual(120);
    // A token signed with the shared a2a secret would not verify here: the upstream token is the key ring's.
    await expect(jwtVerify(subjectToken, createLocalJWKSet(jwks))).rejects.toThrow();
    expect(await issued()).toBe(before + 1);
    const audit = await stack.prisma.auditEvent.findFirst({
      where: { action: 'upstream-token.issue' },
      orderBy: { id: 'desc' },
      select: { actor: true, onBehalfOf: true, delegation: true, after: true },
    });
    expect(audit?.actor).toBe(nodeSubject(stack));
    expect(audit).toMatchObject({
      onBehalfOf: 'orchestrator@acme-partner',
      delegation: { capabilityId: 'reconcile-invoice', scopes: ['recon.run'] },
    });
    expect(JSON.stringify(audit)).not.toContain(res.body.accessToken as string);
    expect(JSON.stringify(audit)).not.toContain(subjectToken);
  });

  it('a long-lived caller still gets a short upstream token', async () => {
    const res = await exchange({ kind: 'upstream', subjectToken: caller(['recon.run'], 3000), capabilityId: 'reconcile-invoice' });
    expect(res.status).toBe(200);
    const claims = jwt.decode(res.body.accessToken as string) as Json;
    expect(claims.exp - claims.iat).toBeLessThanOrEqual(300);
  });

  it('refuses a node of another agent, a capability without upstream, an anonymous caller and an unentitled caller, minting nothing', async () => {
    const before = await issued();
    const otherNode = mintNodeToken(stack.cpConfig, 'payroll-agent');
    const cases: Array<{ name: string; res: { status: number; body: Json }; code: string; message: RegExp }> = [
      {
        name: 'node of another agent',
        res: await exchange({ kind: 'upstream', subjectToken: caller(['recon.run']), capabilityId: 'reconcile-invoice' }, otherNode),
        code: 'SUBJECT_TOKEN_INVALID',
        message: /not a valid a2a token/,
      },
      {
        name: 'capability without upstream',
        res: await exchange({ kind: 'upstream', subjectToken: caller(['recon.run']), capabilityId: 'invoice-lookup' }),
        code: 'UNKNOWN_TOOL',
        message: /capability "invoice-lookup" has no upstream agent/,
      },
      {
        name: 'anonymous caller',
        res: await exchange({ kind: 'upstream', subjectToken: '', capabilityId: 'reconcile-invoice' }),
        code: 'INVALID_REQUEST',
        message: /a2a token is required/,
      },
      {
        name: 'caller not entitled',
        res: await exchange({ kind: 'upstream', subjectToken: caller([], 600, 'viewer@acme-partner'), capabilityId: 'reconcile-invoice' }),
        code: 'CAPABILITY_NOT_ENTITLED',
        message: /may not use capability "reconcile-invoice"/,
      },
      {
        name: "another agent's caller token",
        res: await exchange({
          kind: 'upstream',
          subjectToken: mintA2AToken(stack.cpConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run'], 600, 'payroll-agent'),
          capabilityId: 'reconcile-invoice',
        }),
        code: 'SUBJECT_TOKEN_INVALID',
        message: /not a valid a2a token/,
      },
    ];
    for (const c of cases) {
      expect({ name: c.name, status: c.res.status >= 400 && c.res.status < 500 }).toEqual({ name: c.name, status: true });
      expect({ name: c.name, code: c.res.body.error?.code }).toEqual({ name: c.name, code: c.code });
      expect(c.res.body.error.message).toMatch(c.message);
      expect(c.res.body.accessToken).toBeUndefined();
    }
    expect(await issued()).toBe(before);
  });

  it('only a platform admin widens protocol.upstreamAllow; the widening is audited', async () => {
    const { agent } = await gqlOk(stack.cpUrl, admin, `{ agent(id: "${AGENT}") { teamId } }`);
    const teamAdmin = mintAdminToken(stack.cpConfig, 'sec:team-admin', ['team-admin'], [agent.teamId as string]);
    const state = async () => {
      const row = await stack.prisma.agent.findUniqueOrThrow({ where: { id: AGENT }, select: { revision: true, upstreamAllow: true } });
      return { ...row, audit: await stack.prisma.auditEvent.count() };
    };
    const update = async (token: string, upstreamAllow: string[]) =>
      gql(stack.cpUrl, token, UPDATE_AGENT, {
        input: { id: AGENT, expectedRevision: (await state()).revision, protocol: { upstreamAllow } },
      });

    const before = await state();
    const refused = await update(teamAdmin, ['127.0.0.1', '10.8.0.0/16']);
    expect(codeOf(refused)).toBe('FORBIDDEN');
    expect(refused.errors?.[0].message).toMatch(
      /only a platform-admin may add entries to protocol\.upstreamAllow \("127\.0\.0\.1", "10\.8\.0\.0\/16"\)/,
    );
    expect(await state()).toEqual(before);

    // Hostile entries are refused for everyone, naming why.
    for (const token of [teamAdmin, admin]) {
      const open = await update(token, ['0.0.0.0/0']);
      expect(codeOf(open)).toBe('BAD_USER_INPUT');
      expect(JSON.stringify(open.errors)).toMatch(/would allow every address/);
      expect(await state()).toEqual(before);
    }

    const added = await update(admin, ['127.0.0.1']);
    expect(codeOf(added)).toBe('OK');
    const widen = await stack.prisma.auditEvent.findMany({ where: { action: 'agent.upstream-allow.widen', targetId: AGENT } });
    expect(widen).toHaveLength(1);
    expect(widen[0]).toMatchObject({
      actor: 'sec:platform-admin',
      before: { upstreamAllow: [] },
      after: { upstreamAllow: ['127.0.0.1'], added: ['127.0.0.1'] },
    });
    // A team admin may remove the entry, but not put it back.
    expect(codeOf(await update(teamAdmin, []))).toBe('OK');
    expect(codeOf(await update(teamAdmin, ['127.0.0.1']))).toBe('FORBIDDEN');
    expect(await stack.prisma.auditEvent.count({ where: { action: 'agent.upstream-allow.widen' } })).toBe(1);
  });
});
