/**
 * Change requests (issue 32, ADR 0300) over HTTP against the whole app: a gated plan is held, not
 * applied; a second admin with rights on the agent applies it at its base revision; the author
 * never approves their own (by subject, whatever the token); everything is audited and announced.
 */
import { mintAdminToken } from '@cp/auth';
import { financeAgentExample, toManifestDocument } from '@cp/capabilities';
import { startChangeRequestApp, type ChangeRequestApp } from '../support/change-request-app';
import type { GivenDb } from '../support/given-db';
import { codeOf, gql, gqlOk, type GqlResponse } from '../support/graphql-client';

const CR_FIELDS =
  'id agentId baseRevision status author kinds changes { kind capabilityId detail } plan { added changed removed } breakGlass breakGlassReason decidedBy decisionComment appliedRevision canApprove cannotApproveReason';
const APPLY = `mutation($input: ApplyManifestsInput!) { applyManifests(input: $input) {
  dryRun applied revision changed { id fields } breakGlass approvalRequired { kind capabilityId detail } changeRequest { ${CR_FIELDS} } } }`;
const APPROVE = `mutation($input: DecideChangeRequestInput!) { approveChangeRequest(input: $input) { ${CR_FIELDS} } }`;
const REJECT = `mutation($input: DecideChangeRequestInput!) { rejectChangeRequest(input: $input) { ${CR_FIELDS} } }`;
const GET = `query($id: String!) { changeRequest(id: $id) { ${CR_FIELDS} } }`;
const LIST = `query($filter: ChangeRequestFilter, $page: PageInput) { changeRequests(filter: $filter, page: $page) { nodes { id status author breakGlass } pageInfo { hasNextPage endCursor } } }`;
const POLICY = 'query { approvalPolicy { kinds isDefault updatedBy } }';
const SET_POLICY = 'mutation($input: SetApprovalPolicyInput!) { setApprovalPolicy(input: $input) { kinds isDefault updatedBy } }';
const PROMOTE_VIA_UPDATE = 'mutation($input: ManifestDocumentInput!) { updateManifest(input: $input) { revision } }';

const reasonOf = (res: GqlResponse) => res.errors?.[0]?.extensions.reason;

