/**
 * Revision history and rollback planning (issue 32): an agent's revisions with who, when and which
 * capabilities; its manifests as of a revision, which go through the normal applyManifests plan
 * (and its approval gate). Access like the agent's other reads; hostile revisions are refused.
 */

import { mintAdminToken } from '@cp/auth';
import { financeAgentExample, toManifestDocument } from '@cp/capabilities';
import type { AppConfig } from '@cp/common';
import type { GivenDb } from '../support/given-db';
import { codeOf, gql, gqlOk, type AnyData } from '../support/graphql-client';
import { financeAdminApp, type FinanceAdminApp } from '../support/finance-admin-app';

const APPLY = `mutation($input: ApplyManifestsInput!) { applyManifests(input: $input) {
  applied revision added removed changed { id fields values { field before after } } approvalRequired { kind capabilityId } changeRequest { id status baseRevision } } }`;
const HISTORY = `query($agentId: String!, $page: PageInput) { registryRevisions(agentId: $agentId, page: $page) {
  nodes { agentId revision actor summary createdAt capabilities { capabilityId action } } pageInfo { hasNextPage endCursor } } }`;
const AT = `query($agentId: String!, $revision: Int!) { manifestsAtRevision(agentId: $agentId, revision: $revision) {
  agentId revision currentRevision manifests } }`;

