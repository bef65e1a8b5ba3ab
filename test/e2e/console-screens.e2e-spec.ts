/**
 * The console a platform team runs its day in (issue 32), in Debian's Chromium against the real
 * control plane (AppModule serving the freshly built console) on a real database, seeded with the
 * worked example: every screen at 1280 and 768 px (axe-core: no serious or critical violation, the
 * GraphQL explorer included and nothing allowlisted; the header on one row at 1280; nothing wider
 * than the window), the page title, state in the URL surviving a reload, the loading, slow and
 * failed states, the shell when the API is down, and the forms (directory, new agent, agent
 * settings, preview opt-ins) with the API's problems under their fields and roles hiding controls.
 */
import type { Page } from 'playwright-core';
import { mintAdminToken } from '@cp/auth';
import { screenshot, seriousA11yViolations } from '../support/browser';
import { devSignIn, openScreen, SHOTS, startConsoleStack, UI_MS, type ConsoleStack } from '../support/console-stack';
import { freePort } from '../support/free-port';
import { gqlOk } from '../support/graphql-client';
import { until } from '../support/until';

const AGENT = 'finance-agent';
/** The console's API timeout in this suite (CONSOLE_API_TIMEOUT_MS): short, so the timeout state is reached. */
const API_TIMEOUT_MS = 4000;
jest.setTimeout(300_000);

/** Every screen, with what proves it has rendered its data. */
const SCREENS: { path: string; title: RegExp; shown: string }[] = [
  { path: '/', title: /^Agents · /, shown: 'Finance Agent' },
  { path: `/agents/${AGENT}`, title: /^Finance Agent · Agent · /, shown: 'invoice-lookup' },
  {
    path: `/caller?agent=${AGENT}&tenant=acme-partner&scopes=recon.run`,
    title: /^View as caller · finance-agent · acme-partner \[recon\.run\] · /,
    shown: 'Public card',
  },
  { path: `/plan?agent=${AGENT}`, title: /^Plan & apply · finance-agent · /, shown: 'Plan and apply' },
  { path: `/fleet?agent=${AGENT}`, title: /^Fleet · finance-agent · /, shown: 'Fleet' },
  { path: `/usage?agent=${AGENT}`, title: /^Usage · finance-agent · /, shown: 'Deprecated capabilities' },
  { path: '/audit', title: /^Audit log · /, shown: 'Audit log' },
  { path: '/directory', title: /^Teams, tenants & scopes · /, shown: 'acme-partner' },
  { path: '/explorer', title: /^GraphQL explorer · /, shown: 'GraphQL explorer' },
];

