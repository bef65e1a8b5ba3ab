/**
 * The console's remaining admin forms (issue 32) in Debian's Chromium against the real control
 * plane serving the freshly built console, seeded with the worked example: the settings screen
 * (approval policy, tenants' notification endpoints, undelivered notices, retirement runs) and an
 * agent's sunset dates, cost budgets and routing clarifications, each with a hostile value whose
 * API problem shows under its field while nothing changes; the revision history planning a
 * rollback; and roles deciding what is rendered. axe-core checks every screen (no serious or
 * critical violation); screenshots go to test-artifacts/console (and docs/console with
 * CONSOLE_SCREENSHOTS=docs).
 */
import { randomUUID } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { mintAdminToken } from '@cp/auth';
import { financeAgentExample } from '@cp/capabilities';
import { PrismaService } from '@cp/db';
import { screenshot, seriousA11yViolations } from '../support/browser';
import { openScreen, SHOTS, startConsoleStack, UI_MS, type ConsoleStack } from '../support/console-stack';
import { gqlOk } from '../support/graphql-client';
import { until } from '../support/until';

const AGENT = 'finance-agent';
jest.setTimeout(300_000);

describe('settings, sunset dates, cost budgets and routing clarifications in the console (Chromium)', () => {
  let stack: ConsoleStack;
  let admin: Page;
  let viewer: Page;
  let teamAdmin: Page;
  const team = financeAgentExample().manifests[0].owner;
  /** The revision before a clarification was promoted into reconcile-invoice's examples (what the rollback goes back to). */
  let beforePromotion = 0;
  const root = () => mintAdminToken(stack.config, 'root', ['platform-admin']);
  const prisma = () => stack.cp.get(PrismaService);
  const revision = async () => (await prisma().agent.findUniqueOrThrow({ where: { id: AGENT } })).revision;

  const go = (page: Page, path: string) => openScreen(page, stack.url, path);
  const shot = async (page: Page, name: string) => {
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshot(page, name, SHOTS);
  };
  const field = (scope: Locator | Page, label: string) => scope.getByLabel(label, { exact: true });
  /** The text of the problems list under the field labelled `label`, once it shows. */
  const problemsUnder = async (scope: Locator | Page, label: string) => {
    const list = scope.getByRole('list', { name: `Problems with ${label}` });
    await list.waitFor();
    return list.textContent();
  };
  const manifest = async (capabilityId: string) =>
    prisma().capabilityManifest.findUniqueOrThrow({ where: { agentId_capabilityId: { agentId: AGENT, capabilityId } } });

  beforeAll(async () => {
    stack = await startConsoleStack('console-settings', {
      // Loopback endpoints are allowed here (a receiver on this machine); every other private address stays refused.
      overrides: { DEPRECATION_NOTICE_ALLOW: '127.0.0.1' },
      viewport: { width: 1280, height: 900 },
    });
    admin = await stack.signedIn('root', ['platform-admin']);
    viewer = await stack.signedIn('vera', ['viewer']);
    teamAdmin = await stack.signedIn('tom', ['team-admin'], [team]);
  }, 600_000);

  afterEach(() => stack?.reportPageErrors());

  afterAll(async () => {
    await stack?.close();
  });

  it('the settings screen at 1280 and 768 px: its title, no serious axe violation, nothing wider than the window, the header on one row at 1280', async () => {
    for (const width of [1280, 768]) {
      await admin.setViewportSize({ width, height: 900 });
      await go(admin, '/settings');
      await admin.getByRole('heading', { name: 'Retirement runs' }).waitFor();
      expect(await admin.title()).toBe('Settings · Capability control plane');
      expect(await seriousA11yViolations(admin)).toEqual([]);
      expect(await admin.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
      if (width === 1280) {
        // The navigation gained an entry: the header must still be one row at 1280.
        const spread = await admin.evaluate<number>(`(() => {
          const centres = [...document.querySelectorAll('header.top .brand, header.top nav li, header.top .who, header.top button')]
            .map((e) => { const r = e.getBoundingClientRect(); return r.top + r.height / 2; });
          return Math.round(Math.max(...centres) - Math.min(...centres));
        })()`);
        expect(spread).toBeLessThanOrEqual(2);
      }
    }
    await admin.setViewportSize({ width: 1280, height: 900 });
  });

  it('the approval policy: a platform admin sets it; a team admin and a viewer see it read only', async () => {
    await go(admin, '/settings');
    const form = admin.getByRole('form', { name: 'Approval policy' });
    await admin.getByText('No platform admin has set it: the configured default applies.', { exact: false }).waitFor();
    await field(form, 'remove: a capability is removed').check();
    await field(form, 'public: a capability becomes public').check();
    await form.getByRole('button', { name: 'Save the approval policy' }).click();
    await admin.getByText(/Set by root on /).waitFor();
    const policy = await gqlOk(stack.url, root(), '{ approvalPolicy { kinds isDefault updatedBy } }');
    expect(policy.approvalPolicy).toEqual({ kinds: expect.arrayContaining(['public', 'remove']), isDefault: false, updatedBy: 'root' });
    expect((policy.approvalPolicy as { kinds: string[] }).kinds).toHaveLength(2);
    await shot(admin, 'settings');

    for (const page of [teamAdmin, viewer]) {
      await go(page, '/settings');
      const readOnly = page.getByRole('form', { name: 'Approval policy' });
      await field(readOnly, 'remove: a capability is removed').waitFor();
      expect(await field(readOnly, 'remove: a capability is removed').isChecked()).toBe(true);
      expect(await field(readOnly, 'remove: a capability is removed').isDisabled()).toBe(true);
      expect(await readOnly.getByRole('button', { name: 'Save the approval policy' }).count()).toBe(0);
      expect(await seriousA11yViolations(page)).toEqual([]);
    }
    // Back to no gate, so the changes below apply at once.
    await field(form, 'remove: a capability is removed').uncheck();
    await field(form, 'public: a capability becomes public').uncheck();
    await form.getByRole('button', { name: 'Save the approval policy' }).click();
    await until(
      'the policy emptied',
      async () => ((await gqlOk(stack.url, root(), '{ approvalPolicy { kinds } }')).approvalPolicy.kinds.length === 0 ? true : undefined),
      UI_MS,
    );
  });

  it('notification endpoints: a private address is refused under its field and nothing is stored; a good one is set with its secret shown once, then deleted', async () => {
    const stored = async () => prisma().notificationEndpoint.findMany({ where: { tenantId: 'acme-partner' } });
    await go(admin, '/settings');
    const form = admin.getByRole('form', { name: 'Set a notification endpoint' });
    await field(form, 'Tenant').selectOption('acme-partner');
    await field(form, 'Endpoint URL').fill('http://169.254.169.254/latest/meta-data');
    await form.getByRole('button', { name: 'Set endpoint' }).click();
    expect(await problemsUnder(form, 'Endpoint URL')).toMatch(/^\$\.url /);
    expect(await field(form, 'Endpoint URL').getAttribute('aria-invalid')).toBe('true');
    expect(await stored()).toEqual([]);
    await shot(admin, 'settings-endpoint-error');

    await field(form, 'Endpoint URL').fill('http://127.0.0.1:9/notices');
    await form.getByRole('button', { name: 'Set endpoint' }).click();
    const secret = admin.getByTestId('endpoint-secret');
    await secret.waitFor();
    expect(await secret.textContent()).toMatch(/^Signing secret for acme-partner, shown this once: whsec_/);
    await admin.locator('tr[data-key="acme-partner"]').filter({ hasText: 'http://127.0.0.1:9/notices' }).waitFor();
    expect((await stored()).map((e) => e.url)).toEqual(['http://127.0.0.1:9/notices']);

    await admin.getByRole('button', { name: 'Delete the notification endpoint of acme-partner' }).click();
    await admin.getByRole('dialog').getByRole('button', { name: 'Delete endpoint' }).click();
    await admin.locator('tr[data-key="acme-partner"]').waitFor({ state: 'detached' });
    expect(await stored()).toEqual([]);
  });

  it('an undelivered notice is queued again', async () => {
    const id = randomUUID();
    await prisma().deprecationNotice.create({
      data: {
        id,
        tenantId: 'acme-partner',
        agentId: AGENT,
        capabilityId: 'invoice-lookup',
        event: 'capability.deprecated',
        eventKey: 'console-settings',
        payload: {},
        status: 'dead',
        attempts: 8,
        lastError: 'HTTP 503 from the endpoint',
      },
    });
    await go(admin, '/settings');
    const row = admin.locator(`tr[data-key="${id}"]`);
    await row.filter({ hasText: 'HTTP 503 from the endpoint' }).waitFor();
    await row.getByRole('button', { name: 'Deliver again' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await prisma().deprecationNotice.findUniqueOrThrow({ where: { id } })).status).toBe('pending');
  });

  it('runs retirement now: the run is queued and listed', async () => {
    await go(admin, '/settings');
    await admin.getByRole('button', { name: 'Run retirement now' }).click();
    await admin.getByRole('dialog').getByRole('button', { name: 'Run retirement' }).click();
    const queued = admin.getByRole('status').filter({ hasText: /^Queued retirement run / });
    await queued.waitFor();
    const runs = (await gqlOk(stack.url, root(), '{ retirementRuns { id trigger requestedBy } }')).retirementRuns as {
      id: string;
      trigger: string;
    }[];
    expect(runs).toHaveLength(1);
    expect(await queued.textContent()).toContain(runs[0].id);
    await admin.locator(`tr[data-key="${runs[0].id}"]`).filter({ hasText: 'manual by root' }).waitFor();
  });

  it("an agent's sunset date: a value the API refuses shows under its field and changes nothing; a valid one is announced, then withdrawn", async () => {
    await gqlOk(stack.url, root(), 'mutation($input: DeprecateInput!) { deprecateManifest(input: $input) { revision } }', {
      input: { agentId: AGENT, capabilityId: 'invoice-lookup', expectedRevision: await revision(), reason: 'replaced by the v2 lookup' },
    });
    const before = await revision();
    await go(admin, `/agents/${AGENT}`);
    const form = admin.getByRole('form', { name: 'Sunset of invoice-lookup' });
    await field(form, 'Sunset date').fill('next tuesday, probably');
    await form.getByRole('button', { name: 'Set sunset of invoice-lookup' }).click();
    expect(await problemsUnder(form, 'Sunset date')).toMatch(/^\$\.sunsetAt /);
    expect(await revision()).toBe(before);
    expect((await manifest('invoice-lookup')).sunsetAt).toBeNull();
    await admin.getByRole('heading', { name: 'Sunset dates' }).scrollIntoViewIfNeeded();
    await shot(admin, 'agent-sunset-error');

    await field(form, 'Sunset date').fill('2099-06-30');
    await form.getByRole('button', { name: 'Set sunset of invoice-lookup' }).click();
    await admin
      .getByRole('status')
      .filter({ hasText: `Sunset of invoice-lookup set to 2099-06-30: the agent is now at revision ${before + 1}.` })
      .first()
      .waitFor();
    expect((await manifest('invoice-lookup')).sunsetAt?.toISOString()).toBe('2099-06-30T00:00:00.000Z');
    await admin.getByRole('button', { name: 'Withdraw sunset of invoice-lookup' }).click();
    await admin.getByRole('status').filter({ hasText: 'Sunset of invoice-lookup withdrawn' }).first().waitFor();
    expect((await manifest('invoice-lookup')).sunsetAt).toBeNull();
    expect(await revision()).toBe(before + 2);
  });

  it('cost budgets: a refused number shows under its field and changes nothing; valid budgets are saved', async () => {
    const before = await revision();
    await go(admin, `/agents/${AGENT}`);
    const form = admin.getByRole('form', { name: 'Cost budgets' });
    await field(form, 'Calls per window (medium)').fill('0');
    await field(form, 'Window in seconds (medium)').fill('60');
    await field(form, 'Calls per window (high)').fill('lots');
    await field(form, 'Window in seconds (high)').fill('60');
    await form.getByRole('button', { name: `Save budgets at revision ${before}` }).click();
    // Text that is no number is refused before it is sent; the API refuses the 0.
    expect(await problemsUnder(form, 'Calls per window (high)')).toBe('$.budgets[1].calls must be a whole number');
    await field(form, 'Calls per window (high)').fill('10');
    await form.getByRole('button', { name: `Save budgets at revision ${before}` }).click();
    expect(await problemsUnder(form, 'Calls per window (medium)')).toBe('$.budgets[0].calls must be an integer from 1 to 1000000000');
    expect(await form.getByRole('list', { name: 'Problems with Calls per window (high)' }).count()).toBe(0);
    expect(await revision()).toBe(before);
    const budgets = async () =>
      (await gqlOk(stack.url, root(), `{ costBudgets(agentId: "${AGENT}") { budgets { costClass calls windowS } } }`)).costBudgets.budgets;
    expect(await budgets()).toEqual([]);
    await admin.getByRole('heading', { name: 'Cost budgets' }).scrollIntoViewIfNeeded();
    await shot(admin, 'cost-budgets-error');

    await field(form, 'Calls per window (medium)').fill('600');
    await form.getByRole('button', { name: `Save budgets at revision ${before}` }).click();
    await admin
      .getByRole('status')
      .filter({ hasText: `Saved the cost budgets: the agent is now at revision ${before + 1}.` })
      .first()
      .waitFor();
    expect(await budgets()).toEqual([
      { costClass: 'medium', calls: 600, windowS: 60 },
      { costClass: 'high', calls: 10, windowS: 60 },
    ]);
    await admin.getByRole('button', { name: `Save budgets at revision ${before + 1}` }).waitFor();
    expect(await field(admin.getByRole('form', { name: 'Cost budgets' }), 'Calls per window (medium)').inputValue()).toBe('600');
  });

  it('routing clarifications: empty text is refused under its field; one is promoted as an example, another dismissed', async () => {
    const now = new Date();
    const clarification = (text: string) => ({
      id: randomUUID(),
      agentId: AGENT,
      tenant: 'acme-partner',
      capabilityId: 'reconcile-invoice',
      text,
      textHash: randomUUID(),
      firstSeenAt: now,
      lastSeenAt: now,
    });
    const promoted = clarification('match invoice 4711 against its purchase order');
    const dismissed = clarification('hello?');
    await prisma().routingClarification.createMany({ data: [promoted, dismissed] });
    const before = await revision();
    beforePromotion = before;
    await go(admin, `/agents/${AGENT}`);
    const card = admin.locator(`article[data-clarification="${promoted.id}"]`);
    await field(card, 'Text to add').fill('   ');
    await card.getByRole('button', { name: 'Promote' }).click();
    expect(await problemsUnder(card, 'Text to add')).toBe('$.text must not be empty');
    expect(await revision()).toBe(before);
    await admin.getByRole('heading', { name: 'Routing clarifications' }).scrollIntoViewIfNeeded();
    await shot(admin, 'routing-clarifications');

    await field(card, 'Text to add').fill('match an invoice against its purchase order');
    await card.getByRole('button', { name: 'Promote' }).click();
    await admin
      .getByRole('status')
      .filter({
        hasText: `Added “match an invoice against its purchase order” to reconcile-invoice's examples: the agent is now at revision ${before + 1}.`,
      })
      .first()
      .waitFor();
    await card.waitFor({ state: 'detached' });
    const document = await gqlOk(stack.url, root(), `{ manifest(agentId: "${AGENT}", capabilityId: "reconcile-invoice") { document } }`);
    expect(document.manifest.document.skill.examples).toContain('match an invoice against its purchase order');

    await admin.locator(`article[data-clarification="${dismissed.id}"]`).getByRole('button', { name: 'Dismiss' }).click();
    await admin.getByText('No clarification waits for review.').waitFor();
    const statuses = await prisma().routingClarification.findMany({ where: { agentId: AGENT }, orderBy: { text: 'asc' } });
    expect(statuses.map((c) => [c.text, c.status])).toEqual([
      ['hello?', 'dismissed'],
      ['match invoice 4711 against its purchase order', 'promoted'],
    ]);
    expect(await revision()).toBe(before + 1);
  });

  it('the revision history plans a rollback: one the lifecycle forbids shows the API refusal; an allowed one shows old and new values side by side', async () => {
    const current = await revision();
    await go(admin, `/agents/${AGENT}`);
    const history = admin.getByRole('region', { name: 'Revision history' });
    await history.locator('tr[data-revision="1"]').filter({ hasText: 'seed: the worked example' }).waitFor();
    expect(await history.locator(`tr[data-revision="${current}"]`).textContent()).toContain('current');
    await shot(admin, 'revision-history');
    // Revision 1 had invoice-lookup in ga: deprecated → ga is no allowed transition, and the plan says so.
    await history.getByRole('button', { name: 'Plan a rollback to revision 1' }).click();
    await admin.waitForURL(`${stack.url}/console/plan?agent=${AGENT}&rollback=1`);
    const refusal = admin.getByRole('alert').filter({ hasText: 'invoice-lookup: transition deprecated → ga is not allowed' });
    await refusal.first().waitFor();
    expect(await admin.getByRole('region', { name: 'Plan', exact: true }).count()).toBe(0);

    await go(admin, `/agents/${AGENT}`);
    await history.getByRole('button', { name: `Plan a rollback to revision ${beforePromotion}` }).click();
    await admin.waitForURL(`${stack.url}/console/plan?agent=${AGENT}&rollback=${beforePromotion}`);
    const plan = admin.getByRole('region', { name: 'Plan', exact: true });
    await Promise.race([plan.waitFor(), admin.getByRole('alert').first().waitFor()]);
    expect(await admin.getByRole('alert').allTextContents()).toEqual([]);
    expect(await admin.title()).toMatch(new RegExp(`^Plan a rollback to revision ${beforePromotion} · finance-agent · `));
    const capabilities = plan.getByRole('table', { name: 'Capabilities in the plan' });
    expect(await capabilities.locator('tr', { hasText: 'reconcile-invoice' }).locator('td').nth(1).textContent()).toBe('changed');
    const examples = plan
      .getByRole('table', { name: 'Changed fields, old and new value side by side' })
      .locator('tbody tr', { hasText: 'reconcile-invoice' });
    expect(await examples.count()).toBe(1);
    expect(await examples.locator('td.old').textContent()).toContain('match an invoice against its purchase order');
    expect(await examples.locator('td.new').textContent()).not.toContain('match an invoice against its purchase order');
    // A plan, not an apply: nothing changed until Apply.
    expect(await revision()).toBe(current);
    await shot(admin, 'rollback-plan');
  });

  it("roles: a viewer sees the agent's operations read only; a team admin gets no platform-wide list", async () => {
    await go(viewer, `/agents/${AGENT}`);
    const sunset = viewer.getByRole('form', { name: 'Sunset of invoice-lookup' });
    await field(sunset, 'Sunset date').waitFor();
    expect(await field(sunset, 'Sunset date').isDisabled()).toBe(true);
    expect(await sunset.getByRole('button').count()).toBe(0);
    const budgets = viewer.getByRole('form', { name: 'Cost budgets' });
    await budgets.getByText('Your role cannot change the budgets.').waitFor();
    expect(await field(budgets, 'Calls per window (medium)').isDisabled()).toBe(true);
    expect(await budgets.getByRole('button').count()).toBe(0);
    expect(await seriousA11yViolations(viewer)).toEqual([]);

    await go(viewer, '/settings');
    await viewer.getByRole('heading', { name: 'Notification endpoints' }).waitFor();
    expect(await viewer.getByRole('form', { name: 'Set a notification endpoint' }).count()).toBe(0);
    expect(await viewer.getByRole('button', { name: 'Run retirement now' }).count()).toBe(0);

    await go(teamAdmin, '/settings');
    await teamAdmin
      .getByText('Notification endpoints and retirement runs span every tenant and team: platform admins and viewers see them.')
      .waitFor();
    expect(await teamAdmin.getByRole('heading', { name: 'Notification endpoints' }).count()).toBe(0);
    expect(await teamAdmin.getByRole('alert').count()).toBe(0);
    // A team admin of the agent's team changes its budgets like its other settings.
    await go(teamAdmin, `/agents/${AGENT}`);
    await teamAdmin.getByRole('button', { name: /^Save budgets at revision / }).waitFor();
  });
});
