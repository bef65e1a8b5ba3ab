/** UsageService with its repository and AgentsService on a real database (service tier). */
import { CommonErrorCode, InputValidationError } from '../../apps/control-plane/src/common/errors';
import { RequestLoaders } from '../../apps/control-plane/src/common/graphql/request-loaders';
import { UsageModule } from '../../apps/control-plane/src/usage/usage.module';
import { UsageService } from '../../apps/control-plane/src/usage/usage.service';
import type { UsageDay } from '../../apps/control-plane/src/usage/usage.repository';
import { principal, serviceModule } from '../support/service-module';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

describe('UsageService (service tier)', () => {
  let db: TestDatabase;
  let ctx: Awaited<ReturnType<typeof serviceModule>>;
  let sut: UsageService;
  let agent: { id: string; teamId: string };
  const viewer = principal(['viewer']);

  beforeAll(async () => {
    db = await createTestDatabase('svc_usage');
    ctx = await serviceModule(db, [UsageModule]);
    sut = ctx.get(UsageService);
    agent = await ctx.given.agent();
    for (const id of ['lookup', 'recon', 'never-called']) await ctx.given.manifest(agent, { id });
    const [t1, t2] = [await ctx.given.tenant(), await ctx.given.tenant()];
    const [n1, n2] = [await ctx.given.node(agent.id), await ctx.given.node(agent.id)];
    const at = (day: string, hour: number) => new Date(`${day}T${String(hour).padStart(2, '0')}:00:00Z`);
    // Two nodes report the same (day, capability, tenant): the service sums them.
    for (const [nodeId, count, hour] of [
      [n1.id, 3, 9],
      [n2.id, 4, 17],
    ] as const) {
      await ctx.given.usage({
        agentId: agent.id,
        capabilityId: 'lookup',
        tenantId: t1.id,
        nodeId,
        day: '2026-11-01',
        count,
        lastCallAt: at('2026-11-01', hour),
      });
    }
    await ctx.given.usage({ agentId: agent.id, capabilityId: 'lookup', tenantId: t2.id, nodeId: n1.id, day: '2026-11-02', count: 5 });
    await ctx.given.usage({ agentId: agent.id, capabilityId: 'recon', tenantId: t1.id, nodeId: n2.id, day: '2026-11-03', count: 1 });
    await ctx.given.usage({ agentId: agent.id, capabilityId: 'recon', tenantId: t2.id, nodeId: n2.id, day: '2026-11-20', count: 2 });
  });
  afterAll(async () => {
    await ctx?.close();
    await db?.drop();
  });

  it('sums every node of a (day, capability, tenant) and keeps the latest call', async () => {
    const page = await sut.daily(viewer, { agentId: agent.id, capabilityId: 'lookup', to: '2026-11-01' }, undefined);
    expect(page.nodes).toEqual([
      expect.objectContaining({ day: '2026-11-01', capabilityId: 'lookup', calls: 7, lastCallAt: new Date('2026-11-01T17:00:00Z') }),
    ]);
  });

  it('pages through every row exactly once', async () => {
    const seen: UsageDay[] = [];
    let after: string | undefined;
    for (let i = 0; i < 10; i++) {
      const page = await sut.daily(viewer, { agentId: agent.id }, { first: 1, after });
      seen.push(...page.nodes);
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor ?? undefined;
    }
    expect(seen.map((r) => `${r.day}/${r.capabilityId}`).sort()).toEqual([
      '2026-11-01/lookup',
      '2026-11-02/lookup',
      '2026-11-03/recon',
      '2026-11-20/recon',
    ]);
  });

  it('totals many manifests through one loader, inside the window, zero for the unused', async () => {
    const loaders = new RequestLoaders();
    const window = sut.window({ from: '2026-11-02', to: '2026-11-30' });
    const [lookup, recon, unused] = await Promise.all(
      ['lookup', 'recon', 'never-called'].map((capabilityId) => sut.total(loaders, { agentId: agent.id, capabilityId }, window)),
    );
    expect(lookup).toEqual({ calls: 5, lastCallAt: expect.any(Date) });
    expect(recon.calls).toBe(3);
    expect(unused).toEqual({ calls: 0, lastCallAt: null });
  });

  it.each([
    ['"from" after "to"', { from: '2026-11-05', to: '2026-11-01' }, '$.window.from'],
    // Date.parse rolls 2026-02-31 over to March 3; PostgreSQL refused it and the caller got a 500.
    ['a date that does not exist', { from: '2026-02-31' }, '$.window.from'],
    ['a hostile, huge date', { to: '9'.repeat(10_000) }, '$.window.to'],
  ])('refuses %s naming the field', async (_what, window, path) => {
    const error = await sut.daily(viewer, { agentId: agent.id, ...window }, undefined).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputValidationError);
    expect((error as InputValidationError).validationErrors.map((i) => i.path)).toContain(path);
  });

  it("answers NOT_FOUND for another team's agent, exactly as for a missing one", async () => {
    const outsider = principal(['team-admin'], ['not-the-owner']);
    const hidden = await sut.daily(outsider, { agentId: agent.id }, undefined).catch((e: unknown) => e);
    const missing = await sut.daily(viewer, { agentId: 'no-such-agent' }, undefined).catch((e: unknown) => e);
    expect(hidden).toMatchObject({ code: CommonErrorCode.NotFound, message: `agent "${agent.id}" not found` });
    expect(missing).toMatchObject({ code: CommonErrorCode.NotFound, message: 'agent "no-such-agent" not found' });
    expect((await sut.daily(principal(['team-admin'], [agent.teamId]), { agentId: agent.id }, undefined)).nodes).toHaveLength(4);
  });
});
