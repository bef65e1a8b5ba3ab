/**
 * Fuzzing the running apps with fast-check (issue 11 "Tests"), as a describe factory over a target
 * (issue 28: in process, and a gateway node in front of an `@a2a-js/sdk` upstream): random and
 * mutated JWTs (alg, kid, crit, typ, exp, unicode and CR/LF, huge, nested) against the admin
 * GraphQL API, the node API's token exchange and the agent node's A2A JSON-RPC and REST bindings,
 * plus random and mutated JSON-RPC envelopes and REST bodies. Properties, for every input:
 *   - never a 5xx;
 *   - the registry never changes (no fuzz caller is an admin that may write);
 *   - nothing extended-only leaks: no fuzz caller is entitled to reconcile-invoice (no token it
 *     sends carries recon.run), so its description and name never appear in an answer, and no
 *     tool token is ever minted for it;
 *   - through a gateway, no fuzz input ever reaches the upstream.
 * Bounded: a fixed number of runs per endpoint (RUNS), printed at the end.
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { a2aAudience, mintA2AToken } from '@cp/auth';
import { financeAgentExample } from '@cp/capabilities';
import { AGENT, bearer, type SecurityStack } from './stack';
import { startTarget, type Target, type TargetKind } from './targets';

const RUNS = 300;
const SEED = 1111;

const reconcile = financeAgentExample().manifests.find((m) => m.id === 'reconcile-invoice')!;
/** Strings only an entitled caller may ever see. */
const EXTENDED_ONLY = [reconcile.skill.description, reconcile.skill.name];

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

// ---- arbitraries -------------------------------------------------------------------------------

const hostileText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('HS256\r\nX-Injected: 1', 'RS256\n', '\u202eHS256', 'HS256\u0000', '"', '\\', '', ' ', '\u200b'),
  fc.integer({ min: 1000, max: 20_000 }).map((n) => 'A'.repeat(n)),
);
const anyJson = fc.jsonValue({ maxDepth: 4 });
const nested = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.record({ x: tie('node') }), fc.array(tie('node'), { maxLength: 2 })),
})).node;

const header = fc.record(
  {
    alg: fc.oneof(fc.constantFrom('HS256', 'RS256', 'ES256', 'none', 'HS512', 'PS256'), hostileText, anyJson),
    kid: fc.oneof(hostileText, anyJson),
    typ: fc.oneof(fc.constantFrom('JWT', 'at+jwt', 'JOSE'), hostileText),
    crit: fc.oneof(fc.constant([]), fc.array(fc.constantFrom('exp', 'b64', 'urn:x'), { maxLength: 3 }), anyJson),
    b64: fc.boolean(),
    jku: fc.constantFrom('http://127.0.0.1:1/jwks.json', 'file:///etc/passwd'),
    x: nested,
  },
  { requiredKeys: ['alg'] },
);

const now = () => Math.floor(Date.now() / 1000);
const timestamp = fc.oneof(
  fc.integer({ min: -3600, max: 3 * 24 * 3600 }).map((d) => now() + d),
  fc.constantFrom(0, -1, Number.MAX_SAFE_INTEGER, 1e308, 2 ** 53 + 1),
  fc.double(),
  hostileText,
  anyJson,
);
/** Never carries recon.run: no fuzz caller may be entitled to reconcile-invoice. */
const scope = fc.oneof(
  fc.constantFrom('', 'payroll.run', 'invoices.read', 'recon.runx', 'recon', 'RECON.RUN'),
  hostileText.filter((s) => !s.split(/\s/).includes('recon.run')),
  fc.array(fc.constantFrom('recon.run', 'x')),
);
/** Admin roles that are never a valid role: no fuzz caller may read or write the registry. */
const role = fc.oneof(fc.constantFrom('root', 'admin', 'Platform-Admin', 'viewer ', ''), hostileText);

const payload = (cfg: SecurityStack['cpConfig']) =>
  fc.record(
    {
      token_use: fc.oneof(fc.constantFrom('admin', 'node', 'a2a', 'tool'), hostileText, anyJson),
      sub: fc.oneof(hostileText, anyJson),
      tenant: fc.oneof(fc.constantFrom('acme-partner', 'globex', 'anonymous'), hostileText),
      scope,
      roles: fc.array(role, { maxLength: 3 }),
      agent_id: fc.oneof(fc.constantFrom(AGENT, 'payroll-agent'), hostileText),
      iss: fc.oneof(fc.constant(cfg.JWT_ISSUER), hostileText),
      aud: fc.oneof(fc.constantFrom(cfg.JWT_AUDIENCE, a2aAudience(cfg, AGENT), 'a2a-agents'), fc.array(hostileText, { maxLength: 3 })),
      exp: timestamp,
      iat: timestamp,
      nbf: timestamp,
      x: nested,
    },
    { requiredKeys: ['token_use', 'aud', 'iss'] },
  );

