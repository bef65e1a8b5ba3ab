import { financeAgentExample, toManifestDocument } from '@cp/capabilities';
import type { GivenDb } from '../support/given-db';
import { codeOf, gql, gqlOk } from '../support/graphql-client';
import { financeAdminApp, type FinanceAdminApp } from '../support/finance-admin-app';

const CREATE = 'mutation($input: ManifestDocumentInput!) { createManifest(input: $input) { revision manifest { id state document } } }';
const APPLY = `mutation($input: ApplyManifestsInput!) { applyManifests(input: $input) {
  dryRun applied revision added changed { id fields values { field before after } } deprecated removed unchanged breaking
  publicCardDiff { kind skillId breaking } leaks { skillId field } } }`;
const LIFECYCLE = (op: string, input = 'LifecycleInput') =>
  `mutation($input: ${input}!) { ${op}(input: $input) { revision manifest { id state replacedBy deprecationReason deprecatedAt removedAt } } }`;

describe('admin API manifests (HTTP)', () => {
  let url: string;
  let given: GivenDb;
  let admin: string;
  const example = financeAgentExample();
  const docs = example.manifests.map(toManifestDocument);
  const agentId = 'finance-agent';
  const manifestCount = async () => given.prisma.capabilityManifest.count({ where: { agentId } });

  let stack: FinanceAdminApp;

  beforeAll(async () => {
    stack = await financeAdminApp('admin_manifests', { agentId });
    ({ url, given, admin } = stack);
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('refuses an invalid manifest with every error and its path, and writes nothing', async () => {
    const revision = await given.revisionOf(agentId);
    const before = await manifestCount();
    const bad = {
      ...docs[0],
      id: 'Bad Id',
      state: 'beta',
      skill: { ...docs[0].skill, name: '' },
      requires_scopes: ['nope.scope'],
      extra: 1,
    };
    const res = await gql(url, admin, CREATE, { input: { agentId, expectedRevision: revision, manifest: bad } });
    expect(codeOf(res)).toBe('BAD_USER_INPUT');
    const paths = (res.errors![0].extensions.validationErrors as { path: string; message: string }[]).map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['$.id', '$.state', '$.skill.name', '$.extra']));
    expect(await given.revisionOf(agentId)).toBe(revision);
    expect(await manifestCount()).toBe(before);

    // Valid on its own, wrong against the registry: unknown scope and owner, replacement missing.
    const dangling = {
      ...docs[1],
      id: 'reconcile-v2',
      handler: 'recon.v4.reconcile',
      owner: 'ghost-team',
      requires_scopes: ['ghost.scope'],
      state: 'deprecated',
      replaced_by: 'nowhere',
    };
    const res2 = await gql(url, admin, CREATE, { input: { agentId, expectedRevision: revision, manifest: dangling } });
    expect(codeOf(res2)).toBe('BAD_USER_INPUT');
    expect([...new Set((res2.errors![0].extensions.validationErrors as { path: string }[]).map((e) => e.path))].sort()).toEqual([
      '$.owner',
      '$.replaced_by',
      '$.requires_scopes[0]',
    ]);
    expect(await given.revisionOf(agentId)).toBe(revision);
  });

  it('answers a stale revision with CONFLICT before judging the document, in createManifest, updateManifest and applyManifests', async () => {
    const revision = await given.revisionOf(agentId);
    const bad = { ...docs[0], id: 'Bad Id', state: 'beta' };
    for (const [query, input] of [
      [CREATE, { agentId, expectedRevision: revision - 1, manifest: bad }],
      [CREATE.replace(/createManifest/g, 'updateManifest'), { agentId, expectedRevision: revision - 1, manifest: bad }],
      [APPLY, { agentId, manifests: [bad], dryRun: false, expectedRevision: revision - 1 }],
    ] as const) {
      const res = await gql(url, admin, query, { input });
      expect(codeOf(res)).toBe('CONFLICT');
      expect(res.errors![0].message).toBe(`agent "${agentId}" is at revision ${revision}, not ${revision - 1}: reload and retry`);
    }
    expect(await given.revisionOf(agentId)).toBe(revision);
  });

  it('applyManifests: a dry run plans and writes nothing; the apply writes the same plan in one revision', async () => {
    const revision = await given.revisionOf(agentId);
    const desired = [
      { ...docs[0], skill: { ...docs[0].skill, description: 'Finds an invoice by number and returns its status.' } },
      docs[1],
      {
        ...docs[0],
        id: 'invoice-search',
        handler: 'invoices.v1.search',
        state: 'preview',
        visibility: 'extended',
        skill: {
          ...docs[0].skill,
          name: 'Search invoices',
          description: 'Searches invoices by customer.',
          examples: ['Show the open invoices of Initech.'],
        },
      },
    ];
    const dry = (await gqlOk(url, admin, APPLY, { input: { agentId, manifests: desired } })).applyManifests;
    expect(dry).toMatchObject({
      dryRun: true,
      applied: false,
      revision,
      added: ['invoice-search'],
      changed: [
        {
          id: 'invoice-lookup',
          fields: ['skill.description'],
          // Side by side: the stored value and the desired one, for the field the plan names.
          values: [
            { field: 'skill.description', before: docs[0].skill.description, after: 'Finds an invoice by number and returns its status.' },
          ],
        },
      ],
      unchanged: ['reconcile-invoice'],
      breaking: false,
      leaks: [],
    });
    expect(dry.publicCardDiff).toEqual([{ kind: 'description-changed', skillId: 'invoice-lookup', breaking: false }]);
    expect(await given.revisionOf(agentId)).toBe(revision);
    expect(await manifestCount()).toBe(2);

    expect(codeOf(await gql(url, admin, APPLY, { input: { agentId, manifests: desired, dryRun: false } }))).toBe('BAD_USER_INPUT');
    const applied = (await gqlOk(url, admin, APPLY, { input: { agentId, manifests: desired, dryRun: false, expectedRevision: revision } }))
      .applyManifests;
    expect(applied).toMatchObject({ dryRun: false, applied: true, revision: revision + 1, added: ['invoice-search'] });
    expect(await manifestCount()).toBe(3);

    // Same input again: nothing to do, no new revision.
    const again = (
      await gqlOk(url, admin, APPLY, { input: { agentId, manifests: desired, dryRun: false, expectedRevision: revision + 1 } })
    ).applyManifests;
    expect(again).toMatchObject({ applied: false, revision: revision + 1, added: [], changed: [] });
    expect([...again.unchanged].sort()).toEqual(['invoice-lookup', 'invoice-search', 'reconcile-invoice']);

    // Omitting a ga capability is refused (deprecate first), with the reason; stale revision is CONFLICT.
    const omit = await gql(url, admin, APPLY, {
      input: { agentId, manifests: desired.slice(1), dryRun: false, expectedRevision: revision + 1 },
    });
    expect(codeOf(omit)).toBe('BAD_USER_INPUT');
    expect(JSON.stringify(omit.errors![0].extensions.validationErrors)).toContain('deprecate it first');
    expect(
      codeOf(await gql(url, admin, APPLY, { input: { agentId, manifests: desired, dryRun: false, expectedRevision: revision } })),
    ).toBe('CONFLICT');
    expect(await given.revisionOf(agentId)).toBe(revision + 1);
  });

  it('applyManifests: a ga capability keeps its modes (error with path); removing a deprecated public skill is flagged breaking', async () => {
    const current = (
      await gqlOk(url, admin, '{ manifests(filter: {agentId: "finance-agent"}) { nodes { document } } }')
    ).manifests.nodes.map((n: { document: { id: string } }) => n.document);
    const narrowed = current.map((d: Record<string, unknown>) =>
      d.id === 'invoice-lookup' ? { ...d, skill: { ...(d.skill as object), inputModes: ['text/plain'] } } : d,
    );
    const refused = await gql(url, admin, APPLY, { input: { agentId, manifests: narrowed } });
    expect(codeOf(refused)).toBe('BAD_USER_INPUT');
    expect(refused.errors![0].extensions.validationErrors).toEqual([expect.objectContaining({ path: '$[0].skill.inputModes' })]);

    await given.manifest(
      { id: agentId, teamId: example.manifests[0].owner },
      {
        id: 'legacy-lookup',
        visibility: 'public',
        state: 'deprecated',
        deprecationReason: 'superseded',
        skill: { name: 'Legacy lookup', description: 'The old lookup.', tags: ['legacy'] },
      },
    );
    try {
      const plan = (await gqlOk(url, admin, APPLY, { input: { agentId, manifests: current } })).applyManifests;
      expect(plan).toMatchObject({ dryRun: true, applied: false, removed: ['legacy-lookup'], breaking: true });
      expect(plan.publicCardDiff).toContainEqual({ kind: 'skill-removed', skillId: 'legacy-lookup', breaking: true });
    } finally {
      await given.prisma.capabilityManifest.delete({ where: { agentId_capabilityId: { agentId, capabilityId: 'legacy-lookup' } } });
    }
  });

  it('lifecycle: promote, deprecate (needs a replacement or a reason), remove, and never reuse a removed id', async () => {
    let revision = await given.revisionOf(agentId);
    const promote = (
      await gqlOk(url, admin, LIFECYCLE('promoteManifest'), {
        input: { agentId, capabilityId: 'invoice-search', expectedRevision: revision },
      })
    ).promoteManifest;
    expect(promote).toMatchObject({ revision: revision + 1, manifest: { id: 'invoice-search', state: 'ga' } });
    revision += 1;

    const removeGa = await gql(url, admin, LIFECYCLE('removeManifest'), {
      input: { agentId, capabilityId: 'invoice-search', expectedRevision: revision },
    });
    expect(codeOf(removeGa)).toBe('BAD_USER_INPUT');
    expect(removeGa.errors![0].extensions.validationErrors).toEqual([
      expect.objectContaining({ path: '$.state', message: expect.stringContaining('deprecate it first') }),
    ]);

    const bare = await gql(url, admin, LIFECYCLE('deprecateManifest', 'DeprecateInput'), {
      input: { agentId, capabilityId: 'invoice-search', expectedRevision: revision },
    });
    expect(codeOf(bare)).toBe('BAD_USER_INPUT');
    expect((bare.errors![0].extensions.validationErrors as { path: string }[])[0].path).toBe('$.replaced_by');

    const deprecated = (
      await gqlOk(url, admin, LIFECYCLE('deprecateManifest', 'DeprecateInput'), {
        input: { agentId, capabilityId: 'invoice-search', replacedBy: 'invoice-lookup', expectedRevision: revision },
      })
    ).deprecateManifest;
    expect(deprecated.manifest).toMatchObject({ state: 'deprecated', replacedBy: 'invoice-lookup' });
    expect(deprecated.manifest.deprecatedAt).toEqual(expect.any(String));
    revision += 1;

    const removed = (
      await gqlOk(url, admin, LIFECYCLE('removeManifest'), {
        input: { agentId, capabilityId: 'invoice-search', expectedRevision: revision },
      })
    ).removeManifest;
    expect(removed).toMatchObject({ revision: revision + 1, manifest: { state: 'removed' } });
    expect(removed.manifest.removedAt).toEqual(expect.any(String));
    revision += 1;

    const reuse = await gql(url, admin, CREATE, {
      input: { agentId, expectedRevision: revision, manifest: { ...docs[0], id: 'invoice-search', handler: 'x.v1.y' } },
    });
    expect(codeOf(reuse)).toBe('BAD_USER_INPUT');
    expect(reuse.errors![0].extensions.validationErrors).toEqual([
      expect.objectContaining({ path: '$.id', message: expect.stringContaining('never reused') }),
    ]);
  });

  it('records the audit trail of a change: actor, action, target, before, after, revision', async () => {
    const events = (
      await gqlOk(
        url,
        admin,
        '{ auditEvents(filter: {agentId: "finance-agent", targetId: "finance-agent/invoice-search"}) { nodes { actor action targetType targetId revision before after } } }',
      )
    ).auditEvents.nodes;
    expect(events.map((e: { action: string }) => e.action)).toEqual([
      'manifest.remove',
      'manifest.deprecate',
      'manifest.promote',
      'manifest.create',
    ]);
    const deprecate = events[1];
    expect(deprecate).toMatchObject({
      actor: 'ci-finance',
      targetType: 'manifest',
      before: { state: 'ga' },
      after: { state: 'deprecated', replaced_by: 'invoice-lookup' },
    });
    expect(events[0].revision).toBe(deprecate.revision + 1);
    // Filters and pagination.
    const page = (
      await gqlOk(
        url,
        admin,
        '{ auditEvents(filter: {action: "manifest.promote"}, page: {first: 1}) { nodes { action } pageInfo { hasNextPage } } }',
      )
    ).auditEvents;
    expect(page).toEqual({ nodes: [{ action: 'manifest.promote' }], pageInfo: { hasNextPage: false } });
  });

  it('lists with filters (state, visibility, tag, owner) and cursor pagination', async () => {
    const q =
      'query($f: ManifestFilter, $p: PageInput) { manifests(filter: $f, page: $p) { nodes { id state visibility } pageInfo { hasNextPage endCursor } } }';
    const ids = async (f: object) =>
      (await gqlOk(url, admin, q, { f: { agentId, ...f } })).manifests.nodes.map((n: { id: string }) => n.id);
    expect(await ids({ state: 'removed' })).toEqual(['invoice-search']);
    expect(await ids({ visibility: 'extended', state: 'ga' })).toEqual(['reconcile-invoice']);
    expect(await ids({ tag: 'invoices', visibility: 'public' })).toEqual(['invoice-lookup']);
    expect(await ids({ tag: 'no-such-tag' })).toEqual([]);
    expect(await ids({ owner: 'someone-else' })).toEqual([]);
    const p1 = (await gqlOk(url, admin, q, { f: { agentId }, p: { first: 2 } })).manifests;
    const p2 = (await gqlOk(url, admin, q, { f: { agentId }, p: { first: 2, after: p1.pageInfo.endCursor } })).manifests;
    expect([...p1.nodes, ...p2.nodes].map((n: { id: string }) => n.id)).toEqual(['invoice-lookup', 'invoice-search', 'reconcile-invoice']);
    expect(p2.pageInfo.hasNextPage).toBe(false);
  });
  it('lists every field as the single read answers it (the list reads its page in SQL of its own, ADR 0340)', async () => {
    const fields = `agentId id state visibility skill { name description tags examples inputModes outputModes } requiresScopes
      allTenants tenants handler limits owner replacedBy deprecationReason sunsetAt routing { terms negativeTerms } document
      createdAt updatedAt deprecatedAt removedAt usage { calls lastCallAt }`;
    const list = (
      await gqlOk(url, admin, `query($a: String!) { manifests(filter: {agentId: $a}) { nodes { ${fields} } } }`, { a: agentId })
    ).manifests.nodes as { id: string; removedAt: string | null }[];
    expect(list.length).toBeGreaterThanOrEqual(3);
    for (const node of list) {
      const one = await gqlOk(url, admin, `query($a: String!, $c: String!) { manifest(agentId: $a, capabilityId: $c) { ${fields} } }`, {
        a: agentId,
        c: node.id,
      });
      expect(node).toEqual(one.manifest);
    }
    // The lifecycle stamps set above are among them, so the timestamps were compared, not only nulls.
    expect(list.some((n) => n.removedAt !== null)).toBe(true);
  });
});
