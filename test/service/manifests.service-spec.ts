/**
 * Single-manifest changes and reads (ManifestChangesService, ManifestsService) with their
 * repositories and RegistryWriter on a real database: the rules that guard the registry.
 */
import { financeAgentExample, toManifestDocument, type CapabilityManifest } from '@cp/capabilities';
import { RegistryErrorCode } from '@cp/db';
import { CommonErrorCode, InputValidationError } from '../../apps/control-plane/src/common/errors';
import { ManifestChangesService } from '../../apps/control-plane/src/manifests/manifest-changes.service';
import { ManifestError, ManifestErrorCode } from '../../apps/control-plane/src/manifests/manifests.errors';
import { ManifestsModule } from '../../apps/control-plane/src/manifests/manifests.module';
import { ManifestsService } from '../../apps/control-plane/src/manifests/manifests.service';
import { principal, serviceModule } from '../support/service-module';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const AGENT = 'svc-finance';

describe('manifest changes and reads (service tier)', () => {
  let db: TestDatabase;
  let ctx: Awaited<ReturnType<typeof serviceModule>>;
  let changes: ManifestChangesService;
  let reads: ManifestsService;
  let teamId: string;
  const admin = principal(['platform-admin'], [], 'alice');
  const [lookup, reconcile] = financeAgentExample().manifests;

  beforeAll(async () => {
    db = await createTestDatabase('svc_manifests');
    ctx = await serviceModule(db, [ManifestsModule]);
    changes = ctx.get(ManifestChangesService);
    reads = ctx.get(ManifestsService);
    ({
      agent: { teamId },
    } = await ctx.given.financeExample(AGENT));
  });
  afterAll(async () => {
    await ctx?.close();
    await db?.drop();
  });

  const revision = () => ctx.given.revisionOf(AGENT);
  const stored = () =>
    ctx.given.prisma.capabilityManifest.findMany({
      where: { agentId: AGENT },
      orderBy: { capabilityId: 'asc' },
      select: { capabilityId: true, state: true },
    });
  const publicManifest = (id: string, overrides: Partial<CapabilityManifest['skill']> = {}): CapabilityManifest => ({
    ...lookup,
    id,
    handler: `${id.replace(/-/g, '')}.v1.run`,
    skill: { ...lookup.skill, name: `Skill ${id}`, description: `Does ${id}.`, examples: [`Please ${id}`], ...overrides },
  });

  /** Runs a refused change and proves nothing moved: same revision, same rows, no audit entry. */
  async function refusedWithoutWriting(change: () => Promise<unknown>): Promise<unknown> {
    const [rev, rows, audits] = [await revision(), await stored(), await ctx.given.prisma.auditEvent.count()];
    const error = await change().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeDefined();
    expect(await revision()).toBe(rev);
    expect(await stored()).toEqual(rows);
    expect(await ctx.given.prisma.auditEvent.count()).toBe(audits);
    return error;
  }

  it('creates a valid manifest: one new revision, the row, an audit entry with the document', async () => {
    const rev = await revision();
    const doc = toManifestDocument(publicManifest('credit-note'));
    const { manifest, revision: next } = await changes.create(admin, { agentId: AGENT, expectedRevision: rev, manifest: doc });
    expect(next).toBe(rev + 1);
    expect(manifest.manifest).toMatchObject({ id: 'credit-note', state: 'ga', visibility: 'public' });
    const audit = await ctx.given.prisma.auditEvent.findFirstOrThrow({ where: { targetId: `${AGENT}/credit-note` } });
    expect(audit).toMatchObject({ action: 'manifest.create', actor: 'alice', revision: next, after: doc });
  });

  it('refuses a public manifest whose text would leak a non-public skill onto the public card', async () => {
    const leaky = publicManifest('leaky', { description: `Also: ${reconcile.skill.description}` });
    const error = await refusedWithoutWriting(async () =>
      changes.create(admin, { agentId: AGENT, expectedRevision: await revision(), manifest: toManifestDocument(leaky) }),
    );
    expect(error).toBeInstanceOf(ManifestError);
    expect(error).toMatchObject({ code: ManifestErrorCode.PublicCardLeak });
    expect((error as ManifestError).extensions.leaks).toEqual(expect.arrayContaining([expect.objectContaining({ skillId: reconcile.id })]));
  });

  it('refuses a change made against a stale revision with STALE_REVISION', async () => {
    const doc = toManifestDocument(publicManifest('late-comer'));
    const error = await refusedWithoutWriting(async () =>
      changes.create(admin, { agentId: AGENT, expectedRevision: (await revision()) - 1, manifest: doc }),
    );
    expect(error).toMatchObject({ code: RegistryErrorCode.StaleRevision, details: { agentId: AGENT } });
  });

  it.each([
    ['a document that is not a manifest', () => ({ id: 42, skill: 'none' })],
    ['a hostile, deeply nested document', () => JSON.parse(`${'{"a":'.repeat(500)}1${'}'.repeat(500)}`) as unknown],
    ['a huge description', () => toManifestDocument(publicManifest('huge', { description: 'x'.repeat(200_000) }))],
  ])('refuses %s with paths, writing nothing', async (_what, doc) => {
    const error = await refusedWithoutWriting(async () =>
      changes.create(admin, { agentId: AGENT, expectedRevision: await revision(), manifest: doc() }),
    );
    expect(error).toBeInstanceOf(InputValidationError);
    expect((error as InputValidationError).validationErrors[0].path).toMatch(/^\$/);
  });

  it('refuses to remove a ga capability (deprecate first) and allows deprecate, then remove', async () => {
    const error = await refusedWithoutWriting(async () =>
      changes.remove(admin, { agentId: AGENT, capabilityId: 'credit-note', expectedRevision: await revision() }),
    );
    expect(error).toBeInstanceOf(InputValidationError);
    await changes.deprecate(admin, { agentId: AGENT, capabilityId: 'credit-note', expectedRevision: await revision(), reason: 'unused' });
    await changes.remove(admin, { agentId: AGENT, capabilityId: 'credit-note', expectedRevision: await revision() });
    expect((await stored()).find((m) => m.capabilityId === 'credit-note')?.state).toBe('removed');
  });

  it('never reuses the id of a removed capability', async () => {
    const error = await refusedWithoutWriting(async () =>
      changes.create(admin, {
        agentId: AGENT,
        expectedRevision: await revision(),
        manifest: toManifestDocument(publicManifest('credit-note')),
      }),
    );
    expect((error as InputValidationError).validationErrors).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: '$.id', message: expect.stringContaining('never reused') })]),
    );
  });

  it("hides another team's manifests from a team admin (NOT_FOUND, like a missing one) and refuses its changes", async () => {
    const outsider = principal(['team-admin'], ['another-team']);
    await expect(reads.get(outsider, AGENT, lookup.id)).rejects.toMatchObject({ code: CommonErrorCode.NotFound });
    await expect(reads.get(outsider, AGENT, 'no-such-capability')).rejects.toMatchObject({ code: CommonErrorCode.NotFound });
    expect((await reads.get(principal(['team-admin'], [teamId]), AGENT, lookup.id)).manifest.id).toBe(lookup.id);
    const error = await refusedWithoutWriting(async () =>
      changes.deprecate(outsider, { agentId: AGENT, capabilityId: lookup.id, expectedRevision: await revision() }),
    );
    expect(error).toMatchObject({ code: CommonErrorCode.NotFound });
  });
});