/** A whole token: signed with the deployment's secret over the hostile header (so it reaches the claim checks), a wrong secret, or garbage. */
const token = (cfg: SecurityStack['cpConfig']) =>
  fc.oneof(
    fc.tuple(header, payload(cfg), fc.constantFrom('real', 'wrong', 'none', 'garbage')).map(([h, p, how]) => {
      const input = `${b64(h)}.${b64(p)}`;
      if (how === 'none') return `${input}.`;
      if (how === 'garbage') return `${input}.${b64('x'.repeat(32))}`;
      const secret = how === 'real' ? cfg.JWT_SECRET : 'not-the-secret-not-the-secret-0123456789';
      return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
    }),
    // Mutations of a VALID unentitled partner token: flip, cut, splice, reorder segments.
    fc
      .tuple(fc.nat(), fc.constantFrom('flip', 'cut', 'dots', 'swap', 'pad'), fc.string({ minLength: 1, maxLength: 1 }))
      .map(([at, op, c]) => {
        const valid = mintA2AToken(cfg, 'fuzz@acme-partner', 'acme-partner', ['invoices.read'], 600);
        const i = at % valid.length;
        const safe = /[A-Za-z0-9._~+/=-]/.test(c) ? c : 'A';
        if (op === 'flip') return valid.slice(0, i) + safe + valid.slice(i + 1);
        if (op === 'cut') return valid.slice(0, i);
        if (op === 'dots') return valid.replace(/\./g, '..');
        if (op === 'swap') return valid.split('.').reverse().join('.');
        return `${valid}${safe.repeat(i % 50)}`;
      }),
  );

// ---- the suite ---------------------------------------------------------------------------------

/**
 * The suite over one target (see `./targets`): in process, or a gateway node in front of the SDK
 * upstream. Through a gateway, no fuzz caller is entitled to the capability the upstream serves,
 * so besides the properties above nothing may ever reach the upstream.
 */