describe('revision history and rollback planning (HTTP)', () => {
  let url: string;
  let config: AppConfig;
  let given: GivenDb;
  let admin: string;
  let outsider: string;
  const example = financeAgentExample();
  const docs = example.manifests.map(toManifestDocument);
  const agentId = 'finance-agent';
  const withDescription = (description: string) => ({ ...docs[0], skill: { ...docs[0].skill, description } });
  const search = {
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
  };
  let revA: number;
  let revB: number;

  const apply = async (manifests: unknown[], expectedRevision: number, dryRun = false) =>
    (await gqlOk(url, admin, APPLY, { input: { agentId, manifests, dryRun, expectedRevision } })).applyManifests as AnyData;

  let stack: FinanceAdminApp;

  beforeAll(async () => {
    stack = await financeAdminApp('revisions', { agentId });
    ({ url, config, given, admin } = stack);
    const elsewhere = await given.team();
    outsider = mintAdminToken(config, 'ci-elsewhere', ['team-admin'], [elsewhere.id]);
    // Revision A: a new description. Revision B: another description and a new preview capability.
    const start = await given.revisionOf(agentId);
    revA = (await apply([withDescription('Finds an invoice (A).'), ...docs.slice(1)], start)).revision as number;
    revB = (await apply([withDescription('Finds an invoice (B).'), ...docs.slice(1), search], revA)).revision as number;
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
  });

  it('lists the revisions newest first with actor, time, summary and the capabilities each changed, paged', async () => {
    const all = (await gqlOk(url, admin, HISTORY, { agentId })).registryRevisions;
    expect(all.nodes.map((n: AnyData) => n.revision)).toEqual([revB, revA]);
    expect(all.nodes[0]).toMatchObject({ agentId, actor: 'ci-finance', summary: expect.stringContaining('apply: +1 ~1') });
    expect(new Date(all.nodes[0].createdAt).getTime()).toBeLessThanOrEqual(Date.now());
    expect(all.nodes[0].capabilities).toEqual(
      expect.arrayContaining([
        { capabilityId: 'invoice-lookup', action: expect.stringMatching(/^manifest\./) },
        { capabilityId: 'invoice-search', action: expect.stringMatching(/^manifest\./) },
      ]),
    );
    expect(all.nodes[0].capabilities).toHaveLength(2);
    expect(all.nodes[1].capabilities.map((c: AnyData) => c.capabilityId)).toEqual(['invoice-lookup']);

    const first = (await gqlOk(url, admin, HISTORY, { agentId, page: { first: 1 } })).registryRevisions;
    expect(first.nodes.map((n: AnyData) => n.revision)).toEqual([revB]);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = (await gqlOk(url, admin, HISTORY, { agentId, page: { first: 1, after: first.pageInfo.endCursor } })).registryRevisions;
    expect(second.nodes.map((n: AnyData) => n.revision)).toEqual([revA]);
    expect(second.pageInfo.hasNextPage).toBe(false);
  });

  it('gives the manifests as of a revision: the latest document per capability, later capabilities absent', async () => {
    const at = (await gqlOk(url, admin, AT, { agentId, revision: revA })).manifestsAtRevision;
    expect(at).toMatchObject({ agentId, revision: revA, currentRevision: revB });
    const byId = new Map((at.manifests as AnyData[]).map((m) => [m.id, m] as const));
    expect([...byId.keys()].sort()).toEqual(docs.map((d) => d.id).sort());
    expect(byId.get('invoice-lookup')!.skill.description).toBe('Finds an invoice (A).');
    // Never changed through the registry: as it is now.
    expect(byId.get(docs[1].id)).toEqual(JSON.parse(JSON.stringify(docs[1])));
    const latest = (await gqlOk(url, admin, AT, { agentId, revision: revB })).manifestsAtRevision;
    expect((latest.manifests as AnyData[]).map((m) => m.id)).toContain('invoice-search');
  });

  it('plans the rollback through the normal applyManifests: old | new values, then applies it like any apply', async () => {
    const at = (await gqlOk(url, admin, AT, { agentId, revision: revA })).manifestsAtRevision;
    const plan = await apply(at.manifests, at.currentRevision, true);
    expect(plan).toMatchObject({ applied: false, revision: revB, added: [], removed: ['invoice-search'] });
    expect(plan.changed).toEqual([
      {
        id: 'invoice-lookup',
        fields: ['skill.description'],
        values: [{ field: 'skill.description', before: 'Finds an invoice (B).', after: 'Finds an invoice (A).' }],
      },
    ]);
    // Applied the normal way (a preview removal and a description are not gated by the default policy).
    const done = await apply(at.manifests, at.currentRevision);
    expect(done).toMatchObject({ applied: true, revision: revB + 1, removed: ['invoice-search'] });
    const history = (await gqlOk(url, admin, HISTORY, { agentId, page: { first: 1 } })).registryRevisions;
    expect(history.nodes[0]).toMatchObject({ revision: revB + 1, actor: 'ci-finance' });
    const now = (await gqlOk(url, admin, AT, { agentId, revision: revB + 1 })).manifestsAtRevision;
    expect(now.manifests).toEqual(at.manifests);
    // A stale rollback (planned at revB) is refused like any stale apply.
    const stale = await gql(url, admin, APPLY, { input: { agentId, manifests: at.manifests, dryRun: false, expectedRevision: revB } });
    expect(codeOf(stale)).toBe('CONFLICT');
  });

  it("is NOT_FOUND for another team's admin and for an unknown agent, like the agent's other reads", async () => {
    for (const [query, vars] of [
      [HISTORY, { agentId }],
      [AT, { agentId, revision: revA }],
    ] as const) {
      const res = await gql(url, outsider, query, vars);
      expect(codeOf(res)).toBe('NOT_FOUND');
      expect(JSON.stringify(res)).not.toContain('Finds an invoice');
      expect(codeOf(await gql(url, admin, query, { ...vars, agentId: 'no-such-agent' }))).toBe('NOT_FOUND');
    }
  });

  it('refuses hostile revisions and pages with a clear error, never a 5xx', async () => {
    for (const revision of [0, -1]) {
      const res = await gql(url, admin, AT, { agentId, revision });
      expect(codeOf(res)).toBe('BAD_USER_INPUT');
      expect(res.errors![0].message).toContain('$.revision');
    }
    const current = await given.revisionOf(agentId);
    for (const revision of [current + 1, 2_147_483_647]) {
      const res = await gql(url, admin, AT, { agentId, revision });
      expect(codeOf(res)).toBe('NOT_FOUND');
      expect(res.errors![0].message).toBe(`revision "${agentId}@${revision}" not found`);
    }
    // Not an Int: refused by GraphQL before any resolver runs.
    for (const revision of [2_147_483_648, '3', 1.5, null]) {
      const res = await gql(url, admin, AT, { agentId, revision });
      expect(res.errors?.length).toBeGreaterThan(0);
      expect(res.data?.manifestsAtRevision ?? null).toBeNull();
    }
    expect(codeOf(await gql(url, admin, HISTORY, { agentId, page: { first: 1000 } }))).toBe('BAD_USER_INPUT');
    expect(codeOf(await gql(url, admin, HISTORY, { agentId, page: { after: 'not-a-cursor' } }))).toBe('BAD_USER_INPUT');
    const foreign = Buffer.from(JSON.stringify(['x', 'y'])).toString('base64url');
    expect(codeOf(await gql(url, admin, HISTORY, { agentId, page: { after: foreign } }))).toBe('BAD_USER_INPUT');
  });
});
