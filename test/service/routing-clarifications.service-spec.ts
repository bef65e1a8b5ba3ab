/**
 * RoutingClarificationsService with the manifest write path on a real database (service tier):
 * nodes report the capability callers chose after a clarification (only ever about their own
 * agent), admins dismiss them or promote one into the manifest through the ordinary update
 * (a new revision), and nothing learned reaches another agent or team (ADR 0094).
 */
import type { NodePrincipal } from '@cp/auth';
import { RoutingFeedbackModule } from '../../apps/control-plane/src/routing-feedback/routing-feedback.module';
import { RoutingClarificationsService } from '../../apps/control-plane/src/routing-feedback/routing-clarifications.service';
import { RoutingClarificationsRepository } from '../../apps/control-plane/src/routing-feedback/routing-clarifications.repository';
import { ManifestChangesService } from '../../apps/control-plane/src/manifests/manifest-changes.service';
import { ClarificationIngestErrorCode } from '../../apps/control-plane/src/routing-feedback/routing-clarifications.errors';
import { PromoteAs } from '../../apps/control-plane/src/routing-feedback/dto/routing-clarification.model';
import { CommonErrorCode, InputValidationError } from '../../apps/control-plane/src/common/errors';
import { NodeInputError } from '../../apps/control-plane/src/node-auth/node-http-error';
import type { GivenAgent } from '../support/given-db';
import { principal, serviceModule } from '../support/service-module';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