export function fuzzHostileInputs(kind: TargetKind): void {
  describe(`fuzzing hostile inputs never faults, changes the registry or leaks (issue 11), ${kind}`, () => {
    let target: Target;
    let stack: SecurityStack;
    const tried: Record<string, number> = {};
    beforeAll(async () => {
      target = await startTarget(kind, 'fuzz');
      stack = target.stack;
    });
    afterAll(async () => {
      console.log(`fuzz inputs per endpoint (${kind}): ${JSON.stringify(tried)}`);
      await target?.close();
    });

    const fingerprint = async () => {
      const p = stack.prisma;
      const [agents, manifests, tools, tenants, scopes, optIns, audit] = await Promise.all([
        p.agent.findMany({ select: { id: true, revision: true, updatedAt: true }, orderBy: { id: 'asc' } }),
        p.capabilityManifest.findMany({ select: { capabilityId: true, updatedAt: true, tools: true }, orderBy: { capabilityId: 'asc' } }),
        p.tool.findMany({ orderBy: { name: 'asc' } }),
        p.tenant.count(),
        p.scope.count(),
        p.previewOptIn.count(),
        p.auditEvent.count(),
      ]);
      return JSON.stringify({ agents, manifests, tools, tenants, scopes, optIns, audit });
    };

    /** Sends one request; asserts the properties that hold for every answer. */
    const probe = async (endpoint: string, url: string, init: RequestInit): Promise<{ status: number; text: string }> => {
      tried[endpoint] = (tried[endpoint] ?? 0) + 1;
      let res: Response;
      try {
        res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
      } catch (error) {
        // The client itself refused to send it (e.g. a header value it cannot encode): not an answer.
        if (error instanceof TypeError && !/fetch failed/.test(error.message)) return { status: 0, text: '' };
        throw error;
      }
      const text = await res.text();
      if (res.status >= 500) throw new Error(`${endpoint} answered ${res.status}: ${text.slice(0, 300)}`);
      for (const secret of EXTENDED_ONLY) if (text.includes(secret)) throw new Error(`${endpoint} leaked "${secret}"`);
      for (const [name, value] of res.headers) if (/[\r\n]/.test(value)) throw new Error(`${endpoint}: header ${name} holds CR/LF`);
      return { status: res.status, text };
    };

    const run = async (prop: fc.IAsyncProperty<never>) => {
      const before = await fingerprint();
      await fc.assert(prop, { numRuns: RUNS, seed: SEED, endOnFailure: true });
      expect(await fingerprint()).toBe(before);
      // Through a gateway: no fuzz caller is entitled, so not one request reached the upstream.
      if (target.upstream) expect(target.upstream.seen).toEqual([]);
    };

    it('admin GraphQL: hostile tokens (queries and mutations)', async () => {
      const docs = [
        '{ me { subject roles } }',
        '{ manifest(agentId: "finance-agent", capabilityId: "reconcile-invoice") { skill { name description } document } }',
        'mutation { updateAgent(input: {id: "finance-agent", expectedRevision: 1, description: "pwned"}) { revision } }',
      ];
      await run(
        fc.asyncProperty(token(stack.cpConfig), fc.constantFrom(...docs), async (t, query) => {
          const { text } = await probe('graphql', `${stack.cpUrl}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...bearer(t) },
            body: JSON.stringify({ query }),
          });
          if (text) expect(JSON.parse(text).data ?? null).toBeNull();
        }) as never,
      );
    });

    it('node API token exchange: hostile node tokens, subject tokens and bodies never mint a token', async () => {
      const body = fc.oneof(
        fc.record({
          subjectToken: token(stack.cpConfig),
          tool: fc.oneof(fc.constantFrom('erp', 'no-such-tool'), hostileText),
          capabilityId: fc.oneof(fc.constantFrom('reconcile-invoice', 'invoice-lookup'), hostileText),
        }),
        anyJson,
      );
      const nodeToken = fc.oneof(fc.constant(stack.nodeConfig.NODE_TOKEN!), token(stack.cpConfig));
      await run(
        fc.asyncProperty(nodeToken, body, async (n, b) => {
          const { status, text } = await probe('token-exchange', `${stack.cpUrl}/node/v1/token-exchange`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...bearer(n) },
            body: JSON.stringify(b),
          });
          if (status !== 0) expect(text).not.toContain('accessToken');
        }) as never,
      );
    });

    const METHODS = ['SendMessage', 'GetTask', 'ListTasks', 'CancelTask', 'GetExtendedAgentCard', 'SendStreamingMessage', 'Nope'];
    const message = fc.record({
      message: fc.record(
        {
          messageId: fc.oneof(fc.uuid(), hostileText),
          role: fc.oneof(fc.constantFrom('ROLE_USER', 'ROLE_AGENT'), hostileText),
          parts: fc.oneof(
            fc.array(fc.record({ text: fc.oneof(fc.constant('Reconcile invoice INV-20931 against its PO'), hostileText) }), {
              maxLength: 3,
            }),
            anyJson,
          ),
          metadata: fc.oneof(anyJson, fc.constant({ skillId: 'reconcile-invoice' })),
        },
        { requiredKeys: ['messageId'] },
      ),
    });

    it('A2A JSON-RPC: hostile tokens with every method', async () => {
      await run(
        fc.asyncProperty(fc.option(token(stack.cpConfig)), fc.constantFrom(...METHODS), message, async (t, method, params) => {
          await probe('a2a-jsonrpc (tokens)', `${stack.nodeUrl}/a2a/jsonrpc`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...(t ? bearer(t) : {}) },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
          });
        }) as never,
      );
    });

    it('A2A JSON-RPC: random and mutated envelopes', async () => {
      const envelope = fc.oneof(
        anyJson,
        nested,
        fc.record(
          {
            jsonrpc: fc.oneof(fc.constant('2.0'), anyJson),
            id: fc.oneof(fc.integer(), fc.string(), fc.constant(null), anyJson),
            method: fc.oneof(fc.constantFrom(...METHODS), hostileText, anyJson),
            params: fc.oneof(message, anyJson, nested),
          },
          { requiredKeys: [] },
        ),
        fc.array(fc.record({ jsonrpc: fc.constant('2.0'), id: fc.nat(), method: fc.constantFrom(...METHODS) }), { maxLength: 3 }),
      );
      const raw = fc.oneof(
        envelope.map((e) => JSON.stringify(e)),
        fc.string({ maxLength: 200 }),
        fc.constantFrom('{', '[]', '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":', 'null', '"x"', '{"__proto__":{"x":1}}'),
      );
      await run(
        fc.asyncProperty(raw, fc.constantFrom('application/json', 'application/a2a+json', 'text/plain'), async (body, type) => {
          await probe('a2a-jsonrpc (envelopes)', `${stack.nodeUrl}/a2a/jsonrpc`, {
            method: 'POST',
            headers: { 'content-type': type, 'a2a-version': '1.0' },
            body,
          });
        }) as never,
      );
    });

    it('A2A REST: hostile tokens and bodies on every route', async () => {
      const route = fc.oneof(
        fc.constant({ method: 'POST', path: '/message:send' }),
        fc.constant({ method: 'GET', path: '/extendedAgentCard' }),
        fc.constant({ method: 'GET', path: '/tasks' }),
        fc.oneof(fc.uuid(), fc.string({ maxLength: 30 })).map((id) => ({ method: 'GET', path: `/tasks/${encodeURIComponent(id)}` })),
        fc
          .oneof(fc.uuid(), fc.string({ maxLength: 30 }))
          .map((id) => ({ method: 'POST', path: `/tasks/${encodeURIComponent(id)}:cancel` })),
      );
      const body = fc.oneof(
        message.map((m) => JSON.stringify(m)),
        anyJson.map((j) => JSON.stringify(j)),
        fc.string({ maxLength: 200 }),
      );
      await run(
        fc.asyncProperty(fc.option(token(stack.cpConfig)), route, body, async (t, r, b) => {
          await probe('a2a-rest', `${stack.nodeUrl}/a2a/rest${r.path}`, {
            method: r.method,
            headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0', ...(t ? bearer(t) : {}) },
            body: r.method === 'POST' ? b : undefined,
          });
        }) as never,
      );
    });

    it('counted every input it sent', () => {
      expect(Object.keys(tried).length).toBeGreaterThanOrEqual(5);
      for (const n of Object.values(tried)) expect(n).toBeGreaterThanOrEqual(RUNS);
    });
  });
}
