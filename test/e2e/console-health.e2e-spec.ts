/**
 * The console's health panel (issue 32, ADR 0310) in Chromium, against the real control plane
 * serving the freshly built console: a node registers and reports a batch with outcomes and
 * latency through the node API; the Usage screen shows calls, error rate and p50/p95 per
 * capability and tenant over the chosen range; axe finds no serious violation; a screenshot goes
 * to test-artifacts/console (and docs/console with CONSOLE_SCREENSHOTS=docs).
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { mintNodeToken } from '@cp/auth';
import { screenshot, seriousA11yViolations } from '../support/browser';
import { devSignIn, SHOTS, startConsoleStack, UI_MS, type ConsoleStack } from '../support/console-stack';
import { until } from '../support/until';

const AGENT = 'finance-agent';
const NODE = 'console-health-node';
jest.setTimeout(300_000);

describe('the console shows health per capability (Chromium)', () => {
  let stack: ConsoleStack;
  let page: Page;

  const node = (path: string, body: unknown) =>
    fetch(`${stack.url}/node/v1/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${mintNodeToken(stack.config, AGENT)}` },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    stack = await startConsoleStack('console-health', { overrides: { CONSOLE_DEV_SIGN_IN: 'true' } });
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
    page = await stack.page();
  }, 600_000);

  afterEach(() => stack?.reportPageErrors());

  afterAll(async () => {
    await stack?.close();
  });

  it('shows calls, error rate and p50/p95 per capability and tenant over the chosen range', async () => {
    await devSignIn(page, stack.url, 'Platform admin');
    await page.goto(`${stack.url}/console/usage`);
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
