/**
 * Issue 11 item 6: every token kind must carry exp and iat, live no longer than its kind's
 * maximum, not claim to be issued in the future, and a JWS `crit` header naming anything this
 * verifier does not understand is refused (RFC 7515 §4.1.11). Checked on the three verifying
 * surfaces (admin GraphQL, node API, agent node A2A) and on a tool's verifier.
 *
 * A describe factory over a target (./targets.ts, issue 28): in process, and through a gateway node
 * whose reconcile-invoice is served by an `@a2a-js/sdk` upstream. The agent node's A2A surface is
 * checked on both, also with sends to that capability and an expired token's reply to a task it
 * started: through the gateway a refused token reaches nothing upstream, and the token the upstream
 * does receive lives at most its kind's 300 s and never past the caller's own exp. The control plane's surfaces (admin GraphQL, node API) and the tool's
 * verifier do not depend on the target: they are checked in process only.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { JwtVerifier } from '@cp/auth';
import { jwksOf, upstreamClaims } from '../../e2e/gateway-support/gateway';
import { gql } from '../../support/graphql-client';
import { a2aRpc, AGENT, bearer, type Json, type SecurityStack } from './stack';
import { GATEWAY_CAPABILITY, startTarget, type Target, type TargetKind } from './targets';

const ME = '{ me { subject } }';
const now = () => Math.floor(Date.now() / 1000);

export function tokensExpireWithinABoundedLifetime(kind: TargetKind): void {
  describe(`tokens expire within a bounded lifetime (issue 11 item 6), ${kind}`, () => {
    let target: Target;
    let stack: SecurityStack;
    /** The control plane's own surfaces are the same whatever the node fronts: checked in process only. */
    const controlPlane = kind === 'in-process';
    beforeAll(async () => {
      target = await startTarget(kind, 'lifetimes');
      stack = target.stack;
    });
    afterAll(async () => {
      await target?.close();
    });

    /** Signs raw claims with the deployment's secret: iat/exp exactly as given (no library defaults). */
    const raw = (claims: Json, header: Json = {}) => {
      const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
      const input = `${b64({ alg: 'HS256', typ: 'JWT', ...header })}.${b64(claims)}`;
      return `${input}.${createHmac('sha256', stack.cpConfig.JWT_SECRET).update(input).digest('base64url')}`;
    };
    const admin = (extra: Json) => ({
      token_use: 'admin',
      sub: 'alice',
      roles: ['platform-admin'],
      teams: [],
      iss: stack.cpConfig.JWT_ISSUER,
      aud: stack.cpConfig.JWT_AUDIENCE,
      ...extra,
    });
    const a2a = (extra: Json) => ({
      token_use: 'a2a',
      sub: 'orchestrator@acme-partner',
      tenant: 'acme-partner',
      scope: 'recon.run',
      iss: stack.cpConfig.A2A_JWT_ISSUER,
      aud: `urn:a2a-agent:${AGENT}`,
      ...extra,
    });
    const node = (extra: Json) => ({
      token_use: 'node',
      sub: 'node-token:finance-agent',
      agent_id: AGENT,
      iss: stack.cpConfig.JWT_ISSUER,
      aud: stack.cpConfig.JWT_AUDIENCE,
      ...extra,
    });
    const adminReason = async (token: string) => {
      const res = await gql(stack.cpUrl, token, ME);
      return res.errors?.[0]?.extensions.code === 'UNAUTHENTICATED' ? String(res.errors[0].extensions.reason) : 'ACCEPTED';
    };
    const a2aStatus = async (token: string) => (await a2aRpc(stack.nodeUrl, 'GetExtendedAgentCard', {}, bearer(token))).status;
    const nodeStatus = async (token: string) => (await fetch(`${stack.cpUrl}/node/v1/bundle`, { headers: bearer(token) })).status;
    /** A send to the capability the gateway serves through its upstream: its HTTP status and the task's state. */
    const send = async (token: string) => {
      const message = {
        messageId: `life-${randomBytes(4).toString('hex')}`,
        role: 'ROLE_USER',
        parts: [{ text: 'reconcile invoice INV-20931 against the PO' }],
        metadata: { skillId: GATEWAY_CAPABILITY },
      };
      const res = await a2aRpc(stack.nodeUrl, 'SendMessage', { message }, bearer(token));
      return { status: res.status, state: res.body.result?.task?.status?.state as string | undefined };
    };
    const mark = () => target.upstream?.seen.length ?? 0;
    /** A send with `token` is refused (401) and, through the gateway, nothing reaches the upstream. */
    const sendRefused = async (token: string) => {
      const from = mark();
      expect((await send(token)).status).toBe(401);
      expect(target.upstream?.seen.slice(from) ?? []).toEqual([]);
    };

    it('accepts a well-formed token of each kind (the control case)', async () => {
      if (controlPlane) expect(await adminReason(raw(admin({ iat: now(), exp: now() + 600 })))).toBe('ACCEPTED');
      expect(await a2aStatus(raw(a2a({ iat: now(), exp: now() + 600 })))).toBe(200);
      if (controlPlane) expect(await nodeStatus(raw(node({ iat: now(), exp: now() + 600 })))).toBe(200);
      const from = mark();
      expect(await send(raw(a2a({ iat: now(), exp: now() + 600 })))).toMatchObject({ status: 200, state: 'TASK_STATE_COMPLETED' });
      expect((target.upstream?.seen.slice(from) ?? []).map((r) => r.method)).toEqual(kind === 'gateway' ? ['SendMessage'] : []);
    });

    it('refuses tokens without exp on every surface', async () => {
      if (controlPlane) expect(await adminReason(raw(admin({ iat: now() })))).toBe('TOKEN_BAD_CLAIMS');
      expect(await a2aStatus(raw(a2a({ iat: now() })))).toBe(401);
      if (controlPlane) expect(await nodeStatus(raw(node({ iat: now() })))).toBe(401);
      await sendRefused(raw(a2a({ iat: now() })));
    });

    it('refuses tokens without iat on every surface', async () => {
      if (controlPlane) expect(await adminReason(raw(admin({ exp: now() + 600 })))).toBe('TOKEN_BAD_CLAIMS');
      expect(await a2aStatus(raw(a2a({ exp: now() + 600 })))).toBe(401);
      if (controlPlane) expect(await nodeStatus(raw(node({ exp: now() + 600 })))).toBe(401);
      await sendRefused(raw(a2a({ exp: now() + 600 })));
    });

    it("refuses a lifetime longer than the kind's maximum (admin 12 h, a2a 1 h, node 30 d)", async () => {
      if (controlPlane) {
        expect(await adminReason(raw(admin({ iat: now(), exp: now() + 13 * 3600 })))).toBe('TOKEN_LIFETIME_TOO_LONG');
        expect(await adminReason(raw(admin({ iat: now(), exp: now() + 12 * 3600 })))).toBe('ACCEPTED');
      }
      expect(await a2aStatus(raw(a2a({ iat: now(), exp: now() + 2 * 3600 })))).toBe(401);
      if (controlPlane) expect(await nodeStatus(raw(node({ iat: now(), exp: now() + 31 * 24 * 3600 })))).toBe(401);
      await sendRefused(raw(a2a({ iat: now(), exp: now() + 2 * 3600 })));
    });

    it('refuses an iat in the future beyond the clock skew', async () => {
      if (controlPlane) expect(await adminReason(raw(admin({ iat: now() + 600, exp: now() + 1200 })))).toBe('TOKEN_NOT_YET_VALID');
      expect(await a2aStatus(raw(a2a({ iat: now() + 600, exp: now() + 1200 })))).toBe(401);
      await sendRefused(raw(a2a({ iat: now() + 600, exp: now() + 1200 })));
      // Within the skew (a few seconds) is fine: clocks differ.
      if (controlPlane) expect(await adminReason(raw(admin({ iat: now() + 2, exp: now() + 600 })))).toBe('ACCEPTED');
      expect((await send(raw(a2a({ iat: now() + 2, exp: now() + 600 })))).state).toBe('TASK_STATE_COMPLETED');
    });

    it('refuses a crit header naming anything (no extension is understood here)', async () => {
      const good = { iat: now(), exp: now() + 600 };
      if (controlPlane) {
        expect(await adminReason(raw(admin(good), { crit: ['exp'] }))).toBe('TOKEN_CRITICAL_HEADER');
        expect(await adminReason(raw(admin(good), { crit: ['b64'], b64: true }))).toBe('TOKEN_CRITICAL_HEADER');
        expect(await adminReason(raw(admin(good), { crit: [] }))).toBe('TOKEN_CRITICAL_HEADER');
      }
      expect(await a2aStatus(raw(a2a(good), { crit: ['urn:example:policy'] }))).toBe(401);
      if (controlPlane) expect(await nodeStatus(raw(node(good), { crit: ['urn:example:policy'] }))).toBe(401);
      await sendRefused(raw(a2a(good), { crit: ['urn:example:policy'] }));
      await sendRefused(raw(a2a(good), { crit: [] }));
    });

    it('refuses an expired token, also to continue a task it started; nothing reaches the upstream', async () => {
      const live = raw(a2a({ iat: now(), exp: now() + 600 }));
      const expired = raw(a2a({ iat: now() - 700, exp: now() - 60 }));
      expect(await a2aStatus(expired)).toBe(401);
      await sendRefused(expired);
      // A waiting task: the router's question in process, the upstream's input-required through the gateway.
      const message = (text: string, extra: Json = {}) => ({
        messageId: `life-${randomBytes(4).toString('hex')}`,
        role: 'ROLE_USER',
        parts: [{ text }],
        ...(kind === 'gateway' ? { metadata: { skillId: GATEWAY_CAPABILITY } } : {}),
        ...extra,
      });
      const started = await a2aRpc(
        stack.nodeUrl,
        'SendMessage',
        { message: message(kind === 'gateway' ? 'reconcile INV-7, ask me which PO' : 'what is the status of my invoice?') },
        bearer(live),
      );
      const task = started.body.result.task as Json;
      expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const continuedBefore = target.upstream?.continued.length ?? 0;
      const from = mark();
      const reply = (token: string) =>
        a2aRpc(
          stack.nodeUrl,
          'SendMessage',
          { message: message('PO-4471', { taskId: task.id, contextId: task.contextId }) },
          bearer(token),
        );
      expect((await reply(expired)).status).toBe(401);
      expect(target.upstream?.seen.slice(from) ?? []).toEqual([]);
      expect(target.upstream?.continued.length ?? 0).toBe(continuedBefore);
      // The control case: the same reply with a live token continues the task (through the gateway, upstream).
      expect((await reply(live)).status).toBe(200);
      expect(target.upstream?.continued.length ?? 0).toBe(kind === 'gateway' ? continuedBefore + 1 : 0);
    });

    if (kind === 'in-process') {
      it('holds for tool tokens at the tool: no exp, or longer than 300 s, is refused', async () => {
        const tool = new JwtVerifier({
          algorithms: ['HS256'],
          secret: stack.cpConfig.JWT_SECRET,
          issuer: stack.cpConfig.JWT_ISSUER,
          audience: 'tool:erp',
        });
        const claims = (extra: Json) => ({
          token_use: 'tool',
          sub: 'n',
          tenant: 'acme-partner',
          scope: 'recon.run',
          tool: 'erp',
          capability: 'reconcile-invoice',
          act_sub: 'p',
          iss: stack.cpConfig.JWT_ISSUER,
          aud: 'tool:erp',
          ...extra,
        });
        await expect(tool.verify(raw(claims({ iat: now(), exp: now() + 300 })), 'tool')).resolves.toMatchObject({ tool: 'erp' });
        await expect(tool.verify(raw(claims({ iat: now() })), 'tool')).rejects.toMatchObject({ code: 'TOKEN_BAD_CLAIMS' });
        await expect(tool.verify(raw(claims({ iat: now(), exp: now() + 3600 })), 'tool')).rejects.toMatchObject({
          code: 'TOKEN_LIFETIME_TOO_LONG',
        });
      });
    }

    if (kind === 'gateway') {
      it("the upstream's token lives at most 300 s and never past the caller's exp", async () => {
        const jwks = await jwksOf(stack);
        for (const life of [3000, 600, 30]) {
          const callerExp = now() + life;
          const caller = raw(a2a({ iat: now(), exp: callerExp }));
          const from = mark();
          expect((await send(caller)).state).toBe('TASK_STATE_COMPLETED');
          const calls = target.upstream!.seen.slice(from);
          expect(calls.map((c) => c.method)).toEqual(['SendMessage']);
          const claims = await upstreamClaims(stack, jwks, target.upstream!.jsonrpc, calls[0].authorization, caller);
          expect(claims).toMatchObject({ token_use: 'upstream', capability: GATEWAY_CAPABILITY });
          expect(typeof claims.iat).toBe('number');
          expect(typeof claims.exp).toBe('number');
          expect(claims.exp! - claims.iat!).toBeLessThanOrEqual(300);
          expect(claims.exp!).toBeLessThanOrEqual(callerExp);
        }
      });
    }
  });
}
