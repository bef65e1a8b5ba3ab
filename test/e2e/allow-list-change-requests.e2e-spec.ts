/**
 * Change requests for an agent's allow lists (issue 32, ADR 0325) over HTTP against the whole app,
 * under the default policy: widening `protocol.webhookAllow` or `protocol.upstreamAllow` through
 * updateAgent applies nothing and files a change request holding the whole update against the
 * current settings; narrowing applies at once; a second admin who is a platform admin approves;
 * the author never does (by subject); a request whose settings moved is stale; break-glass is a
 * recorded apply; hostile values are refused by name and change nothing. cpctl's `agent allow-list`
 * exits 20 for a held widening, as `cpctl apply` does.
 */
import { mintAdminToken } from '@cp/auth';
import { financeAgentExample, toManifestDocument } from '@cp/capabilities';
import { run } from '../../apps/cpctl/src/cli';
import { startChangeRequestApp, type ChangeRequestApp } from '../support/change-request-app';
import type { GivenDb } from '../support/given-db';
import { codeOf, gql, gqlOk, type GqlResponse } from '../support/graphql-client';

const CR_FIELDS =
  'id agentId baseRevision status author kinds changes { kind capabilityId detail } settings { fields before after } documents breakGlass breakGlassReason decidedBy appliedRevision canApprove cannotApproveReason';
const UPDATE = `mutation($input: UpdateAgentInput!) { updateAgent(input: $input) {
  revision description protocol { webhookAllow upstreamAllow } changeRequest { ${CR_FIELDS} } } }`;
const CREATE = 'mutation($input: CreateAgentInput!) { createAgent(input: $input) { id revision } }';
const APPROVE = `mutation($input: DecideChangeRequestInput!) { approveChangeRequest(input: $input) { ${CR_FIELDS} } }`;
const GET = `query($id: String!) { changeRequest(id: $id) { ${CR_FIELDS} } }`;
const POLICY = 'query { approvalPolicy { kinds isDefault } }';
const SET_POLICY = 'mutation($input: SetApprovalPolicyInput!) { setApprovalPolicy(input: $input) { kinds } }';
const APPLY = `mutation($input: ApplyManifestsInput!) { applyManifests(input: $input) { applied changeRequest { id } } }`;

const reasonOf = (res: GqlResponse) => res.errors?.[0]?.extensions.reason;

