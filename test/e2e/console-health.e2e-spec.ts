/**
 * The console's health panel (issue 32, ADR 0310) in Chromium, against the real control plane
 * serving the freshly built console: a node registers and reports a batch with outcomes and
 * latency through the node API; the Usage screen shows calls, error rate and p50/p95 per
 * capability and tenant over the chosen range; axe finds no serious violation; a screenshot goes
 * to test-artifacts/console (and docs/console with CONSOLE_SCREENSHOTS=docs).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Page } from 'playwright-core';
import { mintNodeToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from '../support/boot';
import { buildConsole, launchChromium, screenshot, seriousA11yViolations, type Browser } from '../support/browser';
import { testConfig } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { until } from '../support/until';

const AGENT = 'finance-agent';
const NODE = 'console-health-node';
const ROOT = join(__dirname, '..', '..');
const SHOTS = [
  join(ROOT, 'test-artifacts', 'console'),
  ...(process.env.CONSOLE_SCREENSHOTS === 'docs' ? [join(ROOT, 'docs', 'console')] : []),
];
const UI_MS = 60_000;
jest.setTimeout(300_000);

describe('the console shows health per capability (Chromium)', () => {
  let db: TestDatabase;
  let dir: string;
  let config: AppConfig;
  let cp: NestFastifyApplication;
  let url: string;
  let browser: Browser;
  let page: Page;

  const node = (path: string, body: unknown) =>
    fetch(`${url}/node/v1/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${mintNodeToken(config, AGENT)}` },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'console-health-e2e-'));
    const consoleDir = join(dir, 'console');
    const built = buildConsole(consoleDir);
    db = await createTestDatabase('console_health');
    await built;
    config = testConfig({
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: `e2e-console-health-${randomBytes(4).toString('hex')}:`,
      CONSOLE_DIR: consoleDir,
      CONSOLE_DEV_SIGN_IN: 'true',
    });
    ({ app: cp, url } = await bootApp(AppModule, config));
    await seedWhenEmpty(cp.get(PrismaService));
    expect((await node('register', { nodeId: NODE })).status).toBe(204);
    const at = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();
    const latency = [6, 2, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0];
    const res = await node('usage', {
      nodeId: NODE,
      batchId: randomUUID(),
      windowStart: at(120_000),
      windowEnd: at(0),
      counts: [
        {
          capabilityId: 'invoice-lookup',
          tenant: 'anonymous',
          count: 11,
          lastCallAt: at(60_000),
          outcomes: { completed: 8, failed: 2, canceled: 0, refused: 1 },
          latencyMs: latency,
        },
        {
          capabilityId: 'reconcile-invoice',
          tenant: 'acme-partner',
          count: 2,
          lastCallAt: at(60_000),
          outcomes: { completed: 2 },
          latencyMs: [0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0],
        },
      ],
    });
    expect(res.status).toBe(202);
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.setDefaultTimeout(UI_MS);
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await cp?.close();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('shows calls, error rate and p50/p95 per capability and tenant over the chosen range', async () => {
    await page.goto(`${url}/console/`);
    await page.getByRole('button', { name: 'Platform admin' }).click();
    await page.getByTestId('who').waitFor();
    await page.goto(`${url}/console/usage`);
    await page.getByLabel('Agent', { exact: true }).selectOption(AGENT);
    const panel = page.getByRole('region', { name: 'Health per capability' });
    await panel.waitFor();
    const lookup = page.getByTestId('health-invoice-lookup-anonymous');
    const text = await until(
      'the health row',
      async () => ((await lookup.count()) ? ((await lookup.textContent()) ?? undefined) : undefined),
      UI_MS,
    );
    // 11 calls; 2 failed of 10 whose handler ran: 20.0 %; 1 refused by a limit.
    expect(text).toMatch(/invoice-lookup\s*anonymous\s*11\s*20\.0 %/);
    expect(text).toMatch(/2\s*1\s*0$/);
    // p95 of [6 ≤5ms, 2 ≤10ms, 1 ≤25ms, 1 in (250, 500]]: rank 9.5 lies in (250, 500] ms.
    const p95 = Number(/([\d.]+) ms\s*2\s*1\s*0$/.exec(text)![1]);
    expect(p95).toBeGreaterThan(250);
    expect(p95).toBeLessThanOrEqual(500);
    await page.getByTestId('health-reconcile-invoice-acme-partner').waitFor();
    expect(await page.getByTestId('health-reconcile-invoice-acme-partner').textContent()).toMatch(/2\s*0\.0 %/);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await screenshot(page, 'usage-health', SHOTS);

    // Another range re-queries; the calls of the last minutes are in every range offered.
    await panel.getByLabel('Range').selectOption('1h');
    await page.getByTestId('health-invoice-lookup-anonymous').waitFor();
    await panel.getByLabel('Range').selectOption('30d');
    await page.getByTestId('health-invoice-lookup-anonymous').waitFor();
  });
});
