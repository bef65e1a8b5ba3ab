/**
 * PreviewOptInsService with AgentsService, RegistryWriter and the servability gate on a real
 * database (service tier). An opt-in changes what an agent's previews show to a tenant, so it is a
 * registry change: a new revision and an audit entry, or nothing at all.
 */
import { RegistryErrorCode } from '@cp/db';
import { PreviewOptInsModule } from '../../apps/control-plane/src/preview-opt-ins/preview-opt-ins.module';
import { PreviewOptInsService } from '../../apps/control-plane/src/preview-opt-ins/preview-opt-ins.service';
import { PreviewOptInErrorCode } from '../../apps/control-plane/src/preview-opt-ins/preview-opt-ins.errors';
import { CommonErrorCode, InputValidationError } from '../../apps/control-plane/src/common/errors';
import type { GivenAgent } from '../support/given-db';
import { principal, serviceModule } from '../support/service-module';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

describe('PreviewOptInsService (service tier)', () => {
  let db: TestDatabase;
  let ctx: Awaited<ReturnType<typeof serviceModule>>;
  let sut: PreviewOptInsService;

  beforeAll(async () => {
    db = await createTestDatabase('svc_preview_opt_ins');
    ctx = await serviceModule(db, [PreviewOptInsModule]);
    sut = ctx.get(PreviewOptInsService);
  });
  afterAll(async () => {
    await ctx?.close();
    await db?.drop();
  });

  const ownerOf = (agent: GivenAgent) => principal(['team-admin'], [agent.teamId], 'owner');
  const optInsOf = (agentId: string) => ctx.given.prisma.previewOptIn.findMany({ where: { agentId } });
  /** Everything an opt-in may change: its rows, the agent's revision, the audit log. */
  const stateOf = async (agentId: string) => ({
    optIns: (await optInsOf(agentId)).map((o) => o.tenantId),
    revision: await ctx.given.revisionOf(agentId),
    audit: await ctx.given.prisma.auditEvent.count({ where: { targetType: 'preview-opt-in' } }),
  });

  it('opts a tenant in and out, each a new revision with an audit entry', async () => {
    const agent = await ctx.given.agent();
    const tenant = await ctx.given.tenant();
    const owner = ownerOf(agent);
    const created = await sut.create(owner, { agentId: agent.id, tenantId: tenant.id, expectedRevision: 1 });
    expect(created).toMatchObject({ optIn: { agentId: agent.id, tenantId: tenant.id }, revision: 2 });
    expect((await sut.list(owner, agent.id)).map((o) => o.tenantId)).toEqual([tenant.id]);

    expect(await sut.delete(owner, { agentId: agent.id, tenantId: tenant.id, expectedRevision: 2 })).toMatchObject({ revision: 3 });
    expect(await optInsOf(agent.id)).toEqual([]);
    const audit = await ctx.given.prisma.auditEvent.findMany({ where: { targetId: `${agent.id}/${tenant.id}` }, orderBy: { id: 'asc' } });
    expect(audit.map((a) => [a.action, a.actor, a.revision])).toEqual([
      ['preview-opt-in.create', 'owner', 2],
      ['preview-opt-in.delete', 'owner', 3],
    ]);
  });

  it("answers NOT_FOUND for another team's agent, as for a missing one, and changes nothing", async () => {
    const [mine, theirs] = [await ctx.given.agent(), await ctx.given.agent()];
    const tenant = await ctx.given.tenant();
    const before = await stateOf(theirs.id);
    const error = await sut
      .create(ownerOf(mine), { agentId: theirs.id, tenantId: tenant.id, expectedRevision: 1 })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: CommonErrorCode.NotFound, message: `agent "${theirs.id}" not found` });
    await expect(sut.list(ownerOf(mine), theirs.id)).rejects.toMatchObject({ code: CommonErrorCode.NotFound });
    expect(await stateOf(theirs.id)).toEqual(before);
  });

  it('refuses an unknown tenant, a second opt-in and a stale revision, changing nothing each time', async () => {
    const agent = await ctx.given.agent();
    const tenant = await ctx.given.tenant();
    const owner = ownerOf(agent);
    await expect(sut.create(owner, { agentId: agent.id, tenantId: 'no-such-tenant', expectedRevision: 1 })).rejects.toMatchObject({
      code: CommonErrorCode.NotFound,
      message: 'tenant "no-such-tenant" not found',
    });
    await expect(sut.create(owner, { agentId: agent.id, tenantId: tenant.id, expectedRevision: 0 })).rejects.toMatchObject({
      code: RegistryErrorCode.StaleRevision,
    });
    expect(await stateOf(agent.id)).toMatchObject({ optIns: [], revision: 1 });

    await sut.create(owner, { agentId: agent.id, tenantId: tenant.id, expectedRevision: 1 });
    const before = await stateOf(agent.id);
    await expect(sut.create(owner, { agentId: agent.id, tenantId: tenant.id, expectedRevision: 2 })).rejects.toMatchObject({
      code: PreviewOptInErrorCode.AlreadyOptedIn,
    });
    expect(await stateOf(agent.id)).toEqual(before);
  });

  it('refuses an opt-in that would show a preview no live node can serve, naming the handler and the node', async () => {
    const agent = await ctx.given.agent();
    const tenant = await ctx.given.tenant();
    const preview = await ctx.given.manifest(agent, { state: 'preview', tenants: '*', handler: 'handler.unshipped' });
    await ctx.given.inventory(agent.id, ['handler.other'], { nodeId: 'node-old' });
    const before = await stateOf(agent.id);
    const error = await sut
      .create(ownerOf(agent), { agentId: agent.id, tenantId: tenant.id, expectedRevision: 1 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputValidationError);
    const [issue] = (error as InputValidationError).validationErrors;
    expect(issue.path).toBe('$.tenantId');
    expect(issue.message).toContain(`"${preview.id}"`);
    expect(issue.message).toContain('"handler.unshipped"');
    expect(issue.message).toContain('node-old');
    expect(await stateOf(agent.id)).toEqual(before);
  });

  it('answers NOT_FOUND when opting out a tenant that was never opted in, and keeps the revision', async () => {
    const agent = await ctx.given.agent();
    const tenant = await ctx.given.tenant();
    await expect(sut.delete(ownerOf(agent), { agentId: agent.id, tenantId: tenant.id, expectedRevision: 1 })).rejects.toMatchObject({
      code: CommonErrorCode.NotFound,
      message: `preview opt-in "${agent.id}/${tenant.id}" not found`,
    });
    expect(await ctx.given.revisionOf(agent.id)).toBe(1);
  });
});
