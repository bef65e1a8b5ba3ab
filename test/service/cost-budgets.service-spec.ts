/**
 * CostBudgetsService with ManifestAccess and RegistryWriter on a real database (service tier).
 * Budgets travel to the nodes in the bundle's snapshot, so setting them is a registry change: a
 * new revision and an audit entry with the budgets before and after, or nothing at all.
 */
import { RegistryErrorCode } from '@cp/db';
import type { CostClass } from '@cp/capabilities';
import { CostBudgetsModule } from '../../apps/control-plane/src/cost-budgets/cost-budgets.module';
import { CostBudgetsService } from '../../apps/control-plane/src/cost-budgets/cost-budgets.service';
import { CommonErrorCode, InputValidationError } from '../../apps/control-plane/src/common/errors';
import type { GivenAgent } from '../support/given-db';
import { principal, serviceModule } from '../support/service-module';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

describe('CostBudgetsService (service tier)', () => {
  let db: TestDatabase;
  let ctx: Awaited<ReturnType<typeof serviceModule>>;
  let sut: CostBudgetsService;

  beforeAll(async () => {
    db = await createTestDatabase('svc_cost_budgets');
    ctx = await serviceModule(db, [CostBudgetsModule]);
    sut = ctx.get(CostBudgetsService);
  });
  afterAll(async () => {
    await ctx?.close();
    await db?.drop();
  });

  const ownerOf = (agent: GivenAgent) => principal(['team-admin'], [agent.teamId], 'owner');
  /** Everything setting budgets may change: the stored budgets, the revision, the audit log. */
  const stateOf = async (agentId: string) => {
    const row = await ctx.given.prisma.agent.findUniqueOrThrow({ where: { id: agentId }, select: { costBudgets: true, revision: true } });
    return { ...row, audit: await ctx.given.prisma.auditEvent.count({ where: { targetId: agentId, action: 'agent.cost-budgets' } }) };
  };

  it('sets the whole set of budgets as a new revision, audits before and after, and clears them with an empty set', async () => {
    const agent = await ctx.given.agent();
    const owner = ownerOf(agent);
    const budgets = [
      { costClass: 'high' as CostClass, calls: 10, windowS: 60 },
      { costClass: 'low' as CostClass, calls: 1000, windowS: 3600 },
    ];
    const set = await sut.set(owner, { agentId: agent.id, expectedRevision: 1, budgets });
    // Answered in the classes' order (low, medium, high), whatever order they were given in.
    expect(set).toEqual({ agentId: agent.id, revision: 2, budgets: [budgets[1], budgets[0]] });
    expect(await sut.get(owner, agent.id)).toEqual(set);
    expect((await stateOf(agent.id)).costBudgets).toEqual({ high: { calls: 10, windowS: 60 }, low: { calls: 1000, windowS: 3600 } });

    expect(await sut.set(owner, { agentId: agent.id, expectedRevision: 2, budgets: [] })).toEqual({
      agentId: agent.id,
      revision: 3,
      budgets: [],
    });
    expect((await stateOf(agent.id)).costBudgets).toBeNull();
    const audit = await ctx.given.prisma.auditEvent.findMany({
      where: { targetId: agent.id, action: 'agent.cost-budgets' },
      orderBy: { id: 'asc' },
    });
    expect(audit.map((a) => [a.actor, a.revision, a.before, a.after])).toEqual([
      ['owner', 2, null, { high: { calls: 10, windowS: 60 }, low: { calls: 1000, windowS: 3600 } }],
      ['owner', 3, { high: { calls: 10, windowS: 60 }, low: { calls: 1000, windowS: 3600 } }, null],
    ]);
  });

  it.each([
    ['an unknown cost class', [{ costClass: 'free', calls: 1, windowS: 1 }], '$.budgets[0].costClass'],
    [
      'a class listed twice',
      [
        { costClass: 'low', calls: 1, windowS: 1 },
        { costClass: 'low', calls: 2, windowS: 2 },
      ],
      '$.budgets[1].costClass',
    ],
    ['zero calls', [{ costClass: 'low', calls: 0, windowS: 60 }], '$.budgets[0].calls'],
    ['a fractional call count', [{ costClass: 'low', calls: 1.5, windowS: 60 }], '$.budgets[0].calls'],
    ['a huge call count', [{ costClass: 'low', calls: 1e12, windowS: 60 }], '$.budgets[0].calls'],
    ['a window longer than a day', [{ costClass: 'medium', calls: 5, windowS: 86_401 }], '$.budgets[0].windowS'],
    ['a negative window', [{ costClass: 'medium', calls: 5, windowS: -1 }], '$.budgets[0].windowS'],
  ])('refuses %s, naming the field, and changes nothing', async (_what, budgets, path) => {
    const agent = await ctx.given.agent();
    const before = await stateOf(agent.id);
    const error = await sut
      .set(ownerOf(agent), {
        agentId: agent.id,
        expectedRevision: 1,
        budgets: budgets as { costClass: CostClass; calls: number; windowS: number }[],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputValidationError);
    expect((error as InputValidationError).validationErrors.map((i) => i.path)).toContain(path);
    expect(await stateOf(agent.id)).toEqual(before);
  });

  it("answers NOT_FOUND for another team's agent (read or write), as for a missing one, and changes nothing", async () => {
    const [mine, theirs] = [await ctx.given.agent(), await ctx.given.agent()];
    const before = await stateOf(theirs.id);
    const budgets = [{ costClass: 'low' as CostClass, calls: 1, windowS: 1 }];
    await expect(sut.set(ownerOf(mine), { agentId: theirs.id, expectedRevision: 1, budgets })).rejects.toMatchObject({
      code: CommonErrorCode.NotFound,
      message: `agent "${theirs.id}" not found`,
    });
    await expect(sut.get(ownerOf(mine), theirs.id)).rejects.toMatchObject({ code: CommonErrorCode.NotFound });
    expect(await stateOf(theirs.id)).toEqual(before);
  });

  it('refuses a stale expected revision, naming the current one, and changes nothing', async () => {
    const agent = await ctx.given.agent({ revision: 4 });
    const before = await stateOf(agent.id);
    const error = await sut
      .set(ownerOf(agent), { agentId: agent.id, expectedRevision: 3, budgets: [{ costClass: 'low', calls: 1, windowS: 1 }] })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: RegistryErrorCode.StaleRevision });
    expect((error as Error).message).toContain('revision 4, not 3');
    expect(await stateOf(agent.id)).toEqual(before);
  });
});
