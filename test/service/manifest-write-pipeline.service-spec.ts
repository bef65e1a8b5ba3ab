/**
 * One manifest write pipeline (issue 15, item 6): createManifest, updateManifest, the lifecycle
 * mutations and applyManifests take the same steps in the same order, so the same kind of problem
 * answers with the same error, and the same kind of change leaves the same audit trail, whichever
 * mutation caused it. Each case runs every relevant mutation against one real database.
 */
import { financeAgentExample, toManifestDocument, type CapabilityManifest } from '@cp/capabilities';
import { RegistryErrorCode } from '@cp/db';
import { CommonErrorCode, InputValidationError } from '../../apps/control-plane/src/common/errors';
import { ApplyManifestsService } from '../../apps/control-plane/src/manifests/apply-manifests.service';
import { manifestListProjection } from '../../apps/control-plane/src/manifests/dto/manifest.mapper';
import { ManifestChangesService } from '../../apps/control-plane/src/manifests/manifest-changes.service';
import { ManifestError, ManifestErrorCode } from '../../apps/control-plane/src/manifests/manifests.errors';
import { ManifestsModule } from '../../apps/control-plane/src/manifests/manifests.module';
import { ManifestsService } from '../../apps/control-plane/src/manifests/manifests.service';
import { principal, serviceModule } from '../support/service-module';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const AGENT = 'svc-pipeline';