describe('change requests (HTTP)', () => {
  let stack: ChangeRequestApp;
  let url: string;
  let given: GivenDb;
  let tokens: Record<string, string>;
  const example = financeAgentExample();
  const docs = example.manifests.map(toManifestDocument);
  const agentId = 'finance-agent';

  /** The whole set with reconcile-invoice made public, open to every caller (gated: `public`, `access`). */
  const publicRecon = () => docs.map((d) => (d.id === 'reconcile-invoice' ? { ...d, visibility: 'public', requires_scopes: [] } : d));
  /** The whole set with a new description of invoice-lookup (not gated). */
  const described = (text: string) => docs.map((d) => (d.id === 'invoice-lookup' ? { ...d, skill: { ...d.skill, description: text } } : d));
  const apply = (token: string, manifests: unknown[], extra: Record<string, unknown> = {}) =>
    given
      .revisionOf(agentId)
      .then((expectedRevision) => gql(url, token, APPLY, { input: { agentId, manifests, dryRun: false, expectedRevision, ...extra } }));
  const visibilityOf = async (id: string) =>
    (await given.prisma.capabilityManifest.findUniqueOrThrow({ where: { agentId_capabilityId: { agentId, capabilityId: id } } }))
      .visibility;
  const auditOf = (targetId: string) =>
    given.prisma.auditEvent.findMany({ where: { targetType: 'change-request', targetId }, orderBy: { id: 'asc' } });
  const noticesOf = (eventKey: string) => given.prisma.deprecationNotice.findMany({ where: { eventKey }, orderBy: { event: 'asc' } });

  beforeAll(async () => {
    stack = await startChangeRequestApp('change-requests', agentId, {
      APPROVAL_DEFAULT_KINDS: 'public,access,upstream,undeprecate,remove',
    });
    ({ url, given, tokens } = stack);
    tokens.vera = mintAdminToken(stack.config, 'vera', ['viewer'], []);
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
  });

  it('a dry run names the gated changes; applying holds the plan as a change request and writes nothing', async () => {
    const revision = await given.revisionOf(agentId);
    const dry = await gqlOk(url, tokens.alice, APPLY, { input: { agentId, manifests: publicRecon(), dryRun: true } });
    expect(dry.applyManifests.approvalRequired).toEqual([
      { kind: 'public', capabilityId: 'reconcile-invoice', detail: 'visibility extended → public' },
      { kind: 'access', capabilityId: 'reconcile-invoice', detail: 'no longer requires scope recon.run' },
    ]);
    const res = await apply(tokens.alice, publicRecon());
    expect(res.errors).toBeUndefined();
    const answer = res.data!.applyManifests;
    expect(answer).toMatchObject({ applied: false, revision, breakGlass: false });
    expect(answer.changeRequest).toMatchObject({
      status: 'pending',
      author: 'alice',
      baseRevision: revision,
      kinds: ['public', 'access'],
      canApprove: false,
    });
    expect(answer.changeRequest.plan.changed).toEqual([expect.stringMatching(/^reconcile-invoice \(.*visibility/)]);
    expect(await given.revisionOf(agentId)).toBe(revision);
    expect(await visibilityOf('reconcile-invoice')).toBe('extended');
    expect((await auditOf(answer.changeRequest.id)).map((e) => [e.action, e.actor])).toEqual([['change-request.create', 'alice']]);
    const notices = await noticesOf(answer.changeRequest.id);
    expect(notices.map((n) => [n.event, n.tenantId, n.status])).toEqual([['change_request.created', 'platform-ops', 'pending']]);
    expect((notices[0].payload as { data: Record<string, unknown> }).data).toMatchObject({
      agentId,
      author: 'alice',
      kinds: ['public', 'access'],
    });
  });

  it('refuses self-approval through a second token of the same subject, and a team admin outside the team; a viewer may not decide', async () => {
    const revision = await given.revisionOf(agentId);
    const { id } = (await pending())[0];
    const self = await gql(url, tokens.aliceAgain, APPROVE, { input: { id } });
    expect([codeOf(self), reasonOf(self)]).toEqual(['FORBIDDEN', 'SELF_APPROVAL']);
    expect(self.errors![0].message).toContain('another admin must approve it');
    const selfView = await gqlOk(url, tokens.aliceAgain, GET, { id });
    expect(selfView.changeRequest).toMatchObject({
      canApprove: false,
      cannotApproveReason: 'you submitted it: another admin must approve it',
    });

    // Outside the agent's team the request does not exist, with the very message of a missing one.
    const outside = await gql(url, tokens.carol, APPROVE, { input: { id } });
    const missing = await gql(url, tokens.carol, APPROVE, { input: { id: '00000000-0000-0000-0000-000000000000' } });
    expect(codeOf(outside)).toBe('NOT_FOUND');
    expect(outside.errors![0].message).toBe(`change request "${id}" not found`);
    expect(codeOf(missing)).toBe('NOT_FOUND');
    expect((await gqlOk(url, tokens.carol, LIST, {})).changeRequests.nodes).toEqual([]);

    const viewer = await gql(url, tokens.vera, APPROVE, { input: { id } });
    expect(codeOf(viewer)).toBe('FORBIDDEN');
    expect((await gqlOk(url, tokens.vera, GET, { id })).changeRequest).toMatchObject({
      canApprove: false,
      cannotApproveReason: 'you do not administer agent "finance-agent"',
    });

    expect(await given.revisionOf(agentId)).toBe(revision);
    expect(await visibilityOf('reconcile-invoice')).toBe('extended');
    expect((await gqlOk(url, tokens.bob, GET, { id })).changeRequest.status).toBe('pending');
  });

  it('a second admin of the team approves: the stored plan is applied at its base revision, once', async () => {
    const revision = await given.revisionOf(agentId);
    const { id } = (await pending())[0];
    expect((await gqlOk(url, tokens.bob, GET, { id })).changeRequest).toMatchObject({ canApprove: true, cannotApproveReason: null });
    const approved = await gqlOk(url, tokens.bob, APPROVE, { input: { id, comment: 'checked with legal' } });
    expect(approved.approveChangeRequest).toMatchObject({
      status: 'applied',
      decidedBy: 'bob',
      decisionComment: 'checked with legal',
      appliedRevision: revision + 1,
      canApprove: false,
    });
    expect(await given.revisionOf(agentId)).toBe(revision + 1);
    expect(await visibilityOf('reconcile-invoice')).toBe('public');
    const manifestAudit = await given.prisma.auditEvent.findMany({ where: { agentId, revision: revision + 1 }, orderBy: { id: 'asc' } });
    expect(manifestAudit.map((e) => [e.action, e.actor])).toEqual([
      ['manifest.update', 'bob'],
      ['change-request.approve', 'bob'],
    ]);
    expect(manifestAudit[1].after).toMatchObject({ author: 'alice', approver: 'bob' });
    expect((await noticesOf(id)).map((n) => n.event)).toEqual(['change_request.approved', 'change_request.created']);

    // Approving twice, and rejecting what is applied: CONFLICT, nothing changes.
    const twice = await gql(url, tokens.root, APPROVE, { input: { id } });
    expect([codeOf(twice), reasonOf(twice)]).toEqual(['CONFLICT', 'NOT_PENDING']);
    const reject = await gql(url, tokens.bob, REJECT, { input: { id, comment: 'too late' } });
    expect([codeOf(reject), reasonOf(reject)]).toEqual(['CONFLICT', 'NOT_PENDING']);
    expect(reject.errors![0].message).toContain('is applied');
    expect(await given.revisionOf(agentId)).toBe(revision + 1);
  });

  it('a plan whose agent moved on is stale: nothing is applied and the request says to plan again', async () => {
    const current = (await gqlOk(url, tokens.root, 'query { manifests(filter: { agentId: "finance-agent" }) { nodes { id document } } }'))
      .manifests.nodes as { id: string; document: Record<string, unknown> }[];
    // Narrowing is not gated: applied at once (a public capability is open to every tenant, so extended first).
    const set = current.map((m) =>
      m.id === 'reconcile-invoice' ? { ...m.document, visibility: 'extended', tenants: [example.tenants.partner] } : m.document,
    );
    const narrowed = await apply(tokens.alice, set);
    expect(narrowed.errors).toBeUndefined();
    expect(narrowed.data!.applyManifests.applied).toBe(true);
    const held = await apply(
      tokens.alice,
      set.map((d) => (d.id === 'reconcile-invoice' ? { ...d, tenants: '*' } : d)),
    );
    const id = held.data!.applyManifests.changeRequest.id as string;
    expect(held.data!.applyManifests.changeRequest.changes).toEqual([
      { kind: 'access', capabilityId: 'reconcile-invoice', detail: `tenants ${example.tenants.partner} → "*" (every tenant)` },
    ]);
    // An ungated change moves the agent on.
    const moved = await apply(
      tokens.alice,
      set.map((d) => (d.id === 'invoice-lookup' ? { ...d, skill: { ...(d.skill as object), description: 'Finds invoices.' } } : d)),
    );
    expect(moved.data!.applyManifests.applied).toBe(true);
    const revision = await given.revisionOf(agentId);

    const stale = await gql(url, tokens.bob, APPROVE, { input: { id } });
    expect([codeOf(stale), reasonOf(stale)]).toEqual(['CONFLICT', 'STALE_PLAN']);
    expect(stale.errors![0].message).toContain('plan the change again');
    expect(await given.revisionOf(agentId)).toBe(revision);
    const recon = await given.prisma.capabilityManifest.findUniqueOrThrow({
      where: { agentId_capabilityId: { agentId, capabilityId: 'reconcile-invoice' } },
    });
    expect([recon.tenantsAll, recon.tenants]).toEqual([false, [example.tenants.partner]]);
    expect((await gqlOk(url, tokens.bob, GET, { id })).changeRequest.status).toBe('stale');
    expect((await auditOf(id)).map((e) => e.action)).toEqual(['change-request.create', 'change-request.stale']);
    const again = await gql(url, tokens.bob, APPROVE, { input: { id } });
    expect(reasonOf(again)).toBe('NOT_PENDING');
  });

  it('rejects with a bounded comment; hostile ids and huge reasons are refused by name and change nothing', async () => {
    // reconcile-invoice is extended for partner only by now: the original set opens it to every tenant.
    const held = await apply(
      tokens.alice,
      described('Finds invoices.').map((d) => (d.id === 'reconcile-invoice' ? { ...d, requires_scopes: [] } : d)),
    );
    expect(held.data!.applyManifests.changeRequest.kinds).toEqual(['access']);
    const id = held.data!.applyManifests.changeRequest.id as string;
    const huge = 'x'.repeat(10_000);
    const tooLong = await gql(url, tokens.bob, REJECT, { input: { id, comment: huge } });
    expect(codeOf(tooLong)).toBe('BAD_USER_INPUT');
    expect(tooLong.errors![0].extensions.validationErrors).toEqual([{ path: '$.comment', message: 'must be at most 2000 characters' }]);
    const none = await gql(url, tokens.bob, REJECT, { input: { id } });
    expect(none.errors![0].extensions.validationErrors).toEqual([{ path: '$.comment', message: 'must not be empty' }]);
    const longId = await gql(url, tokens.bob, APPROVE, { input: { id: 'y'.repeat(5_000) } });
    expect(codeOf(longId)).toBe('BAD_USER_INPUT');
    const breakHuge = await apply(tokens.root, publicRecon(), { breakGlassReason: huge });
    expect(breakHuge.errors![0].extensions.validationErrors).toEqual([
      { path: '$.breakGlassReason', message: 'must be at most 2000 characters' },
    ]);
    expect((await gqlOk(url, tokens.bob, GET, { id })).changeRequest.status).toBe('pending');

    const rejected = await gqlOk(url, tokens.bob, REJECT, { input: { id, comment: 'scopes stay' } });
    expect(rejected.rejectChangeRequest).toMatchObject({ status: 'rejected', decidedBy: 'bob', decisionComment: 'scopes stay' });
    const approveRejected = await gql(url, tokens.bob, APPROVE, { input: { id } });
    expect(reasonOf(approveRejected)).toBe('NOT_PENDING');
    expect((await auditOf(id)).map((e) => e.action)).toEqual(['change-request.create', 'change-request.reject']);
    const list = await gqlOk(url, tokens.alice, LIST, { filter: { status: 'rejected', agentId } });
    expect(list.changeRequests.nodes.map((n: { id: string }) => n.id)).toEqual([id]);
  });

  it('break-glass: platform admins only, with a reason; applied at once, recorded, audited and announced', async () => {
    const revision = await given.revisionOf(agentId);
    const current = (
      await gqlOk(url, tokens.root, 'query { manifests(filter: { agentId: "finance-agent" }) { nodes { document } } }')
    ).manifests.nodes.map((m: { document: Record<string, unknown> }) => m.document) as Record<string, unknown>[];
    const opened = current.map((d) => (d.id === 'reconcile-invoice' ? { ...d, tenants: '*' } : d));
    const teamAdmin = await apply(tokens.bob, opened, { breakGlassReason: 'incident 42' });
    expect(codeOf(teamAdmin)).toBe('FORBIDDEN');
    expect(teamAdmin.errors![0].message).toContain('only a platform-admin may');
    expect(await given.revisionOf(agentId)).toBe(revision);

    const res = await apply(tokens.root, opened, { breakGlassReason: 'incident 42: partners locked out' });
    expect(res.errors).toBeUndefined();
    const answer = res.data!.applyManifests;
    expect(answer).toMatchObject({ applied: true, revision: revision + 1, breakGlass: true });
    expect(answer.changeRequest).toMatchObject({
      status: 'applied',
      breakGlass: true,
      breakGlassReason: 'incident 42: partners locked out',
      author: 'root',
      appliedRevision: revision + 1,
    });
    const audit = await given.prisma.auditEvent.findMany({ where: { agentId, revision: revision + 1 }, orderBy: { id: 'asc' } });
    expect(audit.map((e) => e.action)).toEqual(['manifest.update', 'change-request.break-glass']);
    expect((await noticesOf(answer.changeRequest.id)).map((n) => n.event)).toEqual(['change_request.break_glass']);
    const listed = await gqlOk(url, tokens.bob, LIST, { filter: { breakGlass: true } });
    expect(listed.changeRequests.nodes).toEqual([{ id: answer.changeRequest.id, status: 'applied', author: 'root', breakGlass: true }]);
  });

  it('single mutations refuse a gated change (APPROVAL_REQUIRED) and write nothing', async () => {
    const revision = await given.revisionOf(agentId);
    const current = (
      await gqlOk(url, tokens.root, 'query { manifest(agentId: "finance-agent", capabilityId: "reconcile-invoice") { document } }')
    ).manifest.document as Record<string, unknown>;
    const res = await gql(url, tokens.alice, PROMOTE_VIA_UPDATE, {
      input: { agentId, expectedRevision: revision, manifest: { ...current, tenants: [example.tenants.partner] } },
    });
    expect(codeOf(res)).toBe('OK'); // narrowing is not gated
    const widened = await gql(url, tokens.alice, PROMOTE_VIA_UPDATE, {
      input: {
        agentId,
        expectedRevision: revision + 1,
        manifest: { ...current, tenants: [example.tenants.partner, example.tenants.other] },
      },
    });
    expect([codeOf(widened), reasonOf(widened)]).toEqual(['FORBIDDEN', 'APPROVAL_REQUIRED']);
    expect(widened.errors![0].message).toContain(`tenants + ${example.tenants.other}`);
    expect(await given.revisionOf(agentId)).toBe(revision + 1);
  });

  it('the policy: readable by admins, set by platform admins only (audited); an empty policy gates nothing', async () => {
    expect((await gqlOk(url, tokens.alice, POLICY)).approvalPolicy).toEqual({
      kinds: ['public', 'access', 'upstream', 'undeprecate', 'remove'],
      isDefault: true,
      updatedBy: null,
    });
    const teamAdmin = await gql(url, tokens.alice, SET_POLICY, { input: { kinds: [] } });
    expect(codeOf(teamAdmin)).toBe('FORBIDDEN');
    const bad = await gql(url, tokens.root, SET_POLICY, { input: { kinds: ['everything'] } });
    expect(codeOf(bad)).toBe('BAD_USER_INPUT');
    const set = await gqlOk(url, tokens.root, SET_POLICY, { input: { kinds: ['remove', 'public', 'public'] } });
    expect(set.setApprovalPolicy).toEqual({ kinds: ['public', 'remove'], isDefault: false, updatedBy: 'root' });
    const audit = await given.prisma.auditEvent.findFirstOrThrow({ where: { action: 'approval-policy.set' } });
    expect([audit.actor, audit.before, audit.after]).toEqual([
      'root',
      ['public', 'access', 'upstream', 'undeprecate', 'remove'],
      ['public', 'remove'],
    ]);
    // `access` is no longer gated: opening tenants applies at once.
    const current = (
      await gqlOk(url, tokens.root, 'query { manifests(filter: { agentId: "finance-agent" }) { nodes { document } } }')
    ).manifests.nodes.map((m: { document: Record<string, unknown> }) => m.document) as Record<string, unknown>[];
    const res = await apply(
      tokens.alice,
      current.map((d) => (d.id === 'reconcile-invoice' ? { ...d, tenants: '*' } : d)),
    );
    expect(res.data!.applyManifests).toMatchObject({ applied: true, approvalRequired: [], changeRequest: null });
  });

  async function pending(): Promise<{ id: string }[]> {
    return (await gqlOk(url, tokens.bob, LIST, { filter: { status: 'pending', agentId } })).changeRequests.nodes;
  }
});
