/**
 * Debian's Chromium driven by playwright-core (no browser download: `.ci/run` installs the
 * package with apt). The flags are the ones this machine needs (../shared/ENVIRONMENT.md); every
 * launch gets a fresh profile directory, removed on close.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(viewport = { width: 1366, height: 900 }): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (bash .ci/run does)`);
  const profile = await mkdtemp(join(tmpdir(), 'cp-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** A violation a third-party widget is known for, left to its upstream: the rule and the one element it may name. */
export interface KnownViolation {
  rule: string;
  target: string;
  why: string;
}

/**
 * axe-core in the page: the violations of impact serious or critical (ids and the first few
 * targets), except a `known` rule on exactly its named element (every other element still counts).
 */
export async function seriousA11yViolations(page: Page, known: KnownViolation[] = []): Promise<string[]> {
  const source = await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  // Evaluated through the DevTools protocol, which the page's CSP (no inline scripts) does not
  // govern; a string runs in the page as it is (the test's tsconfig has no DOM types).
  await page.evaluate(source);
  const results = await page.evaluate<{ violations: unknown[] }>("axe.run(document, { resultTypes: ['violations'] })");
  return (results.violations as { id: string; impact: string; nodes: { target: string[] }[] }[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ ...v, nodes: v.nodes.filter((n) => !known.some((k) => k.rule === v.id && n.target.join(' ') === k.target)) }))
    .filter((v) => v.nodes.length > 0)
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(' '))
          .join(', ')}`,
    );
}

/** A full-page screenshot into each directory (the test artifacts, and docs/console when asked). */
export async function screenshot(page: Page, name: string, dirs: string[]): Promise<void> {
  const png = await page.screenshot({ fullPage: true });
  for (const dir of dirs) {
    const file = join(dir, `${name}.png`);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, png);
  }
}

const ROOT = join(__dirname, '..', '..');

/** Builds apps/console into `outDir` (the Vite build `npm run build` runs, into a directory of the test's own; suites may build at the same time, so Vite's per-project build lock is bypassed). */
export async function buildConsole(outDir: string): Promise<void> {
  await promisify(execFile)(
    process.execPath,
    [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'error', '--bypass-lock'],
    // A production build, as `npm run build` makes (jest's NODE_ENV=test would give React's development build).
    { cwd: join(ROOT, 'apps', 'console'), env: { ...process.env, NODE_ENV: 'production' } },
  );
}