describe('change requests for allow lists (HTTP)', () => {
  let stack: ChangeRequestApp;
  let url: string;
  let given: GivenDb;
  let tokens: Record<string, string>;
  const example = financeAgentExample();
  const team = example.manifests[0].owner;
  const agentId = 'finance-agent';

  const settings = async () => {
    const row = await given.prisma.agent.findUniqueOrThrow({
      where: { id: agentId },
      select: { revision: true, description: true, webhookAllow: true, upstreamAllow: true },
    });
    return { ...row, requests: await given.prisma.changeRequest.count() };
  };
  const update = async (token: string, input: Record<string, unknown>) =>
    gql(url, token, UPDATE, { input: { id: agentId, expectedRevision: await given.revisionOf(agentId), ...input } });
  const auditOf = (targetId: string) =>
    given.prisma.auditEvent.findMany({ where: { targetType: 'change-request', targetId }, orderBy: { id: 'asc' } });
  const noticesOf = (eventKey: string) => given.prisma.deprecationNotice.findMany({ where: { eventKey }, orderBy: { event: 'asc' } });
  /** cpctl in-process (the same `run` the binary calls), with --json. */
  const cpctl = async (args: string[], token: string) => {
    let stdout = '';
    const sink = { write: (s: string) => ((stdout += s), true) };
    const code = await run(['--json', '--url', `${url}/graphql`, ...args], {
      stdout: sink,
      stderr: { write: () => true },
      env: { CPCTL_TOKEN: token },
    });
    return { code, json: JSON.parse(stdout) as Record<string, unknown> };
  };

  beforeAll(async () => {
    stack = await startChangeRequestApp('allow-list-requests', agentId, {
      // Unset (an empty variable reads as unset): the default policy, which gates allow lists.
      APPROVAL_DEFAULT_KINDS: '',
    });
    ({ url, given, tokens } = stack);
    await given.agent({ id: 'other-agent', teamId: 'other-team' });
    tokens.ops = mintAdminToken(stack.config, 'ops', ['platform-admin'], []);
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
  });

  it('the default policy gates allow lists; a widening files a request holding the whole update and changes nothing', async () => {
    expect((await gqlOk(url, tokens.alice, POLICY)).approvalPolicy).toEqual({
      kinds: ['public', 'access', 'upstream', 'undeprecate', 'remove', 'allowlist'],
      isDefault: true,
    });
    const before = await settings();
    const res = await update(tokens.alice, { description: 'Finance, with hooks.', protocol: { webhookAllow: ['10.20.0.0/16'] } });
    expect(res.errors).toBeUndefined();
    const answer = res.data!.updateAgent;
    // The agent as it is: nothing applied.
    expect(answer).toMatchObject({ revision: before.revision, description: before.description, protocol: { webhookAllow: [] } });
    expect(answer.changeRequest).toMatchObject({
      status: 'pending',
      author: 'alice',
      agentId,
      baseRevision: before.revision,
      kinds: ['allowlist'],
      changes: [{ kind: 'allowlist', capabilityId: '*', detail: 'protocol.webhookAllow + 10.20.0.0/16' }],
      documents: [],
      canApprove: false,
    });
    expect(answer.changeRequest.settings.fields).toEqual(['description', 'protocol.webhookAllow']);
    expect(answer.changeRequest.settings.before.protocol.webhookAllow).toEqual([]);
    expect(answer.changeRequest.settings.after).toMatchObject({
      description: 'Finance, with hooks.',
      protocol: { webhookAllow: ['10.20.0.0/16'] },
    });
    expect(await settings()).toEqual({ ...before, requests: before.requests + 1 });
    expect((await auditOf(answer.changeRequest.id)).map((e) => [e.action, e.actor])).toEqual([['change-request.create', 'alice']]);
    expect((await noticesOf(answer.changeRequest.id)).map((n) => [n.event, n.tenantId])).toEqual([
      ['change_request.created', 'platform-ops'],
    ]);
  });

  it('refuses self-approval through a second token of the same subject, a team admin outside the team, and a team admin of the team', async () => {
    const before = await settings();
    const { id } = await pendingOne();
    const self = await gql(url, tokens.aliceAgain, APPROVE, { input: { id } });
    expect([codeOf(self), reasonOf(self)]).toEqual(['FORBIDDEN', 'SELF_APPROVAL']);

    const outside = await gql(url, tokens.carol, APPROVE, { input: { id } });
    expect(codeOf(outside)).toBe('NOT_FOUND');
    expect(outside.errors![0].message).toBe(`change request "${id}" not found`);

    // Widening an allow list is a platform-admin action (ADR 0211): approving one is too.
    expect((await gqlOk(url, tokens.bob, GET, { id })).changeRequest).toMatchObject({
      canApprove: false,
      cannotApproveReason: 'it widens an allow list: only a platform-admin may approve it',
    });
    const teamAdmin = await gql(url, tokens.bob, APPROVE, { input: { id } });
    expect(codeOf(teamAdmin)).toBe('FORBIDDEN');
    expect(teamAdmin.errors![0].message).toContain('only a platform-admin may add entries to protocol.webhookAllow ("10.20.0.0/16")');

    expect(await settings()).toEqual(before);
    expect((await gqlOk(url, tokens.root, GET, { id })).changeRequest).toMatchObject({ status: 'pending', canApprove: true });
  });

  it('a platform admin approves: the held update is applied, once, audited as the approver', async () => {
    const before = await settings();
    const { id } = await pendingOne();
    const approved = await gqlOk(url, tokens.root, APPROVE, { input: { id, comment: 'hooks live in 10.20/16' } });
    expect(approved.approveChangeRequest).toMatchObject({ status: 'applied', decidedBy: 'root', appliedRevision: before.revision + 1 });
    expect(await settings()).toEqual({
      ...before,
      revision: before.revision + 1,
      description: 'Finance, with hooks.',
      webhookAllow: ['10.20.0.0/16'],
    });
    const audit = await given.prisma.auditEvent.findMany({ where: { agentId, revision: before.revision + 1 }, orderBy: { id: 'asc' } });
    expect(audit.map((e) => [e.action, e.actor])).toEqual([
      ['agent.update', 'root'],
      ['agent.webhook-allow.widen', 'root'],
      ['change-request.approve', 'root'],
    ]);
    expect(audit[2].after).toMatchObject({ author: 'alice', approver: 'root' });
    expect((await noticesOf(id)).map((n) => n.event)).toEqual(['change_request.approved', 'change_request.created']);
    const twice = await gql(url, tokens.ops, APPROVE, { input: { id } });
    expect([codeOf(twice), reasonOf(twice)]).toEqual(['CONFLICT', 'NOT_PENDING']);
    expect((await settings()).revision).toBe(before.revision + 1);
  });

  it('narrowing or removing entries applies at once, for a team admin too; putting a broader entry back is held', async () => {
    const before = await settings();
    const narrowed = await update(tokens.bob, { protocol: { webhookAllow: ['10.20.1.0/24'] } });
    expect(narrowed.errors).toBeUndefined();
    expect(narrowed.data!.updateAgent).toMatchObject({ revision: before.revision + 1, changeRequest: null });
    expect(await settings()).toMatchObject({ webhookAllow: ['10.20.1.0/24'], requests: before.requests });

    const broadened = await update(tokens.bob, { protocol: { webhookAllow: ['10.20.0.0/16'] } });
    expect(broadened.data!.updateAgent.changeRequest).toMatchObject({
      status: 'pending',
      changes: [{ kind: 'allowlist', capabilityId: '*', detail: 'protocol.webhookAllow + 10.20.0.0/16' }],
    });
    expect(await settings()).toMatchObject({ revision: before.revision + 1, webhookAllow: ['10.20.1.0/24'] });
    const withdrawn = await gql(
      url,
      tokens.bob,
      'mutation($input: DecideChangeRequestInput!) { rejectChangeRequest(input: $input) { status } }',
      {
        input: { id: broadened.data!.updateAgent.changeRequest.id, comment: 'not needed' },
      },
    );
    expect(withdrawn.data!.rejectChangeRequest.status).toBe('rejected');
  });

  it('a request whose settings changed since is stale; a manifest change alone leaves it approvable', async () => {
    // A manifest change between request and approval does not touch the settings it was made against.
    const held = await update(tokens.alice, { protocol: { upstreamAllow: ['*.agents.corp.example'] } });
    const id = held.data!.updateAgent.changeRequest.id as string;
    const docs = example.manifests.map(toManifestDocument);
    const moved = await gql(url, tokens.alice, APPLY, {
      input: {
        agentId,
        dryRun: false,
        expectedRevision: await given.revisionOf(agentId),
        manifests: docs.map((d) => (d.id === 'invoice-lookup' ? { ...d, skill: { ...d.skill, description: 'Finds invoices.' } } : d)),
      },
    });
    expect(moved.data!.applyManifests).toMatchObject({ applied: true, changeRequest: null });
    const approved = await gqlOk(url, tokens.root, APPROVE, { input: { id } });
    expect(approved.approveChangeRequest.status).toBe('applied');
    expect((await settings()).upstreamAllow).toEqual(['*.agents.corp.example']);

    // A settings change between request and approval makes it stale: nothing applied, request it again.
    const second = await update(tokens.alice, { protocol: { upstreamAllow: ['*.agents.corp.example', '10.30.0.0/16'] } });
    const staleId = second.data!.updateAgent.changeRequest.id as string;
    expect(codeOf(await update(tokens.alice, { description: 'Finance, renamed meanwhile.' }))).toBe('OK');
    const before = await settings();
    const stale = await gql(url, tokens.root, APPROVE, { input: { id: staleId } });
    expect([codeOf(stale), reasonOf(stale)]).toEqual(['CONFLICT', 'STALE_PLAN']);
    expect(stale.errors![0].message).toContain('request the change again');
    expect(await settings()).toEqual(before);
    expect((await gqlOk(url, tokens.root, GET, { id: staleId })).changeRequest.status).toBe('stale');
    expect((await auditOf(staleId)).map((e) => e.action)).toEqual(['change-request.create', 'change-request.stale']);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['a huge entry', { webhookAllow: ['h'.repeat(10_000)] }, /253/],
    ['too many entries', { upstreamAllow: Array.from({ length: 500 }, (_, i) => `10.0.${i % 250}.${i % 200}`) }, /at most 50 entries/],
    ['a malformed CIDR', { webhookAllow: ['10.0.0.0/33'] }, /not a host name, \*\.domain, IP or CIDR/],
    ['a malformed name', { upstreamAllow: ['hooks corp!'] }, /not a host name/],
    ['an IPv4-mapped IPv6 form', { webhookAllow: ['::ffff:10.0.0.1'] }, /embeds IPv4/],
    ['a NAT64 form of the metadata address', { upstreamAllow: ['64:ff9b::a9fe:a9fe'] }, /embeds IPv4/],
    ['every IPv6 address', { webhookAllow: ['::/0'] }, /every address/],
    ['an IPv6 link-local address with a zone', { webhookAllow: ['fe80::1%eth0'] }, /not a host name|link-local/],
    ['a bracketed IPv6 address', { webhookAllow: ['[fd12::1]'] }, /not a host name/],
    ['the AWS IPv6 metadata address', { upstreamAllow: ['fd00:ec2::254'] }, /metadata/],
  ])('refuses %s by name (BAD_USER_INPUT), changing nothing and filing nothing', async (_name, protocol, reason) => {
    const before = await settings();
    for (const token of [tokens.alice, tokens.root]) {
      const res = await update(token, { protocol });
      expect(res.status).toBeLessThan(500);
      expect(codeOf(res)).toBe('BAD_USER_INPUT');
      const issues = res.errors![0].extensions.validationErrors as { path: string; message: string }[];
      const list = Object.keys(protocol)[0];
      expect(issues[0].path).toMatch(new RegExp(`^\\$\\.protocol\\.${list}`));
      expect(issues.map((i) => i.message).join(' ')).toMatch(reason);
    }
    expect(await settings()).toEqual(before);
  });

  it("refuses another team's agent exactly like a missing one, and a gated createAgent, changing nothing", async () => {
    const before = await settings();
    const other = await gql(url, tokens.alice, UPDATE, {
      input: { id: 'other-agent', expectedRevision: 1, protocol: { webhookAllow: ['10.40.0.0/16'] } },
    });
    const missing = await gql(url, tokens.alice, UPDATE, {
      input: { id: 'no-such-agent', expectedRevision: 1, protocol: { webhookAllow: ['10.40.0.0/16'] } },
    });
    expect([codeOf(other), other.errors![0].message]).toEqual(['NOT_FOUND', 'agent "other-agent" not found']);
    expect([codeOf(missing), missing.errors![0].message]).toEqual(['NOT_FOUND', 'agent "no-such-agent" not found']);
    expect((await given.prisma.agent.findUniqueOrThrow({ where: { id: 'other-agent' } })).webhookAllow).toEqual([]);

    const created = await gql(url, tokens.root, CREATE, {
      input: {
        id: 'hooked-agent',
        teamId: team,
        name: 'Hooked',
        description: 'Has hooks.',
        version: '1.0.0',
        supportedInterfaces: [{ url: 'https://hooked.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        protocol: { webhookAllow: ['10.50.0.0/16'] },
      },
    });
    expect([codeOf(created), reasonOf(created)]).toEqual(['FORBIDDEN', 'APPROVAL_REQUIRED']);
    expect(created.errors![0].message).toContain('allowlist: protocol.webhookAllow + 10.50.0.0/16');
    expect(await given.prisma.agent.count({ where: { id: 'hooked-agent' } })).toBe(0);
    expect(await settings()).toEqual(before);
  });

  it('break-glass: platform admins only, with a bounded reason; applied at once, recorded, audited and announced', async () => {
    const before = await settings();
    const widened = { protocol: { webhookAllow: ['10.20.1.0/24', 'hooks.corp.example'] } };
    const teamAdmin = await update(tokens.bob, { ...widened, breakGlassReason: 'incident 7' });
    expect(codeOf(teamAdmin)).toBe('FORBIDDEN');
    expect(teamAdmin.errors![0].message).toContain('only a platform-admin may');
    const huge = await update(tokens.root, { ...widened, breakGlassReason: 'x'.repeat(5_000) });
    expect(huge.errors![0].extensions.validationErrors).toEqual([
      { path: '$.breakGlassReason', message: 'must be at most 2000 characters' },
    ]);
    expect(await settings()).toEqual(before);

    const res = await update(tokens.root, { ...widened, breakGlassReason: 'incident 7: hooks down' });
    expect(res.errors).toBeUndefined();
    const answer = res.data!.updateAgent;
    expect(answer).toMatchObject({ revision: before.revision + 1, protocol: { webhookAllow: ['10.20.1.0/24', 'hooks.corp.example'] } });
    expect(answer.changeRequest).toMatchObject({
      status: 'applied',
      breakGlass: true,
      breakGlassReason: 'incident 7: hooks down',
      author: 'root',
      kinds: ['allowlist'],
      appliedRevision: before.revision + 1,
    });
    const audit = await given.prisma.auditEvent.findMany({ where: { agentId, revision: before.revision + 1 }, orderBy: { id: 'asc' } });
    expect(audit.map((e) => [e.action, e.actor])).toEqual([
      ['agent.update', 'root'],
      ['agent.webhook-allow.widen', 'root'],
      ['change-request.break-glass', 'root'],
    ]);
    expect((await noticesOf(answer.changeRequest.id)).map((n) => n.event)).toEqual(['change_request.break_glass']);
  });

  it('cpctl agent allow-list exits 20 for a held widening (as cpctl apply), 0 for a narrowing, 2 for a refused entry', async () => {
    const before = await settings();
    const held = await cpctl(['agent', 'allow-list', agentId, 'upstream', '*.agents.corp.example', '10.60.0.0/16'], tokens.alice);
    expect(held.code).toBe(20);
    expect(held.json).toMatchObject({ exitCode: 20, applied: false, changeRequest: { status: 'pending', breakGlass: false } });
    expect(await settings()).toEqual({ ...before, requests: before.requests + 1 });

    const refused = await cpctl(['agent', 'allow-list', agentId, 'webhook', '169.254.169.254'], tokens.alice);
    expect(refused.code).toBe(2);
    expect(JSON.stringify(refused.json)).toContain('link-local');

    const narrowed = await cpctl(['agent', 'allow-list', agentId, 'webhook', 'hooks.corp.example'], tokens.bob);
    expect(narrowed.code).toBe(0);
    expect(narrowed.json).toMatchObject({ exitCode: 0, applied: true, revision: before.revision + 1, changeRequest: null });
    expect((await settings()).webhookAllow).toEqual(['hooks.corp.example']);
  });

  it('with allowlist out of the policy, widening applies at once and stays a platform-admin action (ADR 0211)', async () => {
    await gqlOk(url, tokens.root, SET_POLICY, { input: { kinds: ['public'] } });
    const before = await settings();
    const teamAdmin = await update(tokens.bob, { protocol: { webhookAllow: ['hooks.corp.example', '10.70.0.0/16'] } });
    expect(codeOf(teamAdmin)).toBe('FORBIDDEN');
    expect(await settings()).toEqual(before);
    const admin = await update(tokens.root, { protocol: { webhookAllow: ['hooks.corp.example', '10.70.0.0/16'] } });
    expect(admin.data!.updateAgent).toMatchObject({ revision: before.revision + 1, changeRequest: null });
    expect(await settings()).toMatchObject({ webhookAllow: ['hooks.corp.example', '10.70.0.0/16'], requests: before.requests });
  });

  async function pendingOne(): Promise<{ id: string }> {
    const row = await given.prisma.changeRequest.findFirstOrThrow({ where: { agentId, status: 'pending' }, orderBy: { createdAt: 'asc' } });
    return { id: row.id };
  }
});
