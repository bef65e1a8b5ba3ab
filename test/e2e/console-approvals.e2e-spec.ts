/**
 * The approval flow in the console (issue 32) in Debian's Chromium against the real control plane
 * serving the freshly built console: an author files a change request from the plan screen, sees
 * that they cannot approve it (and why), a second admin approves it on the change requests screen,
 * and a break-glass apply shows up there. axe-core checks the screen (no serious or critical
 * violation); screenshots go to test-artifacts/console (and docs/console with CONSOLE_SCREENSHOTS=docs).
 */
import type { Page } from 'playwright-core';
import { mintAdminToken } from '@cp/auth';
import { financeAgentExample } from '@cp/capabilities';
import { PrismaService } from '@cp/db';
import { screenshot, seriousA11yViolations } from '../support/browser';
import { openScreen, SHOTS, startConsoleStack, UI_MS, type ConsoleStack } from '../support/console-stack';
import { gqlOk } from '../support/graphql-client';
import { until } from '../support/until';

const AGENT = 'finance-agent';
jest.setTimeout(300_000);

describe('change requests in the console (Chromium)', () => {
  let stack: ConsoleStack;
  let author: Page;
  let approver: Page;
  const team = financeAgentExample().manifests[0].owner;
  const root = () => mintAdminToken(stack.config, 'root', ['platform-admin']);
  const revision = async () => (await stack.cp.get(PrismaService).agent.findUniqueOrThrow({ where: { id: AGENT } })).revision;

  const go = (page: Page, path: string) => openScreen(page, stack.url, path);
  const shot = async (page: Page, name: string) => {
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshot(page, name, SHOTS);
  };

  beforeAll(async () => {
    stack = await startConsoleStack('console-approvals', {
      overrides: { APPROVAL_DEFAULT_KINDS: 'public,access,upstream,undeprecate,remove' },
    });
    author = await stack.signedIn('alice', ['team-admin'], [team]);
    approver = await stack.signedIn('bob', ['team-admin'], [team]);
  }, 600_000);

  afterEach(() => stack?.reportPageErrors());

  afterAll(async () => {
    await stack?.close();
  });

  it('the author files a change request from the plan screen and is refused approving it, with the reason', async () => {
    const before = await revision();
    await go(author, '/plan');
    await author.getByLabel('Agent', { exact: true }).selectOption(AGENT);
    await author.getByRole('button', { name: 'Start from the current manifests' }).click();
    const area = author.getByLabel('Manifests', { exact: true });
    // The editor (CodeMirror) shows the documents the API has: wait for them, then edit those.
    await until('the manifests loaded', async () => ((await area.textContent()) ?? '').includes('reconcile-invoice') || undefined, UI_MS);
    const docs = (
      (await gqlOk(stack.url, root(), `{ manifests(filter: { agentId: "${AGENT}" }) { nodes { state document } } }`)).manifests as {
        nodes: { state: string; document: { id: string; requires_scopes: string[] } }[];
      }
    ).nodes
      .filter((m) => m.state !== 'removed')
      .map((m) => m.document);
    await area.fill(
      JSON.stringify(
        docs.map((d) => (d.id === 'reconcile-invoice' ? { ...d, requires_scopes: [] } : d)),
        null,
        2,
      ),
    );
    await author.getByRole('button', { name: 'Plan', exact: true }).click();
    await author.getByText(/Needs a second admin: reconcile-invoice \(access: no longer requires scope recon\.run\)/).waitFor();
    await author.getByRole('button', { name: /^Apply at revision/ }).click();
    const filed = author.getByRole('status').filter({ hasText: 'Not applied yet: change request' });
    await filed.waitFor();
    const id = (await filed.locator('code').textContent())!;
    expect(await revision()).toBe(before);

    await go(author, '/change-requests');
    const card = author.locator(`article[data-change-request="${id}"]`);
    await card.waitFor();
    expect(await card.getByRole('heading').textContent()).toBe(`Change request to ${AGENT} by alice: pending`);
    expect(await card.getByTestId('cannot-approve').textContent()).toBe(
      'You cannot approve this request: you submitted it: another admin must approve it.',
    );
    expect(await card.getByRole('button', { name: 'Approve and apply' }).count()).toBe(0);
    expect(await card.getByRole('button', { name: 'Withdraw' }).count()).toBe(1);
    await shot(author, 'change-requests-author');
  });

  it('a second admin approves it in the console: the stored plan is applied', async () => {
    const before = await revision();
    await go(approver, '/change-requests');
    const card = approver.locator('article[data-change-request]').first();
    await card.getByRole('button', { name: 'Approve and apply' }).waitFor();
    expect(await card.getByRole('list', { name: 'Gated changes' }).textContent()).toBe(
      'access reconcile-invoice: no longer requires scope recon.run',
    );
    await shot(approver, 'change-requests');
    await card.getByLabel('Comment').fill('scope no longer needed, checked with finance');
    await card.getByRole('button', { name: 'Approve and apply' }).click();
    await approver.getByText('No change request matches.').waitFor();
    expect(await revision()).toBe(before + 1);
    const scopes = (
      await stack.cp.get(PrismaService).capabilityManifest.findUniqueOrThrow({
        where: { agentId_capabilityId: { agentId: AGENT, capabilityId: 'reconcile-invoice' } },
      })
    ).requiresScopes;
    expect(scopes).toEqual([]);
    await approver.getByLabel('Status').selectOption('applied');
    await approver.getByRole('button', { name: 'Filter' }).click();
    await approver.getByRole('heading', { name: `Change request to ${AGENT} by alice: applied` }).waitFor();
    await approver.getByText('Decided by bob: scope no longer needed, checked with finance').waitFor();
  });

  it('a break-glass apply is visible with its reason', async () => {
    const current = (
      await gqlOk(stack.url, root(), `{ manifests(filter: { agentId: "${AGENT}" }) { nodes { document } } }`)
    ).manifests.nodes.map((m: { document: Record<string, unknown> }) => m.document) as Record<string, unknown>[];
    const opened = current.map((d) => (d.id === 'reconcile-invoice' ? { ...d, visibility: 'public' } : d));
    const applied = await gqlOk(
      stack.url,
      root(),
      'mutation($input: ApplyManifestsInput!) { applyManifests(input: $input) { applied breakGlass } }',
      {
        input: {
          agentId: AGENT,
          manifests: opened,
          dryRun: false,
          expectedRevision: await revision(),
          breakGlassReason: 'incident 12: partners locked out',
        },
      },
    );
    expect(applied.applyManifests).toEqual({ applied: true, breakGlass: true });
    await go(approver, '/change-requests');
    await approver.getByLabel('Status').selectOption('');
    await approver.getByRole('button', { name: 'Filter' }).click();
    await approver.getByRole('heading', { name: `Break-glass apply to ${AGENT} by root: applied` }).waitFor();
    await approver.getByText('Applied without a second admin by root. Reason: incident 12: partners locked out').waitFor();
    await shot(approver, 'change-requests-break-glass');
  });
});