describe('the console screens in Chromium: layout, accessibility, URL state, loading and failure', () => {
  let stack: ConsoleStack;
  let page: Page;

  const go = (path: string) => openScreen(page, stack.url, path);
  const signIn = (kind: Parameters<typeof devSignIn>[2], team?: string) => devSignIn(page, stack.url, kind, team);
  const admin = () => mintAdminToken(stack.config, 'test:admin', ['platform-admin']);
  const agentRevision = async (id: string) =>
    (await gqlOk(stack.url, admin(), `{ agent(id: "${id}") { revision description } }`)).agent as { revision: number; description: string };
  /** A form's field by its exact label (the problems list under it is named "Problems with <label>"). */
  const textIs = (locator: ReturnType<Page['getByRole']>, pattern: RegExp) =>
    until(
      `text ${pattern}`,
      async () => {
        const text = (await locator.count()) ? ((await locator.first().textContent()) ?? '') : '';
        return pattern.test(text) ? text : undefined;
      },
      UI_MS,
    );
  const field = (form: ReturnType<Page['getByRole']>, label: string) => form.getByLabel(label, { exact: true });
  /** How far the page is wider than the window (0: no horizontal scrolling). */
  const overflow = () => page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
  /**
   * The header's layout: how far apart the vertical centres of its items are (0: one row), and the
   * same for the screens' links alone (0: the navigation does not wrap).
   */
  const header = () =>
    page.evaluate<{ all: number; nav: number }>(`(() => {
      const spread = (selector) => {
        const centres = [...document.querySelectorAll(selector)].map((e) => { const r = e.getBoundingClientRect(); return r.top + r.height / 2; });
        return Math.round(Math.max(...centres) - Math.min(...centres));
      };
      return { all: spread('header.top .brand, header.top nav li, header.top .who, header.top button'), nav: spread('header.top nav li') };
    })()`);

  beforeAll(async () => {
    stack = await startConsoleStack('console-screens', {
      overrides: { CONSOLE_DEV_SIGN_IN: 'true', CONSOLE_API_TIMEOUT_MS: String(API_TIMEOUT_MS) },
      seed: { agentNodeUrl: `http://127.0.0.1:${await freePort()}` },
      viewport: { width: 1280, height: 900 },
    });
    page = await stack.page();
    await signIn('Platform admin');
  }, 600_000);

  afterEach(() => stack?.reportPageErrors());

  afterAll(async () => {
    await stack?.close();
  });

  for (const width of [1280, 768]) {
    it(`every screen at ${width} px: its data, its title, no serious axe violation, nothing wider than the window, ${width === 1280 ? 'the header on one row' : 'the navigation on a row of its own'}`, async () => {
      await page.setViewportSize({ width, height: 900 });
      for (const screen of SCREENS) {
        await go(screen.path);
        await page.getByText(screen.shown, { exact: true }).first().waitFor();
        if (screen.path === '/explorer') await page.locator('.graphiql-query-editor textarea[aria-label]').first().waitFor();
        expect([screen.path, await page.title()]).toEqual([screen.path, expect.stringMatching(screen.title)]);
        expect([screen.path, await seriousA11yViolations(page)]).toEqual([screen.path, []]);
        expect([screen.path, await overflow()]).toEqual([screen.path, 0]);
        // At 1280 the whole header is one row; at 768 the screens' links get a row of their own, unwrapped.
        const layout = await header();
        const spread = width === 1280 ? layout.all : layout.nav;
        expect([screen.path, spread <= 2 ? 'one row' : `rows ${spread}px apart`]).toEqual([screen.path, 'one row']);
      }
      await screenshot(page, `explorer-${width}`, SHOTS);
      await go('/');
      await page.getByText('Finance Agent', { exact: true }).waitFor();
      await screenshot(page, `agents-${width}`, SHOTS);
    });
  }

  it('the directory: a platform admin creates, edits and deletes a tenant; the API problem shows under its field', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await go('/directory');
    const form = page.getByRole('form', { name: 'New tenant' });
    await field(form, 'Tenant id').fill('Bad Id!');
    await field(form, 'Tenant name').fill('Initech');
    await form.getByRole('button', { name: 'Create tenant' }).click();
    const problems = form.getByRole('list', { name: 'Problems with Tenant id' });
    await problems.waitFor();
    expect(await problems.textContent()).toBe('$.id must be a lowercase slug (letters, digits, "-")');
    expect(await field(form, 'Tenant id').getAttribute('aria-invalid')).toBe('true');
    expect(await form.getByRole('list', { name: 'Problems with Tenant name' }).count()).toBe(0);
    await screenshot(page, 'directory-error', SHOTS);
    expect(await seriousA11yViolations(page)).toEqual([]);
    const tenants = async () =>
      (
        (await gqlOk(stack.url, admin(), '{ tenants(page: { first: 100 }) { nodes { id name } } }')).tenants as {
          nodes: { id: string; name: string }[];
        }
      ).nodes;
    expect((await tenants()).map((t) => t.id)).not.toContain('Bad Id!');

    await field(form, 'Tenant id').fill('initech');
    await form.getByRole('button', { name: 'Create tenant' }).click();
    await page.getByRole('status').filter({ hasText: 'Created tenant initech.' }).waitFor();
    await page.locator('tr[data-key="initech"]').waitFor();
    expect(await field(form, 'Tenant id').inputValue()).toBe('');
    await page.getByRole('button', { name: 'Edit tenant initech' }).click();
    const edit = page.getByRole('form', { name: 'Edit tenant initech' });
    await field(edit, 'Tenant name').fill('Initech Corp');
    await edit.getByRole('button', { name: 'Save tenant' }).click();
    await page.locator('tr[data-key="initech"]').filter({ hasText: 'Initech Corp' }).waitFor();
    expect((await tenants()).find((t) => t.id === 'initech')?.name).toBe('Initech Corp');
    await screenshot(page, 'directory', SHOTS);
    await page.getByRole('button', { name: 'Delete tenant initech' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete tenant' }).click();
    await page.locator('tr[data-key="initech"]').waitFor({ state: 'detached' });
    expect((await tenants()).map((t) => t.id)).not.toContain('initech');
    // A scope a manifest still requires is refused by the API, and the console says why.
    await page.getByRole('button', { name: 'Delete scope recon.run' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete scope' }).click();
    await textIs(page.getByRole('alert').filter({ hasText: 'recon.run' }), /scope "recon\.run" is required by/);
    const scopes = await gqlOk(stack.url, admin(), '{ scopes(page: { first: 100 }) { nodes { name } } }');
    expect(JSON.stringify(scopes)).toContain('recon.run');
  });

  it('creates an agent, edits its settings and preview opt-ins; refused input shows under its field and changes nothing', async () => {
    await go('/');
    await page.getByText('New agent', { exact: true }).click();
    const form = page.getByRole('form', { name: 'New agent' });
    await field(form, 'Agent id').fill('BAD');
    await form.getByRole('button', { name: 'Create agent' }).click();
    await textIs(form.getByRole('list', { name: 'Problems with Agent id' }), /^\$\.id must be a slug/);
    await field(form, 'Agent id').fill('payments-agent');
    await field(form, 'Agent name').fill('Payments');
    await field(form, 'Agent description').fill('Pays invoices.');
    await field(form, 'Agent node URL (JSON-RPC)').fill('http://127.0.0.1:9/a2a/jsonrpc');
    await form.getByRole('button', { name: 'Create agent' }).click();
    // Created: the console opens the new agent's page, settings included.
    await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
    expect(page.url()).toBe(`${stack.url}/console/agents/payments-agent`);
    expect(await agentRevision('payments-agent')).toEqual({ revision: 1, description: 'Pays invoices.' });

    const settings = page.getByRole('form', { name: 'Agent settings' });
    await field(settings, 'Webhook allow-list').fill('0.0.0.0/0');
    await field(settings, 'Description').fill('Never saved.');
    await settings.getByRole('button', { name: 'Update settings at revision 1' }).click();
    await textIs(
      settings.getByRole('list', { name: 'Problems with Webhook allow-list' }),
      /^\$\.protocol\.webhookAllow\[0\] "0\.0\.0\.0\/0" would allow every address/,
    );
    expect(await agentRevision('payments-agent')).toEqual({ revision: 1, description: 'Pays invoices.' });
    await screenshot(page, 'agent-settings-error', SHOTS);
    await field(settings, 'Webhook allow-list').fill('');
    await field(settings, 'Description').fill('Pays invoices on time.');
    await settings.getByRole('button', { name: 'Update settings at revision 1' }).click();
    await page.getByRole('button', { name: 'Update settings at revision 2' }).waitFor();
    expect(await agentRevision('payments-agent')).toEqual({ revision: 2, description: 'Pays invoices on time.' });

    await page.getByLabel('Tenant to opt in').selectOption('acme-partner');
    await page.getByRole('button', { name: 'Opt in', exact: true }).click();
    await page.getByRole('button', { name: 'Opt out acme-partner' }).waitFor();
    const optIns = await gqlOk(stack.url, admin(), '{ previewOptIns(agentId: "payments-agent") { tenantId } }');
    expect(optIns.previewOptIns).toEqual([{ tenantId: 'acme-partner' }]);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshot(page, 'agent-settings', SHOTS);
  });

  it('state lives in the URL: the caller, its scopes, the audit filters and the usage range survive a reload', async () => {
    await go('/caller');
    await page.getByLabel('Agent', { exact: true }).selectOption(AGENT);
    await page.getByLabel('Caller', { exact: true }).selectOption('acme-partner');
    await page.getByLabel('recon.run').check();
    await page.getByRole('region', { name: /Extended card for acme-partner \[recon\.run\]/ }).waitFor();
    expect(new URL(page.url()).search).toBe(`?agent=${AGENT}&tenant=acme-partner&scopes=recon.run`);
    await page.reload();
    await page.getByRole('region', { name: /Extended card for acme-partner \[recon\.run\]/ }).waitFor();
    await until(
      'the caller from the URL chosen',
      async () => (await page.getByLabel('Caller', { exact: true }).inputValue()) === 'acme-partner' || undefined,
      UI_MS,
    );
    expect(await page.getByRole('checkbox', { name: 'recon.run' }).isChecked()).toBe(true);
    expect(await page.title()).toMatch(/^View as caller · finance-agent · acme-partner \[recon\.run\]/);

    await go('/audit');
    await page.getByRole('textbox', { name: 'Action' }).fill('tenant.create');
    await page.getByRole('button', { name: 'Filter' }).click();
    await until(
      'the URL carries the filter',
      async () => (new URL(page.url()).searchParams.get('action') === 'tenant.create' ? true : undefined),
      UI_MS,
    );
    await page.reload();
    expect(await page.getByRole('textbox', { name: 'Action' }).inputValue()).toBe('tenant.create');
    await until(
      'the filtered log after the reload',
      async () => {
        const rows = await page.getByRole('row').allTextContents();
        return rows.length === 2 && rows[1].includes('initech') ? rows : undefined;
      },
      UI_MS,
    );

    await go(`/usage?agent=${AGENT}&from=2026-01-01&to=2026-01-31`);
    await page.getByText('Deprecated capabilities').waitFor();
    expect(await page.getByLabel('From (UTC day)').inputValue()).toBe('2026-01-01');
    expect(await page.getByLabel('To (UTC day)').inputValue()).toBe('2026-01-31');
    // A hostile range in a shared link: the API's error, named, with a retry; nothing else breaks.
    await go(`/usage?agent=${AGENT}&from=yesterday`);
    await page.getByRole('alert').filter({ hasText: 'BAD_USER_INPUT' }).first().waitFor();
    expect(await page.getByRole('alert').filter({ hasText: 'BAD_USER_INPUT' }).first().textContent()).toMatch(/YYYY-MM-DD/);
  });

  it('opening a screen while the session is still being read waits for the screen, not the shell (a loaded machine)', async () => {
    // The shell shows the navigation (its "Fleet" link) while "Signing in…": opening a screen must
    // not take that for the screen. The session's query is held 1.5 s, as a loaded machine did.
    await page.route('**/graphql', async (route) => {
      if (/query Me\b/.test(route.request().postData() ?? '')) await new Promise((r) => setTimeout(r, 1500));
      await route.continue().catch(() => undefined);
    });
    try {
      await go(`/fleet?agent=${AGENT}`);
      expect(await page.title()).toMatch(/^Fleet · finance-agent · /);
      expect(await page.locator('main h1').first().textContent()).toBe('Fleet');
    } finally {
      await page.unroute('**/graphql').catch(() => undefined);
    }
  });

  it('a slow screen shows a spinner, then a timeout with a retry that loads it', async () => {
    await go('/');
    // The Directory screen's first request hangs (until the test ends); the retry's goes through.
    // Only that query is held: a request the home screen still has in flight must not take its place.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let requests = 0;
    await page.route('**/graphql', async (route) => {
      if (/query Directory\b/.test(route.request().postData() ?? '') && requests++ === 0) await held;
      await route.continue().catch(() => undefined);
    });
    try {
      await page.getByRole('link', { name: 'Directory' }).click();
      await page.getByRole('status').filter({ hasText: 'Loading teams, tenants and scopes…' }).waitFor();
      await screenshot(page, 'loading', SHOTS);
      const timeout = page.getByTestId('timeout');
      await textIs(timeout, new RegExp(`has not answered \\(teams, tenants and scopes\\) in ${API_TIMEOUT_MS / 1000} s`));
      await screenshot(page, 'timeout', SHOTS);
      expect(await seriousA11yViolations(page)).toEqual([]);
      await timeout.getByRole('button', { name: 'Retry' }).click();
      await page.locator('tr[data-key="acme-partner"]').waitFor();
      expect(await page.getByTestId('timeout').count()).toBe(0);
      expect(requests).toBeGreaterThanOrEqual(2);
    } finally {
      release();
      await page.unroute('**/graphql').catch(() => undefined);
    }
  });

  it('with the API down the shell still loads (navigation, sign-out, the error and a retry)', async () => {
    await page.route('**/graphql', (route) => route.abort('connectionrefused'));
    try {
      await page.goto(`${stack.url}/console/fleet?agent=${AGENT}`);
      await page.getByRole('heading', { name: 'The control plane API is not answering', level: 1 }).waitFor();
      await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Fleet' }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      await textIs(page.getByRole('alert'), /NETWORK/);
      expect(await page.title()).toMatch(/^API unavailable · /);
      expect(await seriousA11yViolations(page)).toEqual([]);
      await screenshot(page, 'api-down', SHOTS);
      await page.unroute('**/graphql');
      await page.getByRole('button', { name: 'Retry' }).click();
      // Back: the screen the link named, with its agent.
      await page.getByRole('heading', { name: 'Fleet', level: 1 }).waitFor();
      await page.getByTestId('fleet-summary').waitFor();
      await until(
        'the agent from the URL chosen',
        async () => (await page.getByLabel('Agent', { exact: true }).inputValue()) === AGENT || undefined,
        UI_MS,
      );
    } finally {
      await page.unroute('**/graphql').catch(() => undefined);
    }
  });

  it('roles decide what is shown: a viewer gets no forms, a team admin only its own team', async () => {
    await signIn('Viewer');
    await go('/directory');
    await page.locator('tr[data-key="acme-partner"]').waitFor();
    expect(await page.getByRole('form').count()).toBe(0);
    expect(await page.getByRole('button', { name: /^(Edit|Delete) / }).count()).toBe(0);
    await page.getByText('Read only: platform admins create and change teams, tenants and scopes.').waitFor();
    await go('/');
    await page.getByText('Finance Agent', { exact: true }).waitFor();
    expect(await page.getByText('New agent', { exact: true }).count()).toBe(0);
    await go(`/agents/${AGENT}`);
    const settings = page.getByRole('form', { name: 'Agent settings' });
    await settings.getByText('Your role cannot change these settings.').waitFor();
    expect(await field(settings, 'Name').isDisabled()).toBe(true);
    expect(await settings.getByRole('button', { name: /Update settings/ }).count()).toBe(0);
    expect(await page.getByRole('form', { name: 'New preview opt-in' }).count()).toBe(0);

    await signIn('Team admin of this team', 'finance-agents-team');
    await go('/');
    await page.getByText('New agent', { exact: true }).click();
    const teams = await page.getByLabel('Owning team').locator('option').allTextContents();
    expect(teams).toEqual(['Finance agents team (finance-agents-team)']);
    await go('/directory');
    await page.getByText('Read only: platform admins create and change teams, tenants and scopes.').waitFor();
    expect(await page.getByRole('form').count()).toBe(0);
    await go(`/agents/${AGENT}`);
    await page
      .getByRole('form', { name: 'Agent settings' })
      .getByRole('button', { name: /Update settings/ })
      .waitFor();
  });
});
