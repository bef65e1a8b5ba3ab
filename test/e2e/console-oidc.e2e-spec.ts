/**
 * The console's production sign-in (issue 20): OpenID Connect authorization code with PKCE in
 * Chromium against a real OpenID provider (`oidc-provider`, started by the test), the control
 * plane verifying the provider's RS256 access tokens through its JWKS URL. A team admin's token
 * shows only its team's agents; a platform admin sees both; the development sign-in is off.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Page } from 'playwright-core';
import { mintAdminToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from '../support/boot';
import { buildConsole, launchChromium, screenshot, type Browser } from '../support/browser';
import { testConfig } from '../support/config';
import { freePort } from '../support/free-port';
import { gqlOk } from '../support/graphql-client';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const AUDIENCE = 'urn:capability-control-plane:admin';
const ROOT = join(__dirname, '..', '..');
const SHOTS = [
  join(ROOT, 'test-artifacts', 'console'),
  ...(process.env.CONSOLE_SCREENSHOTS === 'docs' ? [join(ROOT, 'docs', 'console')] : []),
];

jest.setTimeout(240_000);

describe('console sign-in with OpenID Connect (authorization code + PKCE) against oidc-provider', () => {
  let db: TestDatabase;
  let dir: string;
  let idp: TestOidcProvider;
  let config: AppConfig;
  let cp: NestFastifyApplication;
  let url: string;
  let browser: Browser;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'console-oidc-'));
    const built = buildConsole(join(dir, 'console'));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    idp = await startOidcProvider({
      clientId: 'cp-console',
      redirectUri: `${url}/console/callback`,
      audience: AUDIENCE,
      accounts: {
        'alice-platform': { roles: ['platform-admin'], teams: [] },
        'fran-finance': { roles: ['team-admin'], teams: ['finance-agents-team'] },
      },
    });
    db = await createTestDatabase('console_oidc');
    await built;
    config = testConfig({
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: `e2e-console-oidc-${randomBytes(4).toString('hex')}:`,
      CONSOLE_DIR: join(dir, 'console'),
      JWT_ALGORITHMS: 'RS256,HS256',
      JWT_JWKS_URL: `${idp.issuer}/jwks`,
      JWT_ISSUER: idp.issuer,
      JWT_AUDIENCE: AUDIENCE,
      CONSOLE_OIDC_ISSUER: idp.issuer,
      CONSOLE_OIDC_CLIENT_ID: 'cp-console',
      CONSOLE_OIDC_SCOPE: 'openid admin',
      CONSOLE_OIDC_RESOURCE: AUDIENCE,
      CONSOLE_DEV_SIGN_IN: 'false',
    });
    ({ app: cp } = await bootApp(AppModule, config, { port }));
    await seedWhenEmpty(cp.get(PrismaService), {});
    // A second team and agent the finance team admin must not see.
    const admin = mintAdminToken(config, 'test:admin', ['platform-admin']);
    await gqlOk(url, admin, 'mutation { createTeam(input: { id: "payments-team", name: "Payments" }) { id } }');
    await gqlOk(url, admin, 'mutation($input: CreateAgentInput!) { createAgent(input: $input) { id } }', {
      input: {
        id: 'payments-agent',
        teamId: 'payments-team',
        name: 'Payments agent',
        description: 'Pays invoices.',
        version: '1.0.0',
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        supportedInterfaces: [{ url: 'http://127.0.0.1:9/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      },
    });
    browser = await launchChromium();
    // Waits are on elements and URLs; a loaded 2-core CI box gets generous time for each.
    browser.context.setDefaultTimeout(60_000);
    browser.context.setDefaultNavigationTimeout(60_000);
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await cp?.close();
    await idp?.stop();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Through the provider's login and consent pages and back to the console. */
  const signIn = async (page: Page, login: string) => {
    await page.goto(`${url}/console/`);
    await page.getByRole('button', { name: 'Sign in with your organisation' }).click();
    await page.waitForURL((u) => u.href.startsWith(idp.issuer));
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('any');
    await page.locator('button[type="submit"]').click();
    await page.locator('button[type="submit"]').click(); // consent
    await page.waitForURL((u) => u.href.startsWith(`${url}/console/`) && !u.href.includes('/callback'));
    await page.getByTestId('who').waitFor();
  };

  it('offers only the organisation sign-in (no development tokens)', async () => {
    const settings = await (await fetch(`${url}/console/config.json`)).json();
    expect(settings).toEqual({
      graphqlPath: '/graphql',
      oidc: { issuer: idp.issuer, clientId: 'cp-console', scope: 'openid admin', resource: AUDIENCE },
      devSignIn: false,
      apiTimeoutMs: 15_000,
      spinnerDelayMs: 300,
    });
    const dev = await fetch(`${url}/console/dev-sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"kind":"admin"}',
    });
    expect(dev.status).toBe(404);
    expect(await dev.text()).not.toMatch(/eyJ/);
  });

  it('a team admin signs in with code + PKCE and sees only its team', async () => {
    const page = await browser.context.newPage();
    const authorize: string[] = [];
    page.on('request', (r) => r.url().startsWith(`${idp.issuer}/auth`) && authorize.push(r.url()));
    await signIn(page, 'fran-finance');
    const params = new URL(authorize[0]).searchParams;
    expect(params.get('response_type')).toBe('code');
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.get('resource')).toBe(AUDIENCE);
    expect(await page.getByTestId('who').textContent()).toContain('fran-finance · team-admin · finance-agents-team');
    await page.getByRole('row', { name: /Finance/ }).waitFor();
    expect(await page.getByRole('row', { name: /Payments/ }).count()).toBe(0);
    await page.goto(`${url}/console/agents/payments-agent`);
    await page.getByRole('alert').filter({ hasText: 'NOT_FOUND' }).first().waitFor();
    await page.goto(`${url}/console/agents/finance-agent`);
    await page.getByRole('button', { name: 'Edit invoice-lookup' }).waitFor();
    await screenshot(page, 'oidc-team-admin', SHOTS);
    await page.close();
  });

  it('a platform admin from the same provider sees every team', async () => {
    await browser.context.clearCookies();
    const page = await browser.context.newPage();
    await signIn(page, 'alice-platform');
    await page.getByRole('row', { name: /Payments/ }).waitFor();
    await page.getByRole('row', { name: /Finance/ }).waitFor();
    await page.close();
  });

  it('an account the provider gives no admin claims is refused by the API, and the console says so', async () => {
    await browser.context.clearCookies();
    const page = await browser.context.newPage();
    await page.goto(`${url}/console/`);
    await page.getByRole('button', { name: 'Sign in with your organisation' }).click();
    await page.waitForURL((u) => u.href.startsWith(idp.issuer));
    await page.locator('input[name="login"]').fill('mallory');
    await page.locator('input[name="password"]').fill('any');
    await page.locator('button[type="submit"]').click();
    await page.locator('button[type="submit"]').click();
    // The sign-in form was already on screen when the API refused the token: the refusal shows there.
    const alert = page.getByRole('alert').filter({ hasText: 'UNAUTHENTICATED' });
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/^UNAUTHENTICATED: .+/);
    expect(await page.getByRole('button', { name: 'Sign in with your organisation' }).count()).toBe(1);
    expect(await page.getByTestId('who').count()).toBe(0);
    // The refused token is not kept: a reload starts at the sign-in, without the error.
    await page.reload();
    await page.getByRole('button', { name: 'Sign in with your organisation' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    await screenshot(page, 'oidc-sign-in', SHOTS);
    await page.close();
  });
});