describe('one manifest write pipeline (service tier)', () => {
  let db: TestDatabase;
  let ctx: Awaited<ReturnType<typeof serviceModule>>;
  let changes: ManifestChangesService;
  let applier: ApplyManifestsService;
  const admin = principal(['platform-admin'], [], 'alice');
  const [lookup, reconcile] = financeAgentExample().manifests;

  beforeAll(async () => {
    db = await createTestDatabase('svc_manifest_pipeline');
    ctx = await serviceModule(db, [ManifestsModule]);
    changes = ctx.get(ManifestChangesService);
    applier = ctx.get(ApplyManifestsService);
    await ctx.given.financeExample(AGENT);
  });
  afterAll(async () => {
    await ctx?.close();
    await db?.drop();
  });

  const revision = () => ctx.given.revisionOf(AGENT);
  const manifestDoc = (id: string, overrides: Partial<CapabilityManifest> = {}, skill: Partial<CapabilityManifest['skill']> = {}) =>
    toManifestDocument({
      ...lookup,
      id,
      handler: `${id.replace(/-/g, '')}.v1.run`,
      ...overrides,
      skill: { ...lookup.skill, name: `Skill ${id}`, description: `Does ${id}.`, examples: [`Please ${id}`], ...skill },
    });
  const baseDocs = () => [lookup, reconcile].map(toManifestDocument);
  const audits = (targetId: string) =>
    ctx.given.prisma.auditEvent.findMany({ where: { targetId: `${AGENT}/${targetId}` }, orderBy: { id: 'asc' } });
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('expected the mutation to be refused');
      },
      (e: unknown) => e,
    );

  /** Runs a refused mutation and proves nothing moved: same revision, no new audit entry. */
  async function refused(change: () => Promise<unknown>): Promise<unknown> {
    const [rev, count] = [await revision(), await ctx.given.prisma.auditEvent.count()];
    const error = await failure(change());
    expect(await revision()).toBe(rev);
    expect(await ctx.given.prisma.auditEvent.count()).toBe(count);
    return error;
  }

  it('a stale revision answers STALE_REVISION (CONFLICT) before the documents are judged, in every mutation', async () => {
    const stale = (await revision()) - 1;
    const bad = { id: 'Bad Id', skill: 'none' };
    const cases: [string, () => Promise<unknown>][] = [
      ['create', () => changes.create(admin, { agentId: AGENT, expectedRevision: stale, manifest: bad })],
      ['update', () => changes.update(admin, { agentId: AGENT, expectedRevision: stale, manifest: bad })],
      ['promote', () => changes.promote(admin, { agentId: AGENT, capabilityId: 'no-such-capability', expectedRevision: stale })],
      ['deprecate', () => changes.deprecate(admin, { agentId: AGENT, capabilityId: lookup.id, expectedRevision: stale })],
      ['remove', () => changes.remove(admin, { agentId: AGENT, capabilityId: lookup.id, expectedRevision: stale })],
      ['apply', () => applier.apply(admin, { agentId: AGENT, manifests: [bad], dryRun: false, expectedRevision: stale })],
      ['dry run', () => applier.apply(admin, { agentId: AGENT, manifests: [bad], dryRun: true, expectedRevision: stale })],
    ];
    for (const [name, run] of cases) {
      const error = await refused(run);
      expect([name, error]).toEqual([name, expect.objectContaining({ code: RegistryErrorCode.StaleRevision })]);
      expect((error as Error).message).toBe(`agent "${AGENT}" is at revision ${stale + 1}, not ${stale}: reload and retry`);
    }
  });

  it('an agent the caller may not change answers NOT_FOUND before its documents are judged, in every mutation', async () => {
    const outsider = principal(['team-admin'], ['another-team']);
    const rev = await revision();
    const bad = { id: 'Bad Id' };
    for (const run of [
      () => changes.create(outsider, { agentId: AGENT, expectedRevision: rev, manifest: bad }),
      () => changes.update(outsider, { agentId: AGENT, expectedRevision: rev, manifest: bad }),
      () => applier.apply(outsider, { agentId: AGENT, manifests: [bad], dryRun: true }),
    ]) {
      expect(await refused(run)).toMatchObject({ code: CommonErrorCode.NotFound });
    }
  });

  it('refuses a public-card leak with the same error, message and leaks from createManifest, updateManifest and applyManifests', async () => {
    const rev = await revision();
    const leaky = manifestDoc('leaky', {}, { description: `Also: ${reconcile.skill.description}` });
    const leakyLookup = { ...toManifestDocument(lookup), skill: { ...lookup.skill, description: `Also: ${reconcile.skill.description}` } };
    const errors = [
      await refused(() => changes.create(admin, { agentId: AGENT, expectedRevision: rev, manifest: leaky })),
      await refused(() => changes.update(admin, { agentId: AGENT, expectedRevision: rev, manifest: leakyLookup })),
      await refused(() =>
        applier.apply(admin, { agentId: AGENT, manifests: [...baseDocs(), leaky], dryRun: false, expectedRevision: rev }),
      ),
    ] as ManifestError[];
    for (const error of errors) {
      expect(error).toBeInstanceOf(ManifestError);
      expect(error.code).toBe(ManifestErrorCode.PublicCardLeak);
      expect(error.message).toMatch(/^the public card would show text of non-public skills \(.*reconcile-invoice\.description.*\)$/);
      expect(error.extensions.leaks).toContainEqual(expect.objectContaining({ skillId: reconcile.id, field: 'description' }));
    }
    // A dry run reports the same leaks in the plan instead of refusing.
    const plan = await applier.apply(admin, { agentId: AGENT, manifests: [...baseDocs(), leaky], dryRun: true });
    expect(plan.leaks).toEqual(errors[2].extensions.leaks);
  });

  it('judges a change on the leaks it adds (ADR 0335): removing one of two existing leaks is written, a plan lists only what it adds', async () => {
    // Seeded directly: the agent's description already shows the tags of two extended skills.
    const agent = await ctx.given.agent({ base: { description: 'Answers procurement and travel questions.' } });
    const buying = await ctx.given.manifest(agent, {
      skill: { name: 'Raise a requisition', description: 'Files it.', tags: ['procurement'] },
    });
    const trips = await ctx.given.manifest(agent, { skill: { name: 'Book a business trip', description: 'Books it.', tags: ['travel'] } });
    const docs = [buying, trips].map(toManifestDocument);
    const fixed = { ...docs[1], skill: { ...docs[1].skill, tags: ['trips'] } };
    expect(await changes.update(admin, { agentId: agent.id, expectedRevision: 1, manifest: fixed })).toMatchObject({ revision: 2 });

    const copying = manifestDoc(
      'copy-cat',
      { owner: agent.teamId, visibility: 'public' },
      { description: 'Will raise a requisition for you.' },
    );
    const plan = await applier.apply(admin, { agentId: agent.id, manifests: [docs[0], fixed, copying], dryRun: true });
    expect(plan.leaks.map((l) => `${l.skillId}.${l.field}`)).toEqual([`${buying.id}.name`]);
    expect((await applier.apply(admin, { agentId: agent.id, manifests: [docs[0], fixed], dryRun: true })).leaks).toEqual([]);
  });

  it('refuses rule violations with the same error shape from every mutation: BAD_USER_INPUT, paths into what was sent, a message naming each', async () => {
    const rev = await revision();
    const ghost = manifestDoc('ghost-owned', { owner: 'ghost-team' });
    const single = (await refused(() =>
      changes.create(admin, { agentId: AGENT, expectedRevision: rev, manifest: ghost }),
    )) as InputValidationError;
    const applied = (await refused(() =>
      applier.apply(admin, { agentId: AGENT, manifests: [...baseDocs(), ghost], dryRun: false, expectedRevision: rev }),
    )) as InputValidationError;
    const dry = (await refused(() =>
      applier.apply(admin, { agentId: AGENT, manifests: [...baseDocs(), ghost], dryRun: true }),
    )) as InputValidationError;
    expect(single.validationErrors).toEqual([{ path: '$.owner', message: 'team "ghost-team" does not exist' }]);
    expect(applied.validationErrors).toEqual([{ path: '$[2].owner', message: 'team "ghost-team" does not exist' }]);
    expect(dry.validationErrors).toEqual(applied.validationErrors);
    expect(single.message).toBe('manifest "ghost-owned" cannot be created: $.owner team "ghost-team" does not exist');
    expect(applied.message).toBe('manifests cannot be applied: $[2].owner team "ghost-team" does not exist');
    for (const e of [single, applied, dry]) expect(e.code).toBe(CommonErrorCode.InvalidInput);

    // A document that is not a manifest: the same error type and message form, single or apply.
    const notManifest = (await refused(() =>
      changes.create(admin, { agentId: AGENT, expectedRevision: rev, manifest: { id: 42 } }),
    )) as InputValidationError;
    expect(notManifest).toBeInstanceOf(InputValidationError);
    expect(notManifest.message).toMatch(/^manifest cannot be created: \$\.handler is required; \$\.id /);
    const notManifests = (await refused(() =>
      applier.apply(admin, { agentId: AGENT, manifests: [{ id: 42 }], dryRun: false, expectedRevision: rev }),
    )) as InputValidationError;
    expect(notManifests.message).toMatch(/^manifests cannot be applied: \$\[0\]\.handler is required; \$\[0\]\.id /);
  });

  it('writes one revision and one audit entry per changed capability; the event names the kind of change, whichever mutation made it', async () => {
    // Through the single mutations: create a preview, then move it to ga with updateManifest.
    let rev = await revision();
    const preview = manifestDoc('via-update', { state: 'preview', visibility: 'extended' });
    const created = await changes.create(admin, { agentId: AGENT, expectedRevision: rev, manifest: preview });
    expect(created.revision).toBe(rev + 1);
    const updated = await changes.update(admin, { agentId: AGENT, expectedRevision: rev + 1, manifest: { ...preview, state: 'ga' } });
    expect(updated.revision).toBe(rev + 2);
    expect(updated.manifest.manifest.state).toBe('ga');
    const single = await audits('via-update');
    expect(single.map((a) => [a.action, a.revision, a.actor, a.targetType])).toEqual([
      ['manifest.create', rev + 1, 'alice', 'manifest'],
      ['manifest.promote', rev + 2, 'alice', 'manifest'],
    ]);
    expect(single[1]).toMatchObject({ before: { state: 'preview' }, after: { state: 'ga' } });

    // Through the lifecycle mutation: the same event for the same change.
    rev = await revision();
    await changes.create(admin, { agentId: AGENT, expectedRevision: rev, manifest: manifestDoc('via-promote', { state: 'preview' }) });
    await changes.promote(admin, { agentId: AGENT, capabilityId: 'via-promote', expectedRevision: rev + 1 });
    expect((await audits('via-promote')).map((a) => a.action)).toEqual(['manifest.create', 'manifest.promote']);

    // Through apply: create and promote two capabilities in one revision, one audit entry each.
    rev = await revision();
    const existing = await allDocs();
    const viaApply = manifestDoc('via-apply', { state: 'preview' });
    const first = await applier.apply(admin, { agentId: AGENT, manifests: [...existing, viaApply], dryRun: false, expectedRevision: rev });
    expect(first).toMatchObject({ applied: true, revision: rev + 1, added: ['via-apply'] });
    const second = await applier.apply(admin, {
      agentId: AGENT,
      manifests: [...existing, { ...viaApply, state: 'ga' }],
      dryRun: false,
      expectedRevision: rev + 1,
    });
    expect(second).toMatchObject({ applied: true, revision: rev + 2, changed: [{ id: 'via-apply', fields: ['state'] }] });
    const viaApplyAudit = await audits('via-apply');
    expect(viaApplyAudit.map((a) => [a.action, a.revision])).toEqual([
      ['manifest.create', rev + 1],
      ['manifest.promote', rev + 2],
    ]);
    // Same shape as the single mutation's: before and after are the documents.
    expect(viaApplyAudit[1]).toMatchObject({
      targetType: 'manifest',
      actor: 'alice',
      before: { state: 'preview' },
      after: { state: 'ga' },
    });
    expect(Object.keys(viaApplyAudit[1].after as object).sort()).toEqual(Object.keys(single[1].after as object).sort());
    expect(await ctx.given.prisma.registryRevision.count({ where: { agentId: AGENT, revision: rev + 2 } })).toBe(1);
  });

  it('a mutation that changes nothing writes nothing: no revision, no audit entry (as an apply of the same set)', async () => {
    const rev = await revision();
    const count = await ctx.given.prisma.auditEvent.count();
    const same = await changes.update(admin, { agentId: AGENT, expectedRevision: rev, manifest: toManifestDocument(lookup) });
    expect(same.revision).toBe(rev);
    expect(same.manifest.manifest.id).toBe(lookup.id);
    expect(await revision()).toBe(rev);
    expect(await ctx.given.prisma.auditEvent.count()).toBe(count);
  });

  it('stages allowUnserved the same way from createManifest and applyManifests: one allow-unserved audit entry per capability', async () => {
    await ctx.given.prisma.nodeInventory.create({
      data: { agentId: AGENT, nodeId: 'node-old', handlers: [], reportedAt: new Date(Date.now() + 60_000) },
    });
    try {
      let rev = await revision();
      const bySingle = manifestDoc('staged-single');
      const refusedUnserved = (await refused(() =>
        changes.create(admin, { agentId: AGENT, expectedRevision: rev, manifest: bySingle }),
      )) as InputValidationError;
      expect(refusedUnserved.validationErrors).toEqual([
        { path: '$.handler', message: expect.stringContaining('is not served by live node(s) node-old') },
      ]);
      await changes.create(admin, { agentId: AGENT, expectedRevision: rev, manifest: bySingle, allowUnserved: ['staged-single'] });
      rev += 1;
      const byApply = manifestDoc('staged-apply');
      const desired = [...(await allDocs()), byApply];
      const applied = await applier.apply(admin, {
        agentId: AGENT,
        manifests: desired,
        dryRun: false,
        expectedRevision: rev,
        allowUnserved: ['staged-apply'],
      });
      expect(applied).toMatchObject({ applied: true, revision: rev + 1, added: ['staged-apply'] });
      const staged = await ctx.given.prisma.auditEvent.findMany({ where: { action: 'manifest.allow-unserved' }, orderBy: { id: 'asc' } });
      expect(staged.map((a) => [a.targetId, a.revision, a.after])).toEqual([
        [`${AGENT}/staged-single`, rev, { allowUnserved: true, handler: 'stagedsingle.v1.run', nodesLacking: ['node-old'] }],
        [`${AGENT}/staged-apply`, rev + 1, { allowUnserved: true, handler: 'stagedapply.v1.run', nodesLacking: ['node-old'] }],
      ]);
    } finally {
      await ctx.given.prisma.nodeInventory.deleteMany({ where: { agentId: AGENT } });
    }
  });

  it('judges allowUnserved the same way in every mutation: a name that is not a capability of the agent is refused, also by deprecate and remove', async () => {
    const rev = await revision();
    const hostile = ['x'.repeat(5000), 'another-agents-capability'];
    for (const run of [
      () =>
        changes.deprecate(admin, { agentId: AGENT, capabilityId: lookup.id, expectedRevision: rev, reason: 'r', allowUnserved: hostile }),
      () => changes.promote(admin, { agentId: AGENT, capabilityId: lookup.id, expectedRevision: rev, allowUnserved: hostile }),
      () => applier.apply(admin, { agentId: AGENT, manifests: [], dryRun: true, allowUnserved: hostile }),
    ]) {
      const error = (await refused(run)) as InputValidationError;
      expect(error.validationErrors).toEqual(
        expect.arrayContaining([
          { path: '$.allowUnserved[0]', message: `"${'x'.repeat(100)}" is not a capability of this agent` },
          { path: '$.allowUnserved[1]', message: '"another-agents-capability" is not a capability of this agent' },
        ]),
      );
    }
  });

  it('names at most ten problems in the message of a hostile plan and carries every one in validationErrors', async () => {
    const many = Array.from({ length: 300 }, (_, i) => ({ id: `bad-${i}` }));
    const rev = await revision();
    const error = (await refused(() =>
      applier.apply(admin, { agentId: AGENT, manifests: many, dryRun: false, expectedRevision: rev }),
    )) as InputValidationError;
    expect(error.validationErrors.length).toBeGreaterThan(300);
    expect(error.message.split('; ')).toHaveLength(11);
    expect(error.message).toMatch(new RegExp(`; and ${error.validationErrors.length - 10} more$`));
  });

  /** Every current document of the agent, as the admin API returns it. */
  async function allDocs(): Promise<unknown[]> {
    const documents = manifestListProjection(new Set(['document']));
    const list = await ctx.get(ManifestsService).list(admin, { agentId: AGENT }, { first: 100 }, documents.columns);
    return list.nodes.map((r) => documents.toModel(r).document);
  }
});
