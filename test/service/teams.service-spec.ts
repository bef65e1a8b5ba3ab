/** TeamsService with its repository and the audit writer on a real database (service tier). */
import { randomBytes } from 'node:crypto';
import { TeamsModule } from '../../apps/control-plane/src/teams/teams.module';
import { TeamsService } from '../../apps/control-plane/src/teams/teams.service';
import { TeamErrorCode } from '../../apps/control-plane/src/teams/teams.errors';
import { CommonErrorCode, InputValidationError } from '../../apps/control-plane/src/common/errors';
import { principal, serviceModule } from '../support/service-module';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const slug = (prefix: string) => `${prefix}-${randomBytes(3).toString('hex')}`;

describe('TeamsService (service tier)', () => {
  let db: TestDatabase;
  let ctx: Awaited<ReturnType<typeof serviceModule>>;
  let sut: TeamsService;
  const admin = principal(['platform-admin'], [], 'alice');

  beforeAll(async () => {
    db = await createTestDatabase('svc_teams');
    ctx = await serviceModule(db, [TeamsModule]);
    sut = ctx.get(TeamsService);
  });
  afterAll(async () => {
    await ctx?.close();
    await db?.drop();
  });

  const auditOf = (targetId: string) => ctx.given.prisma.auditEvent.findMany({ where: { targetId }, orderBy: { id: 'asc' } });

  it('creates a team with one audit entry naming the actor', async () => {
    const id = slug('payments');
    expect(await sut.create(admin, { id, name: 'Payments' })).toMatchObject({ id, name: 'Payments' });
    expect((await auditOf(id)).map((a) => [a.action, a.actor])).toEqual([['team.create', 'alice']]);
  });

  it('refuses a second team with the same id and keeps the first and its audit trail unchanged', async () => {
    const id = slug('dup');
    await sut.create(admin, { id, name: 'First' });
    await expect(sut.create(admin, { id, name: 'Second' })).rejects.toMatchObject({ code: TeamErrorCode.AlreadyExists });
    expect(await ctx.given.prisma.team.findUnique({ where: { id } })).toMatchObject({ name: 'First' });
    expect(await auditOf(id)).toHaveLength(1);
  });

  it.each([
    ['an id that is not a slug', { id: 'Not A Slug', name: 'x' }],
    ['an empty name', { id: slug('empty'), name: '   ' }],
    ['a hostile, huge name', { id: slug('huge'), name: 'x'.repeat(100_000) }],
    ['a huge id', { id: `a${'b'.repeat(10_000)}`, name: 'x' }],
  ])('refuses %s, naming the field, and writes nothing', async (_what, input) => {
    const before = await ctx.given.prisma.team.count();
    const error = await sut.create(admin, input).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputValidationError);
    expect((error as InputValidationError).validationErrors.map((e) => e.path).join(' ')).toMatch(/id|name/);
    expect(await ctx.given.prisma.team.count()).toBe(before);
  });

  it('renames a team, recording the name before and after', async () => {
    const team = await ctx.given.team({ name: 'Old name' });
    expect(await sut.rename(admin, { id: team.id, name: 'New name' })).toMatchObject({ id: team.id, name: 'New name' });
    const [entry] = await auditOf(team.id);
    expect(entry).toMatchObject({ action: 'team.update', before: { name: 'Old name' }, after: { name: 'New name' } });
  });

  it('answers NOT_FOUND for a team a team admin cannot read, exactly as for a missing one', async () => {
    const [mine, theirs] = [await ctx.given.team(), await ctx.given.team()];
    const teamAdmin = principal(['team-admin'], [mine.id]);
    expect(await sut.get(teamAdmin, mine.id)).toMatchObject({ id: mine.id });
    const forbidden = await sut.get(teamAdmin, theirs.id).catch((e: unknown) => e);
    const missing = await sut.get(admin, 'no-such-team').catch((e: unknown) => e);
    expect(forbidden).toMatchObject({ code: CommonErrorCode.NotFound, message: `team "${theirs.id}" not found` });
    expect(missing).toMatchObject({ code: CommonErrorCode.NotFound, message: 'team "no-such-team" not found' });
  });

  it("lists only a team admin's own teams, and pages every team for a platform admin without repeats", async () => {
    const mine = await ctx.given.team();
    await ctx.given.team();
    const listed = await sut.list(principal(['team-admin'], [mine.id]), { first: 50 });
    expect(listed.nodes.map((t) => t.id)).toEqual([mine.id]);

    const total = await ctx.given.prisma.team.count();
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await sut.list(admin, { first: 2, after });
      seen.push(...page.nodes.map((t) => t.id));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor ?? undefined;
    }
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
    expect(seen).toEqual([...seen].sort());
  });
});
