/**
 * Automatic promotion of clarifications (issue 31 §3, ADR 0336) on a real database: off by default;
 * with CLARIFICATION_AUTO_PROMOTE_AFTER=N, the N-th identical answer of the same tenant is promoted
 * as an example through the admin's path (validated, leak-checked, audited as system:auto-promotion).
 * Hostile answers (a capability the tenant cannot be routed to, control characters, 100 KB, text
 * that would leak) promote nothing and say why; and, whatever the answers, no caller is ever
 * routed to or offered a capability it is not entitled to (property).
 */
import fc from 'fast-check';
import type { NodePrincipal } from '@cp/auth';
import { buildRouterIndex, entitlement, route, type Caller, type CapabilityManifest, type RegistrySnapshot } from '@cp/capabilities';
import { RegistrySnapshotRepository } from '@cp/db';
import { NodeInputError } from '../../apps/control-plane/src/node-auth/node-http-error';
import { RoutingFeedbackModule } from '../../apps/control-plane/src/routing-feedback/routing-feedback.module';
import {
  AUTO_PROMOTION_ACTOR,
  RoutingClarificationsService,
  type IngestOutcome,
} from '../../apps/control-plane/src/routing-feedback/routing-clarifications.service';
import type { GivenAgent } from '../support/given-db';
import { serviceModule } from '../support/service-module';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const N = 3;

