/**
 * Issue 27, item 5: an agent's `protocol.webhookAllow` cannot switch the SSRF guard off or open the
 * cloud metadata service. `0.0.0.0/0`, `::/0`, `169.254.169.254`, `*.com` and their relatives are
 * refused for everyone, naming the entry and why; adding any entry is a platform-admin action with an
 * audit event of its own; a team admin may keep or remove entries. Nothing changes on a refusal.
 */
import { mintAdminToken } from '@cp/auth';
import { codeOf, gql, gqlOk } from '../support/graphql-client';
import { AGENT, type SecurityStack, startSecurityStack } from './support/stack';
import { platformAdmin } from './support/push';

jest.setTimeout(180_000);

const UPDATE = `mutation($input: UpdateAgentInput!) { updateAgent(input: $input) { revision protocol { webhookAllow } } }`;

describe('the webhook allow-list cannot open the SSRF guard', () => {
  let stack: SecurityStack;
  let teamAdmin: string;
  let admin: string;

  const state = async () => {
    const row = await stack.prisma.agent.findUniqueOrThrow({ where: { id: AGENT }, select: { revision: true, webhookAllow: true } });
    return { ...row, audit: await stack.prisma.auditEvent.count() };
  };
  const update = async (token: string, webhookAllow: string[]) => {
    const { revision } = await state();
    return gql(stack.cpUrl, token, UPDATE, { input: { id: AGENT, expectedRevision: revision, protocol: { webhookAllow } } });
  };

  beforeAll(async () => {
    stack = await startSecurityStack('webhook_allow');
    const { agent } = await gqlOk(stack.cpUrl, platformAdmin(stack), `{ agent(id: "${AGENT}") { teamId } }`);
    teamAdmin = mintAdminToken(stack.cpConfig, 'sec:team-admin', ['team-admin'], [agent.teamId as string]);
    admin = platformAdmin(stack);
  });

  afterAll(async () => {
    await stack?.close();
  });

  it.each([
    [['0.0.0.0/0'], /would allow every address/],
    [['::/0'], /would allow every address/],
    [['169.254.169.254'], /link-local/],
    [['*.com'], /one-label wildcard/],
    [['*.co.uk'], /public suffix/],
    [['::ffff:0:0/96'], /embeds IPv4/],
    [['fd00::/8'], /metadata address/],
    [['100.64.0.0/10'], /metadata address/],
    [['metadata.google.internal'], /metadata service/],
    [['0.0.0.0/1', '128.0.0.0/1'], /would allow every address|not wholly inside/],
  ])('refuses %j for a team admin and a platform admin alike, changing nothing', async (list, reason) => {
    for (const token of [teamAdmin, admin]) {
      const before = await state();
      const res = await update(token, list);
      expect(res.status).toBeLessThan(500);
      expect(codeOf(res)).toBe('BAD_USER_INPUT');
      expect(JSON.stringify(res.errors)).toMatch(reason);
      expect(await state()).toEqual(before);
    }
  });

  it('a team admin may not add a private entry; a platform admin may, and the widening is audited', async () => {
    const before = await state();
    const refused = await update(teamAdmin, ['10.20.0.0/16']);
    expect(codeOf(refused)).toBe('FORBIDDEN');
    expect(refused.errors?.[0].message).toMatch(/only a platform-admin may add entries to protocol\.webhookAllow \("10\.20\.0\.0\/16"\)/);
    expect(await state()).toEqual(before);

    const added = await update(admin, ['10.20.0.0/16', 'hooks.corp.example']);
    expect(codeOf(added)).toBe('OK');
    const widen = await stack.prisma.auditEvent.findMany({ where: { action: 'agent.webhook-allow.widen', targetId: AGENT } });
    expect(widen).toHaveLength(1);
    expect(widen[0]).toMatchObject({
      actor: 'sec:platform-admin',
      before: { webhookAllow: [] },
      after: { webhookAllow: ['10.20.0.0/16', 'hooks.corp.example'], added: ['10.20.0.0/16', 'hooks.corp.example'] },
    });
  });

  it('a team admin may keep the list while changing something else, and may remove entries', async () => {
    const { revision } = await state();
    const kept = await gql(stack.cpUrl, teamAdmin, UPDATE, {
      input: { id: AGENT, expectedRevision: revision, description: 'Finance agent, kept list' },
    });
    expect(codeOf(kept)).toBe('OK');
    const narrowed = await update(teamAdmin, ['hooks.corp.example']);
    expect(codeOf(narrowed)).toBe('OK');
    expect((await state()).webhookAllow).toEqual(['hooks.corp.example']);
    // Putting a removed entry back is widening again.
    expect(codeOf(await update(teamAdmin, ['hooks.corp.example', '10.20.0.0/16']))).toBe('FORBIDDEN');
    expect(await stack.prisma.auditEvent.count({ where: { action: 'agent.webhook-allow.widen' } })).toBe(1);
  });
});
