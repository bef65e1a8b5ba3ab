/**
 * ScopesService and TenantsService with their repositories and the audit writer on a real database
 * (service tier). Both are registry-wide lists a manifest refers to by name: refusing to delete one
 * still in use is what keeps projections from changing silently.
 */
import { randomBytes } from 'node:crypto';
import { ScopesModule } from '../../apps/control-plane/src/scopes/scopes.module';
import { ScopesService } from '../../apps/control-plane/src/scopes/scopes.service';
import { ScopeErrorCode } from '../../apps/control-plane/src/scopes/scopes.errors';
import { TenantsModule } from '../../apps/control-plane/src/tenants/tenants.module';
import { TenantsService } from '../../apps/control-plane/src/tenants/tenants.service';
import { TenantErrorCode } from '../../apps/control-plane/src/tenants/tenants.errors';
import { CommonErrorCode, InputValidationError } from '../../apps/control-plane/src/common/errors';
import { principal, serviceModule } from '../support/service-module';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const hex = () => randomBytes(3).toString('hex');
const pathsOf = (error: unknown) => (error as InputValidationError).validationErrors.map((e) => e.path);

describe('ScopesService and TenantsService (service tier)', () => {
  let db: TestDatabase;
  let ctx: Awaited<ReturnType<typeof serviceModule>>;
  let scopes: ScopesService;
  let tenants: TenantsService;
  const admin = principal(['platform-admin'], [], 'alice');

  beforeAll(async () => {
    db = await createTestDatabase('svc_scopes_tenants');
    ctx = await serviceModule(db, [ScopesModule, TenantsModule]);
    scopes = ctx.get(ScopesService);
    tenants = ctx.get(TenantsService);
  });
  afterAll(async () => {
    await ctx?.close();
    await db?.drop();
  });

  const auditOf = (targetId: string) => ctx.given.prisma.auditEvent.findMany({ where: { targetId }, orderBy: { id: 'asc' } });

  describe('scopes', () => {
    it('creates, describes again and deletes a scope, each step audited with the actor and what changed', async () => {
      const name = `recon.run${hex()}`;
      expect(await scopes.create(admin, { name, description: 'Run reconciliations' })).toMatchObject({ name });
      expect(await scopes.update(admin, { name, description: 'Run and re-run' })).toMatchObject({ description: 'Run and re-run' });
      expect(await scopes.delete(admin, name)).toMatchObject({ name });
      await expect(scopes.get(name)).rejects.toMatchObject({ code: CommonErrorCode.NotFound, message: `scope "${name}" not found` });
      const audit = await auditOf(name);
      expect(audit.map((a) => [a.action, a.actor])).toEqual([
        ['scope.create', 'alice'],
        ['scope.update', 'alice'],
        ['scope.delete', 'alice'],
      ]);
      expect(audit[1]).toMatchObject({ before: { description: 'Run reconciliations' }, after: { description: 'Run and re-run' } });
    });

    it('refuses a duplicate name and keeps the first description and a single audit entry', async () => {
      const { name } = await ctx.given.scope({ description: 'first' });
      await expect(scopes.create(admin, { name, description: 'second' })).rejects.toMatchObject({ code: ScopeErrorCode.AlreadyExists });
      expect(await scopes.get(name)).toMatchObject({ description: 'first' });
      expect(await auditOf(name)).toHaveLength(0);
    });

    it.each([
      ['a name with capitals and spaces', { name: 'Recon Run', description: 'x' }, '$.name'],
      ['a name starting with a dot', { name: '.recon', description: 'x' }, '$.name'],
      ['an empty description', { name: 'ok.scope', description: '  ' }, '$.description'],
      ['a huge description', { name: 'ok.scope', description: 'x'.repeat(100_000) }, '$.description'],
    ])('refuses %s, naming the field, and writes nothing', async (_what, input, path) => {
      const before = await ctx.given.prisma.scope.count();
      const error = await scopes.create(admin, input).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InputValidationError);
      expect(pathsOf(error)).toContain(path);
      expect(await ctx.given.prisma.scope.count()).toBe(before);
    });

    it('refuses to delete a scope a manifest requires, naming the manifest, and keeps it', async () => {
      const scope = await ctx.given.scope();
      const agent = await ctx.given.agent();
      const manifest = await ctx.given.manifest(agent, { requiresScopes: [scope.name] });
      const error = await scopes.delete(admin, scope.name).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: ScopeErrorCode.InUse, extensions: { manifests: [`${agent.id}/${manifest.id}`] } });
      expect((error as Error).message).toContain(`${agent.id}/${manifest.id}`);
      expect(await scopes.get(scope.name)).toMatchObject({ name: scope.name });
      expect(await auditOf(scope.name)).toHaveLength(0);
    });

    it('answers NOT_FOUND when updating a scope that does not exist, and creates nothing', async () => {
      const name = `ghost.scope${hex()}`;
      await expect(scopes.update(admin, { name, description: 'x' })).rejects.toMatchObject({ code: CommonErrorCode.NotFound });
      expect(await ctx.given.prisma.scope.findUnique({ where: { name } })).toBeNull();
    });
  });

  describe('tenants', () => {
    it('creates, renames and deletes a tenant, each step audited with the name before and after', async () => {
      const id = `acme-${hex()}`;
      expect(await tenants.create(admin, { id, name: 'Acme' })).toMatchObject({ id, name: 'Acme' });
      expect(await tenants.update(admin, { id, name: 'Acme Corp' })).toMatchObject({ name: 'Acme Corp' });
      expect(await tenants.delete(admin, id)).toMatchObject({ id });
      expect(await ctx.given.prisma.tenant.findUnique({ where: { id } })).toBeNull();
      const audit = await auditOf(id);
      expect(audit.map((a) => a.action)).toEqual(['tenant.create', 'tenant.update', 'tenant.delete']);
      expect(audit[1]).toMatchObject({ before: { name: 'Acme' }, after: { name: 'Acme Corp' } });
    });

    it('refuses a duplicate id and keeps the first name', async () => {
      const tenant = await ctx.given.tenant({ name: 'First' });
      await expect(tenants.create(admin, { id: tenant.id, name: 'Second' })).rejects.toMatchObject({ code: TenantErrorCode.AlreadyExists });
      expect(await tenants.get(tenant.id)).toMatchObject({ name: 'First' });
    });

    it.each([
      ['an id that is not a slug', { id: 'Acme Corp', name: 'x' }, '$.id'],
      ['an id longer than 63 characters', { id: `a${'b'.repeat(63)}`, name: 'x' }, '$.id'],
      ['an empty name', { id: 'fine-id', name: '' }, '$.name'],
      ['a huge name', { id: 'fine-id', name: 'x'.repeat(10_000) }, '$.name'],
    ])('refuses %s, naming the field, and writes nothing', async (_what, input, path) => {
      const before = await ctx.given.prisma.tenant.count();
      const error = await tenants.create(admin, input).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InputValidationError);
      expect(pathsOf(error)).toContain(path);
      expect(await ctx.given.prisma.tenant.count()).toBe(before);
    });

    it("refuses to delete a tenant an agent's previews or a manifest's tenant list name, naming both, and keeps it", async () => {
      const tenant = await ctx.given.tenant();
      const agent = await ctx.given.agent();
      await ctx.given.optIn(tenant.id, agent.id);
      const manifest = await ctx.given.manifest(agent, { tenants: [tenant.id] });
      const error = await tenants.delete(admin, tenant.id).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: TenantErrorCode.InUse,
        extensions: { optIns: [agent.id], manifests: [`${agent.id}/${manifest.id}`] },
      });
      expect(await tenants.get(tenant.id)).toMatchObject({ id: tenant.id });
      expect(await auditOf(tenant.id)).toHaveLength(0);
    });

    it('pages every tenant once, in id order, for any page size', async () => {
      for (let i = 0; i < 5; i++) await ctx.given.tenant();
      const total = await ctx.given.prisma.tenant.count();
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await tenants.list({ first: 2, after });
        seen.push(...page.nodes.map((t) => t.id));
        if (!page.pageInfo.hasNextPage) break;
        after = page.pageInfo.endCursor ?? undefined;
      }
      expect(seen).toEqual([...new Set(seen)].sort());
      expect(seen).toHaveLength(total);
    });
  });
});
