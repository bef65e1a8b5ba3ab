/** AgentsService with its repository and RegistryWriter on a real database (service tier). */
import { randomBytes } from 'node:crypto';
import { RegistryError, RegistryErrorCode } from '@cp/db';
import { AgentsModule } from '../../apps/control-plane/src/agents/agents.module';
import { AgentsService } from '../../apps/control-plane/src/agents/agents.service';
import { AgentError, AgentErrorCode } from '../../apps/control-plane/src/agents/agents.errors';
import { CommonError, CommonErrorCode, InputValidationError } from '../../apps/control-plane/src/common/errors';
import type { CreateAgentInput } from '../../apps/control-plane/src/agents/dto/agent.input';
import { principal, serviceModule } from '../support/service-module';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const slug = (prefix: string) => `${prefix}-${randomBytes(3).toString('hex')}`;
const card = (id: string, teamId: string): CreateAgentInput => ({
  id,
  teamId,
  name: 'Red agent',
  description: 'Does red things.',
  version: '0.1.0',
  supportedInterfaces: [{ url: 'https://red.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['application/json'],
});

describe('AgentsService (service tier)', () => {
  let db: TestDatabase;
  let ctx: Awaited<ReturnType<typeof serviceModule>>;
  let sut: AgentsService;
  const admin = principal(['platform-admin'], [], 'alice');

  beforeAll(async () => {
    db = await createTestDatabase('svc_agents');
    ctx = await serviceModule(db, [AgentsModule]);
    sut = ctx.get(AgentsService);
  });
  afterAll(async () => {
    await ctx?.close();
    await db?.drop();
  });

  const auditOf = (targetId: string) => ctx.given.prisma.auditEvent.findMany({ where: { targetId }, orderBy: { id: 'asc' } });

  it('creates an agent at revision 1 with one audit entry and one registry revision', async () => {
    const team = await ctx.given.team();
    const id = slug('red');
    const created = await sut.create(admin, card(id, team.id));
    expect(created).toMatchObject({ id, teamId: team.id, revision: 1 });
    expect(created.base.protocol).toEqual({
      streaming: false,
      pushNotifications: false,
      extendedAgentCard: true,
      versions: ['1.0'],
      webhookAllow: [],
    });
    const audit = await auditOf(id);
    expect(audit.map((a) => [a.action, a.actor, a.revision])).toEqual([['agent.create', 'alice', 1]]);
    expect(await ctx.given.prisma.registryRevision.count({ where: { agentId: id } })).toBe(1);
  });

  it('names every problem of a new agent at once, the id among them, and creates nothing', async () => {
    const team = await ctx.given.team();
    const bad = {
      ...card('Bad Id!', team.id),
      name: '',
      supportedInterfaces: [{ url: 'not a url', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    };
    const error = await sut.create(admin, bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputValidationError);
    const paths = (error as InputValidationError).validationErrors.map((i) => i.path);
    expect(paths[0]).toBe('$.id');
    expect(paths).toEqual(expect.arrayContaining(['$.name', expect.stringMatching(/^\$\.supportedInterfaces\[0\]\.url/)]));
    expect(await ctx.given.prisma.agent.count({ where: { teamId: team.id } })).toBe(0);
  });

  it('refuses a second agent with the same id and leaves the first unchanged', async () => {
    const team = await ctx.given.team();
    const id = slug('dup');
    await sut.create(admin, card(id, team.id));
    const other = await ctx.given.team();
    await expect(sut.create(admin, { ...card(id, other.id), name: 'Impostor' })).rejects.toMatchObject({
      constructor: AgentError,
      code: AgentErrorCode.IdUnavailable,
    });
    const stored = await sut.get(admin, id);
    expect(stored).toMatchObject({ teamId: team.id, revision: 1 });
    expect(stored.base.name).toBe('Red agent');
    expect(await auditOf(id)).toHaveLength(1);
  });

  it.each([
    ['an id that is not a slug', (teamId: string) => ({ ...card('Not A Slug', teamId) })],
    ['a card without interfaces', (teamId: string) => ({ ...card(slug('bad'), teamId), supportedInterfaces: [] })],
    ['a hostile, huge name', (teamId: string) => ({ ...card(slug('huge'), teamId), name: 'x'.repeat(100_000) })],
  ])('refuses %s with every problem and writes nothing', async (_what, input) => {
    const team = await ctx.given.team();
    const before = await ctx.given.prisma.agent.count();
    const error = await sut.create(admin, input(team.id)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputValidationError);
    expect((error as InputValidationError).validationErrors.length).toBeGreaterThan(0);
    expect(await ctx.given.prisma.agent.count()).toBe(before);
  });

  it("answers NOT_FOUND to a team admin creating in another team's name, exactly as for a missing team", async () => {
    const [mine, theirs] = [await ctx.given.team(), await ctx.given.team()];
    const teamAdmin = principal(['team-admin'], [mine.id]);
    const forbidden = await sut.create(teamAdmin, card(slug('x'), theirs.id)).catch((e: unknown) => e);
    const missing = await sut.create(admin, card(slug('y'), 'no-such-team')).catch((e: unknown) => e);
    expect(forbidden).toMatchObject({ code: CommonErrorCode.NotFound, message: `team "${theirs.id}" not found` });
    expect(missing).toMatchObject({ code: CommonErrorCode.NotFound, message: 'team "no-such-team" not found' });
  });

  it('updates under the expected revision only: a stale one changes nothing', async () => {
    const team = await ctx.given.team();
    const id = slug('upd');
    await sut.create(admin, card(id, team.id));
    const updated = await sut.update(admin, { id, expectedRevision: 1, description: 'Now bluer.' });
    expect(updated).toMatchObject({ revision: 2 });
    expect(updated.base.description).toBe('Now bluer.');

    await expect(sut.update(admin, { id, expectedRevision: 1, description: 'Lost update' })).rejects.toMatchObject({
      constructor: RegistryError,
      code: RegistryErrorCode.StaleRevision,
    });
    const stored = await sut.get(admin, id);
    expect(stored.revision).toBe(2);
    expect(stored.base.description).toBe('Now bluer.');
    expect((await auditOf(id)).map((a) => a.action)).toEqual(['agent.create', 'agent.update']);
  });

  it('refuses an update for the public-card leaks it adds, not for one the registry already had (ADR 0335)', async () => {
    // Seeded directly: the agent's description already shows the tag of an extended skill.
    const agent = await ctx.given.agent({ base: { description: 'Answers procurement questions.' } });
    const hidden = await ctx.given.manifest(agent, {
      skill: { name: 'Raise a purchase requisition', description: 'Files a requisition.', tags: ['procurement'] },
    });
    expect(await sut.update(admin, { id: agent.id, expectedRevision: 1, name: 'Back office' })).toMatchObject({ revision: 2 });
    const error = await sut
      .update(admin, { id: agent.id, expectedRevision: 2, description: 'Answers procurement questions; can raise a purchase requisition.' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect(error).toMatchObject({ code: AgentErrorCode.PublicCardLeak });
    expect((error as AgentError).message).toBe(`the public card would show text of non-public skills (${hidden.id}.name)`);
    expect(await ctx.given.revisionOf(agent.id)).toBe(2);
  });

  it('lets a viewer read but not change, and hides other teams from a team admin', async () => {
    const team = await ctx.given.team();
    const id = slug('ro');
    await sut.create(admin, card(id, team.id));
    const viewer = principal(['viewer']);
    expect((await sut.get(viewer, id)).id).toBe(id);
    await expect(sut.update(viewer, { id, expectedRevision: 1, name: 'Mine now' })).rejects.toMatchObject({
      constructor: CommonError,
      code: CommonErrorCode.Forbidden,
    });
    await expect(sut.get(principal(['team-admin'], ['some-other-team']), id)).rejects.toMatchObject({ code: CommonErrorCode.NotFound });
    const list = await sut.list(principal(['team-admin'], [team.id]), {}, undefined);
    expect(list.nodes.map((a) => a.id)).toEqual([id]);
  });
});
