/**
 * The control plane serving the freshly built console, as the console's browser suites boot it:
 * the console built (while the suite's database is created) into a directory of the suite's own,
 * AppModule on that database with the worked example seeded, and Debian's Chromium. Also the
 * pages the suites drive: generous timeouts for a loaded 2-core CI box, and what the page itself
 * reports (uncaught errors, console errors, CSP refusals) kept to show up with a failure.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Page } from 'playwright-core';
import { mintAdminToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from './boot';
import { buildConsole, launchChromium, type Browser } from './browser';
import { testConfig } from './config';
import { createTestDatabase, type TestDatabase } from './test-database';

const ROOT = join(__dirname, '..', '..');

/** Where screenshots go: the test artifacts, and docs/console with CONSOLE_SCREENSHOTS=docs. */
export const SHOTS = [
  join(ROOT, 'test-artifacts', 'console'),
  ...(process.env.CONSOLE_SCREENSHOTS === 'docs' ? [join(ROOT, 'docs', 'console')] : []),
];

/** How long a page waits for an element or a navigation. */
export const UI_MS = 60_000;

export interface ConsoleStack {
  /** The suite's own directory (the console build under `console/`), removed on close. */
  dir: string;
  db: TestDatabase;
  /** The Redis key prefix, for other apps of the suite to share. */
  prefix: string;
  config: AppConfig;
  cp: NestFastifyApplication;
  url: string;
  browser: Browser;
  /** What the pages opened with `page()` reported; `reportPageErrors` prints and empties it. */
  pageErrors: string[];
  /** A new page (tab) with the suite's timeouts, its errors kept in `pageErrors`. */
  page(): Promise<Page>;
  /**
   * A new page signed in as `subject` with `roles` over `teams`: the session the console keeps in
   * sessionStorage (one per tab), so that suites need not click through a sign-in per page.
   */
  signedIn(subject: string, roles: ('platform-admin' | 'team-admin' | 'viewer')[], teams?: string[]): Promise<Page>;
  /** Writes the page errors seen since the last call to stderr (for an afterEach). */
  reportPageErrors(): void;
  close(): Promise<void>;
}

/**
 * `label` names the suite's directory, database and Redis prefix; `overrides` go over its config
 * (CONSOLE_DIR and the database set); `seed` are the worked example's options; `viewport` is
 * Chromium's window.
 */
export async function startConsoleStack(
  label: string,
  options: {
    overrides?: Record<string, string>;
    seed?: Parameters<typeof seedWhenEmpty>[1];
    viewport?: { width: number; height: number };
  } = {},
): Promise<ConsoleStack> {
  const dir = await mkdtemp(join(tmpdir(), `${label}-e2e-`));
  const consoleDir = join(dir, 'console');
  const built = buildConsole(consoleDir);
  const db = await createTestDatabase(label.replace(/-/g, '_'));
  const prefix = `e2e-${label}-${randomBytes(4).toString('hex')}:`;
  let cp: NestFastifyApplication | undefined;
  let browser: Browser | undefined;
  const closeAll = async () => {
    await browser?.close();
    await cp?.close();
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  };
  let config: AppConfig;
  let url: string;
  try {
    await built;
    config = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: prefix, CONSOLE_DIR: consoleDir, ...options.overrides });
    ({ app: cp, url } = await bootApp(AppModule, config));
    await seedWhenEmpty(cp.get(PrismaService), options.seed);
    browser = await launchChromium(options.viewport);
  } catch (error) {
    // A suite whose beforeAll failed has no stack to close: leave no database or directory behind.
    await closeAll().catch(() => undefined);
    throw error;
  }
  const pageErrors: string[] = [];
  const chromium = browser;
  const page = async () => {
    const opened = await chromium.context.newPage();
    opened.setDefaultTimeout(UI_MS);
    opened.setDefaultNavigationTimeout(UI_MS);
    opened.on('pageerror', (e) => pageErrors.push(`pageerror: ${e.message}`));
    opened.on('console', (m) => m.type() === 'error' && pageErrors.push(`console: ${m.text()}`));
    return opened;
  };
  return {
    dir,
    db,
    prefix,
    config,
    cp,
    url,
    browser,
    pageErrors,
    page,
    async signedIn(subject, roles, teams = []) {
      const token = mintAdminToken(config, subject, roles, teams);
      const signed = await page();
      await signed.addInitScript(
        (session: string) => sessionStorage.setItem('cp-console-session', session),
        JSON.stringify({ token, via: 'dev', expiresAt: Date.now() + 3_600_000 }),
      );
      return signed;
    },
    reportPageErrors() {
      if (pageErrors.length) process.stderr.write(`browser errors:\n${pageErrors.splice(0).join('\n')}\n`);
    },
    close: closeAll,
  };
}

/** Opens a console screen and waits until the signed-in console has rendered it (its h1). */
export async function openScreen(page: Page, url: string, path: string): Promise<void> {
  await page.goto(`${url}/console${path}`);
  // Not the shell's "Signing in…" (main aria-busy while the session is read, the navigation already
  // shown): on a loaded machine a screen's own text was found in that navigation before the screen was there.
  await page.locator('main:not([aria-busy="true"]) h1').first().waitFor();
}

/** The development sign-in (CONSOLE_DEV_SIGN_IN): signs out whoever is signed in, then in as `kind`. */
export async function devSignIn(
  page: Page,
  url: string,
  kind: 'Platform admin' | 'Viewer' | 'Team admin of this team',
  team?: string,
): Promise<void> {
  await page.goto(`${url}/console/`);
  const signOut = page.getByRole('button', { name: 'Sign out' });
  await Promise.race([signOut.waitFor(), page.getByRole('button', { name: 'Platform admin' }).waitFor()]);
  if (await signOut.count()) await signOut.click();
  if (team) await page.getByLabel('Team').fill(team);
  await page.getByRole('button', { name: kind }).click();
  await page.getByTestId('who').waitFor();
}