describe('automatic promotion of clarifications (service tier, ADR 0336)', () => {
  let db: TestDatabase;
  let on: Awaited<ReturnType<typeof serviceModule>>;
  let off: Awaited<ReturnType<typeof serviceModule>>;
  let sut: RoutingClarificationsService;
  let snapshots: RegistrySnapshotRepository;

  beforeAll(async () => {
    db = await createTestDatabase('svc_auto_promotion');
    on = await serviceModule(db, [RoutingFeedbackModule], { CLARIFICATION_AUTO_PROMOTE_AFTER: String(N) });
    off = await serviceModule(db, [RoutingFeedbackModule]);
    sut = on.get(RoutingClarificationsService);
    snapshots = on.get(RegistrySnapshotRepository);
  });
  afterAll(async () => {
    await on?.close();
    await off?.close();
    await db?.drop();
  });

  const nodeOf = (agent: GivenAgent): NodePrincipal => ({ kind: 'node', subject: `node-of-${agent.id}`, agentId: agent.id });
  const examplesOf = async (agentId: string, capabilityId: string) =>
    ((await on.given.prisma.capabilityManifest.findFirstOrThrow({ where: { agentId, capabilityId } })).skill as { examples?: string[] })
      .examples ?? [];
  const answer = (service: RoutingClarificationsService, agent: GivenAgent, capabilityId: string, text: string, tenant = 'acme') =>
    service.ingest(nodeOf(agent), { choices: [{ text, capabilityId, tenant }] });
  const answerTimes = async (times: number, ...args: Parameters<typeof answer>): Promise<IngestOutcome[]> => {
    const out: IngestOutcome[] = [];
    for (let i = 0; i < times; i++)
      out.push(await args[0].ingest(nodeOf(args[1]), { choices: [{ text: args[3], capabilityId: args[2], tenant: args[4] ?? 'acme' }] }));
    return out;
  };

  it('is off by default: the same answer many times promotes nothing', async () => {
    const agent = await on.given.agent();
    const cap = await on.given.manifest(agent);
    const outcomes = await answerTimes(N + 2, off.get(RoutingClarificationsService), agent, cap.id, 'settle the open bill');
    expect(outcomes.at(-1)).toEqual({ accepted: 1, autoPromoted: [], notPromoted: [] });
    expect(await examplesOf(agent.id, cap.id)).toEqual([]);
    expect(await on.given.revisionOf(agent.id)).toBe(1);
  });

  it('promotes the N-th identical answer of one tenant as an example, audited as automatic, once', async () => {
    const agent = await on.given.agent();
    const cap = await on.given.manifest(agent);
    const outcomes = await answerTimes(N, sut, agent, cap.id, 'settle the open bill');
    expect(outcomes.slice(0, N - 1).every((o) => o.autoPromoted.length === 0)).toBe(true);
    expect(outcomes[N - 1]).toEqual({
      accepted: 1,
      autoPromoted: [{ id: expect.any(String), capabilityId: cap.id, revision: 2 }],
      notPromoted: [],
    });
    expect(await examplesOf(agent.id, cap.id)).toEqual(['settle the open bill']);
    const audit = await on.given.prisma.auditEvent.findMany({ where: { agentId: agent.id, revision: 2 } });
    expect(audit.map((a) => [a.actor, a.action, a.targetId])).toEqual([[AUTO_PROMOTION_ACTOR, 'manifest.update', `${agent.id}/${cap.id}`]]);
    // Once promoted, more identical answers only count.
    expect(await answer(sut, agent, cap.id, 'settle the open bill')).toEqual({ accepted: 1, autoPromoted: [], notPromoted: [] });
    expect(await on.given.revisionOf(agent.id)).toBe(2);
  });

  it('does not add up answers of different tenants, nor promote one an admin dismissed', async () => {
    const agent = await on.given.agent();
    const cap = await on.given.manifest(agent);
    for (const tenant of ['acme', 'globex', 'initech']) await answerTimes(N - 1, sut, agent, cap.id, 'settle the open bill', tenant);
    await answer(sut, agent, cap.id, 'close the books', 'acme');
    const row = await on.given.prisma.routingClarification.findFirstOrThrow({ where: { agentId: agent.id, text: 'close the books' } });
    await on.given.prisma.routingClarification.update({ where: { id: row.id }, data: { status: 'dismissed' } });
    expect((await answerTimes(N, sut, agent, cap.id, 'close the books')).flatMap((o) => o.autoPromoted)).toEqual([]);
    expect(await examplesOf(agent.id, cap.id)).toEqual([]);
    expect(await on.given.revisionOf(agent.id)).toBe(1);
  });

  describe('hostile answers promote nothing and say why', () => {
    it.each([
      [
        'a capability limited to other tenants',
        { tenants: ['globex'] },
        /tenant "acme" may not be routed to ".*": tenant "acme" is not among the allowed tenants/,
      ],
      ['an internal capability', { visibility: 'internal' }, /may not be routed to ".*": internal capabilities are never advertised/],
      [
        'a preview the tenant has not opted in to',
        { state: 'preview' },
        /may not be routed to ".*": tenant "acme" has not opted in to previews/,
      ],
    ] as [string, Partial<CapabilityManifest>, RegExp][])('an answer naming %s', async (_what, overrides, reason) => {
      const agent = await on.given.agent();
      const cap = await on.given.manifest(agent, overrides);
      const last = (await answerTimes(N, sut, agent, cap.id, 'settle the open bill')).at(-1)!;
      expect(last.autoPromoted).toEqual([]);
      expect(last.notPromoted).toEqual([{ id: expect.any(String), capabilityId: cap.id, reason: expect.stringMatching(reason) }]);
      expect(await examplesOf(agent.id, cap.id)).toEqual([]);
      expect(await on.given.revisionOf(agent.id)).toBe(1);
    });

    it.each([
      ['a bell and an escape', 'settle \u0007the bill\u001b[2J'],
      ['a right-to-left override', 'settle the \u202ebill'],
      ['a zero-width space', 'settle the\u200b bill'],
      ['a DEL', 'settle the bill\u007f'],
    ])('text with %s', async (_what, text) => {
      const agent = await on.given.agent();
      const cap = await on.given.manifest(agent);
      const last = (await answerTimes(N, sut, agent, cap.id, text)).at(-1)!;
      expect(last).toEqual({
        accepted: 1,
        autoPromoted: [],
        notPromoted: [{ id: expect.any(String), capabilityId: cap.id, reason: 'the text holds control or format characters' }],
      });
      expect(await examplesOf(agent.id, cap.id)).toEqual([]);
    });

    it('a NUL character is refused whole (400 naming the field): nothing recorded, nothing promoted', async () => {
      const agent = await on.given.agent();
      const cap = await on.given.manifest(agent);
      const error = await answer(sut, agent, cap.id, 'settle\u0000 the bill').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NodeInputError);
      expect((error as NodeInputError).issues?.map((x) => x.path)).toEqual(['$.choices[0].text']);
      expect(await on.given.prisma.routingClarification.count({ where: { agentId: agent.id } })).toBe(0);
    });

    it('a 100 KB answer is refused whole (400 naming the field): nothing recorded, nothing promoted', async () => {
      const agent = await on.given.agent();
      const cap = await on.given.manifest(agent);
      for (let i = 0; i < N; i++) {
        const error = await answer(sut, agent, cap.id, 'x'.repeat(100_000)).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(NodeInputError);
        expect((error as NodeInputError).issues?.map((x) => x.path)).toEqual(['$.choices[0].text']);
      }
      expect(await on.given.prisma.routingClarification.count({ where: { agentId: agent.id } })).toBe(0);
      expect(await on.given.revisionOf(agent.id)).toBe(1);
    });

    it("an answer whose text would show an extended skill's name in the public card: the leak is named", async () => {
      const agent = await on.given.agent();
      const open = await on.given.manifest(agent, { visibility: 'public' });
      const hidden = await on.given.manifest(agent, {
        skill: { name: 'Wire the payroll reserve', description: 'Moves payroll money.', tags: ['testing'] },
      });
      const last = (await answerTimes(N, sut, agent, open.id, 'please wire the payroll reserve today')).at(-1)!;
      expect(last.autoPromoted).toEqual([]);
      expect(last.notPromoted).toEqual([
        {
          id: expect.any(String),
          capabilityId: open.id,
          reason: `the public card would show text of non-public skills (${hidden.id}.name)`,
        },
      ]);
      expect(await examplesOf(agent.id, open.id)).toEqual([]);
      expect(await on.given.revisionOf(agent.id)).toBe(1);
    });
  });

  it('property: whatever the answers, no caller is routed to or offered a capability it is not entitled to, and entitlement never changes', async () => {
    const TENANTS = ['acme', 'globex', 'initech'];
    const SCOPES = ['ap.read', 'ap.manage'];
    const WORDS = ['invoice', 'payroll', 'refund', 'secret', 'vendor', 'wire', 'bill'];
    const shapeArb = fc.record({
      visibility: fc.constantFrom<CapabilityManifest['visibility']>('public', 'extended', 'internal'),
      state: fc.constantFrom<CapabilityManifest['state']>('ga', 'preview'),
      tenants: fc.oneof(fc.constant<'*'>('*'), fc.subarray(TENANTS, { minLength: 1, maxLength: 2 })),
      scopes: fc.subarray(SCOPES, { maxLength: 1 }),
      word: fc.constantFrom(...WORDS),
    });
    const replyArb = fc.record({
      capability: fc.nat(),
      tenant: fc.constantFrom(...TENANTS),
      // Answers name capabilities' words, their ids, or anything; each repeated up to N + 1 times.
      words: fc.array(fc.oneof(fc.constantFrom(...WORDS), fc.constantFrom('capability', 'skill', 'number')), {
        minLength: 1,
        maxLength: 4,
      }),
      times: fc.integer({ min: 1, max: N + 1 }),
    });
    const callers: Caller[] = [
      null,
      ...TENANTS.flatMap((tenant) => [[], ['ap.read'], SCOPES].map((scopes) => ({ principal: `user@${tenant}`, tenant, scopes }))),
    ];
    const routable = (snapshot: RegistrySnapshot, caller: Caller) =>
      snapshot.manifests
        .filter((m) => entitlement(m, caller, snapshot).routable)
        .map((m) => m.id)
        .sort();
    let promotions = 0;
    const entitlementFields = (s: RegistrySnapshot) => s.manifests.map((m) => [m.id, m.state, m.visibility, m.requiresScopes, m.tenants]);

    await fc.assert(
      fc.asyncProperty(
        fc.array(shapeArb, { minLength: 1, maxLength: 4 }),
        fc.array(replyArb, { minLength: 1, maxLength: 6 }),
        fc.option(fc.constantFrom(...TENANTS), { nil: undefined }),
        async (shapes, replies, optIn) => {
          const agent = await on.given.agent();
          const caps: CapabilityManifest[] = [];
          for (const s of shapes) {
            const open = s.visibility === 'public';
            caps.push(
              await on.given.manifest(agent, {
                visibility: s.visibility,
                state: s.state,
                tenants: open ? '*' : s.tenants,
                requiresScopes: open ? [] : s.scopes,
                skill: { name: `Handle ${s.word} ${caps.length}`, description: `Handles the ${s.word} work.`, tags: ['testing'] },
              }),
            );
          }
          if (optIn) {
            await on.given.prisma.tenant.upsert({ where: { id: optIn }, create: { id: optIn, name: optIn }, update: {} });
            await on.given.optIn(optIn, agent.id);
          }
          const before = (await snapshots.snapshot(agent.id))!;
          const promotedTenants: [string, string][] = [];
          for (const r of replies) {
            const cap = caps[r.capability % caps.length];
            for (let i = 0; i < r.times; i++) {
              const outcome = await answer(sut, agent, cap.id, r.words.join(' '), r.tenant);
              for (const p of outcome.autoPromoted) promotedTenants.push([r.tenant, p.capabilityId]);
              promotions += outcome.autoPromoted.length;
            }
          }
          const after = (await snapshots.snapshot(agent.id))!;
          // Promotion adds text only: state, visibility, scopes and tenants are as they were, so every caller's entitled set is too.
          expect(entitlementFields(after)).toEqual(entitlementFields(before));
          for (const caller of callers) expect(routable(after, caller)).toEqual(routable(before, caller));
          // Each promotion was of a capability its tenant may be routed to.
          for (const [tenant, id] of promotedTenants) {
            const m = after.manifests.find((x) => x.id === id)!;
            expect(entitlement(m, { principal: tenant, tenant, scopes: [...m.requiresScopes] }, after).routable).toBe(true);
          }
          // And the router, with everything learned, never routes to or offers anything outside the caller's set.
          for (const caller of callers) {
            const entitled = new Set(routable(after, caller));
            const index = buildRouterIndex(after, caller);
            for (const r of replies) {
              const result = route({ messageId: 'm', role: 'ROLE_USER', parts: [{ text: r.words.join(' ') }] }, caller, index);
              if (result.kind === 'routed') expect(entitled.has(result.entry.id)).toBe(true);
              if (result.kind === 'input-required') for (const c of result.candidates) expect(entitled.has(c.id)).toBe(true);
            }
          }
        },
      ),
      { numRuns: 25 },
    );
    // Not vacuous: the generated answers did promote.
    expect(promotions).toBeGreaterThan(0);
  });
});