describe('RoutingClarificationsService (service tier)', () => {
  let db: TestDatabase;
  let ctx: Awaited<ReturnType<typeof serviceModule>>;
  let sut: RoutingClarificationsService;

  beforeAll(async () => {
    db = await createTestDatabase('svc_clarifications');
    ctx = await serviceModule(db, [RoutingFeedbackModule]);
    sut = ctx.get(RoutingClarificationsService);
  });
  afterAll(async () => {
    await ctx?.close();
    await db?.drop();
  });

  const nodeOf = (agent: GivenAgent): NodePrincipal => ({ kind: 'node', subject: `node-of-${agent.id}`, agentId: agent.id });
  const ownerOf = (agent: GivenAgent) => principal(['team-admin'], [agent.teamId], 'owner');
  /**
   * Another admin's decision landing inside `call`: the first call of `target[method]` runs
   * `once(original)` instead (the spy restored after). Returns what `call` threw, or answered.
   */
  async function refusedMeanwhile<T extends object, K extends jest.FunctionPropertyNames<Required<T>>>(
    target: T,
    method: K,
    once: (original: T[K]) => T[K],
    call: () => Promise<unknown>,
  ): Promise<unknown> {
    const original = (target[method] as (...args: unknown[]) => unknown).bind(target) as T[K];
    const spy = jest.spyOn(target, method).mockImplementationOnce(once(original) as never);
    try {
      return await call().catch((e: unknown) => e);
    } finally {
      spy.mockRestore();
    }
  }
  const rowsOf = (agentId: string) => ctx.given.prisma.routingClarification.findMany({ where: { agentId }, orderBy: { text: 'asc' } });

  it('records what callers chose, counting a repeat on the same row, and lists it to the owning team', async () => {
    const agent = await ctx.given.agent();
    const cap = await ctx.given.manifest(agent);
    const choice = { text: 'book the refund', capabilityId: cap.id, tenant: 'acme' };
    expect(await sut.ingest(nodeOf(agent), { choices: [choice] })).toEqual({ accepted: 1, autoPromoted: [], notPromoted: [] });
    await sut.ingest(nodeOf(agent), { choices: [choice, { ...choice, tenant: 'globex' }] });
    const listed = await sut.list(ownerOf(agent), agent.id, 'pending');
    expect(listed.map((r) => [r.tenant, r.count])).toEqual([
      ['acme', 2],
      ['globex', 1],
    ]);
  });

  it("refuses a report naming another agent's or a removed capability, naming the choice, and writes nothing of it", async () => {
    const [agent, other] = [await ctx.given.agent(), await ctx.given.agent()];
    const mine = await ctx.given.manifest(agent);
    const removed = await ctx.given.manifest(agent, { state: 'removed', replacedBy: null, deprecationReason: 'gone' });
    const theirs = await ctx.given.manifest(other, { id: 'theirs-only' });
    for (const [capabilityId, index] of [
      [theirs.id, 1],
      [removed.id, 1],
    ] as const) {
      const error = await sut
        .ingest(nodeOf(agent), {
          choices: [
            { text: 'fine', capabilityId: mine.id, tenant: 'acme' },
            { text: 'x', capabilityId, tenant: 'acme' },
          ],
        })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: ClarificationIngestErrorCode.UnknownCapability,
        issues: [{ path: `$.choices[${index}].capabilityId` }],
      });
      expect((error as Error).message).toContain(`"${capabilityId}" is not a live capability of agent "${agent.id}"`);
    }
    expect(await rowsOf(agent.id)).toEqual([]);
    expect(await rowsOf(other.id)).toEqual([]);
  });

  it.each([
    ['no choices', { choices: [] }, '$.choices'],
    ['an unknown field', { choices: [{ text: 'a', capabilityId: 'c', tenant: 't', extra: 1 }] }, '$.choices[0]'],
    ['a huge text', { choices: [{ text: 'x'.repeat(100_000), capabilityId: 'c', tenant: 't' }] }, '$.choices[0].text'],
    ['a blank text', { choices: [{ text: '   ', capabilityId: 'c', tenant: 't' }] }, '$.choices[0].text'],
    ['not an object at all', 'choices', '$'],
  ])('refuses a report with %s as INVALID_REQUEST naming the field, and writes nothing', async (_what, body, path) => {
    const agent = await ctx.given.agent();
    const error = await sut.ingest(nodeOf(agent), body).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NodeInputError);
    expect((error as NodeInputError).issues?.map((i) => i.path)).toContain(path);
    expect(await rowsOf(agent.id)).toEqual([]);
  });

  it('promotes a clarification into the manifest as an example (a new revision) and then refuses to promote it again', async () => {
    const agent = await ctx.given.agent();
    const cap = await ctx.given.manifest(agent);
    await sut.ingest(nodeOf(agent), { choices: [{ text: 'refund a duplicate charge', capabilityId: cap.id, tenant: 'acme' }] });
    const [row] = await rowsOf(agent.id);
    const promoted = await sut.promote(ownerOf(agent), { id: row.id, as: PromoteAs.EXAMPLE, expectedRevision: 1 });
    expect(promoted).toMatchObject({ clarification: { id: row.id, status: 'promoted' }, revision: 2 });
    const stored = await ctx.given.prisma.capabilityManifest.findFirstOrThrow({ where: { agentId: agent.id, capabilityId: cap.id } });
    expect((stored.skill as { examples?: string[] }).examples).toContain('refund a duplicate charge');

    const again = await sut
      .promote(ownerOf(agent), { id: row.id, as: PromoteAs.ROUTING_TERM, expectedRevision: 2 })
      .catch((e: unknown) => e);
    expect(again).toBeInstanceOf(InputValidationError);
    expect((again as InputValidationError).validationErrors).toEqual([{ path: '$.id', message: 'this clarification is already promoted' }]);
    expect(await ctx.given.revisionOf(agent.id)).toBe(2);
  });

  it('a clarification dismissed while its promotion was on its way stays dismissed, and the manifest change is rolled back', async () => {
    const agent = await ctx.given.agent();
    const cap = await ctx.given.manifest(agent);
    await sut.ingest(nodeOf(agent), { choices: [{ text: 'chargeback for a double payment', capabilityId: cap.id, tenant: 'acme' }] });
    const [row] = await rowsOf(agent.id);
    const changes = ctx.get(ManifestChangesService);
    // Another admin dismisses it after the promotion checked it was pending, before the commit.
    const refused = await refusedMeanwhile(
      changes,
      'update',
      (update) => async (who, input, also) => {
        await ctx.given.prisma.routingClarification.update({ where: { id: row.id }, data: { status: 'dismissed' } });
        return update(who, input, also);
      },
      () => sut.promote(ownerOf(agent), { id: row.id, as: PromoteAs.EXAMPLE, expectedRevision: 1 }),
    );
    expect(refused).toBeInstanceOf(InputValidationError);
    expect((refused as InputValidationError).validationErrors).toEqual([
      { path: '$.id', message: 'this clarification was dismissed or promoted meanwhile; nothing was changed' },
    ]);
    expect(await ctx.given.revisionOf(agent.id)).toBe(1);
    const stored = await ctx.given.prisma.capabilityManifest.findFirstOrThrow({ where: { agentId: agent.id, capabilityId: cap.id } });
    expect((stored.skill as { examples?: string[] }).examples ?? []).not.toContain('chargeback for a double payment');
    expect((await rowsOf(agent.id)).map((r) => r.status)).toEqual(['dismissed']);
  });

  it('refuses to dismiss a promoted clarification, naming why, and leaves it promoted; dismissing twice answers the same row', async () => {
    const agent = await ctx.given.agent();
    const cap = await ctx.given.manifest(agent);
    await sut.ingest(nodeOf(agent), {
      choices: [
        { text: 'reissue the credit note', capabilityId: cap.id, tenant: 'acme' },
        { text: 'undo the credit note', capabilityId: cap.id, tenant: 'acme' },
      ],
    });
    const [promotedRow, other] = await rowsOf(agent.id);
    await sut.promote(ownerOf(agent), { id: promotedRow.id, as: PromoteAs.EXAMPLE, expectedRevision: 1 });
    const refused = await sut.dismiss(ownerOf(agent), promotedRow.id).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InputValidationError);
    expect((refused as InputValidationError).validationErrors).toEqual([
      {
        path: '$.id',
        message: 'this clarification is already promoted (its text is in the manifest); remove the text from the manifest instead',
      },
    ]);
    const dismissedOnce = await sut.dismiss(ownerOf(agent), other.id);
    expect(dismissedOnce).toMatchObject({ id: other.id, status: 'dismissed' });
    expect(await sut.dismiss(ownerOf(agent), other.id)).toEqual(dismissedOnce);
    expect((await rowsOf(agent.id)).map((r) => [r.id, r.status])).toEqual([
      [promotedRow.id, 'promoted'],
      [other.id, 'dismissed'],
    ]);
  });

  it('a dismissal that loses the race to a promotion refuses and leaves the clarification promoted', async () => {
    const agent = await ctx.given.agent();
    const cap = await ctx.given.manifest(agent);
    await sut.ingest(nodeOf(agent), { choices: [{ text: 'split the invoice', capabilityId: cap.id, tenant: 'acme' }] });
    const [row] = await rowsOf(agent.id);
    const repository = ctx.get(RoutingClarificationsRepository);
    // The dismissal reads the row pending; a promotion commits before the dismissal writes.
    const refused = await refusedMeanwhile(
      repository,
      'find',
      (find) => async (id) => {
        const pending = await find(id);
        await sut.promote(ownerOf(agent), { id: row.id, as: PromoteAs.EXAMPLE, expectedRevision: 1 });
        return pending;
      },
      () => sut.dismiss(ownerOf(agent), row.id),
    );
    expect(refused).toBeInstanceOf(InputValidationError);
    expect((refused as InputValidationError).validationErrors).toEqual([
      { path: '$.id', message: 'this clarification was dismissed or promoted meanwhile; nothing was changed' },
    ]);
    expect((await rowsOf(agent.id)).map((r) => r.status)).toEqual(['promoted']);
    expect(await ctx.given.revisionOf(agent.id)).toBe(2);
  });

  it('promoting a text the manifest already holds writes no revision and still marks the clarification promoted', async () => {
    const agent = await ctx.given.agent();
    const cap = await ctx.given.manifest(agent);
    await sut.ingest(nodeOf(agent), {
      choices: [
        { text: 'void the second charge', capabilityId: cap.id, tenant: 'acme' },
        { text: 'cancel the duplicate payment', capabilityId: cap.id, tenant: 'acme' },
      ],
    });
    const [one, two] = await rowsOf(agent.id);
    await sut.promote(ownerOf(agent), { id: one.id, as: PromoteAs.EXAMPLE, expectedRevision: 1 });
    const again = await sut.promote(ownerOf(agent), { id: two.id, as: PromoteAs.EXAMPLE, expectedRevision: 2, text: one.text });
    expect(again).toMatchObject({ clarification: { id: two.id, status: 'promoted' }, revision: 2 });
    expect(await ctx.given.revisionOf(agent.id)).toBe(2);
  });

  it("answers NOT_FOUND to another team's admin dismissing or promoting, and leaves the clarification and the manifest alone", async () => {
    const [agent, stranger] = [await ctx.given.agent(), await ctx.given.agent()];
    const cap = await ctx.given.manifest(agent);
    await sut.ingest(nodeOf(agent), { choices: [{ text: 'pay the invoice', capabilityId: cap.id, tenant: 'acme' }] });
    const [row] = await rowsOf(agent.id);
    const outsider = ownerOf(stranger);
    await expect(sut.dismiss(outsider, row.id)).rejects.toMatchObject({ code: CommonErrorCode.NotFound });
    await expect(sut.promote(outsider, { id: row.id, as: PromoteAs.EXAMPLE, expectedRevision: 1 })).rejects.toMatchObject({
      code: CommonErrorCode.NotFound,
    });
    await expect(sut.list(outsider, agent.id, undefined)).rejects.toMatchObject({ code: CommonErrorCode.NotFound });
    expect(await rowsOf(agent.id)).toEqual([row]);
    expect(await ctx.given.revisionOf(agent.id)).toBe(1);

    await expect(sut.dismiss(ownerOf(agent), 'no-such-id')).rejects.toMatchObject({
      code: CommonErrorCode.NotFound,
      message: 'routing clarification "no-such-id" not found',
    });
    expect(await sut.dismiss(ownerOf(agent), row.id)).toMatchObject({ status: 'dismissed' });
  });

  describe('promotion is judged on what it adds to the public card (ADR 0335)', () => {
    /** A registry whose public card already shows a tag of an extended skill: seeded directly, as a registry from before a stricter leak rule. */
    async function leakyRegistry() {
      const agent = await ctx.given.agent();
      const open = await ctx.given.manifest(agent, {
        visibility: 'public',
        skill: { name: 'Procurement help desk', description: 'Answers procurement questions.', tags: ['help'] },
      });
      const hidden = await ctx.given.manifest(agent, {
        skill: { name: 'Raise a purchase requisition', description: 'Files a requisition for approval.', tags: ['procurement'] },
      });
      return { agent, open, hidden };
    }
    const promoteFirst = async (agent: GivenAgent, capabilityId: string, text: string) => {
      await sut.ingest(nodeOf(agent), { choices: [{ text, capabilityId, tenant: 'acme' }] });
      const [row] = (await rowsOf(agent.id)).filter((r) => r.status === 'pending' && r.text === text);
      const revision = await ctx.given.revisionOf(agent.id);
      return { row, revision, run: () => sut.promote(ownerOf(agent), { id: row.id, as: PromoteAs.EXAMPLE, expectedRevision: revision }) };
    };

    it('promotes an example that adds no leak although the registry already had one', async () => {
      const { agent, hidden } = await leakyRegistry();
      const { row, revision, run } = await promoteFirst(agent, hidden.id, 'I need a new laptop for the design team');
      expect(await run()).toMatchObject({ clarification: { id: row.id, status: 'promoted' }, revision: revision + 1 });
      const stored = await ctx.given.prisma.capabilityManifest.findFirstOrThrow({ where: { agentId: agent.id, capabilityId: hidden.id } });
      expect((stored.skill as { examples?: string[] }).examples).toEqual(['I need a new laptop for the design team']);
    });

    it.each([
      ['a public example naming the extended skill', 'open', 'please raise a purchase requisition for me', 'hidden.name'],
      ['an extended example the public card already shows', 'hidden', 'Answers procurement questions', 'hidden.examples[0]'],
    ] as const)('still refuses %s, naming the leak, and changes nothing', async (_what, target, text, named) => {
      const { agent, open, hidden } = await leakyRegistry();
      const { row, revision, run } = await promoteFirst(agent, target === 'open' ? open.id : hidden.id, text);
      const error = await run().catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'PUBLIC_CARD_LEAK' });
      const leak = named.replace('hidden', hidden.id);
      expect((error as Error).message).toBe(`the public card would show text of non-public skills (${leak})`);
      expect(await ctx.given.revisionOf(agent.id)).toBe(revision);
      expect((await rowsOf(agent.id)).find((r) => r.id === row.id)).toMatchObject({ status: 'pending' });
    });
  });

  it('refuses to promote a blank reviewed text, naming it, and changes nothing', async () => {
    const agent = await ctx.given.agent();
    const cap = await ctx.given.manifest(agent);
    await sut.ingest(nodeOf(agent), { choices: [{ text: 'close the books', capabilityId: cap.id, tenant: 'acme' }] });
    const [row] = await rowsOf(agent.id);
    const error = await sut
      .promote(ownerOf(agent), { id: row.id, as: PromoteAs.ROUTING_TERM, text: '  ', expectedRevision: 1 })
      .catch((e: unknown) => e);
    expect((error as InputValidationError).validationErrors).toEqual([{ path: '$.text', message: 'must not be empty' }]);
    expect(await rowsOf(agent.id)).toEqual([row]);
    expect(await ctx.given.revisionOf(agent.id)).toBe(1);
  });
});
