/**
 * The admin console (issue 20) in Debian's Chromium, against the real control plane (AppModule,
 * serving the freshly built console under /console), worker and agent node on a real database and
 * Redis, seeded with the worked example. Each screen is checked with axe-core (no serious or
 * critical violation) and saved as a screenshot in test-artifacts/console (and in docs/console
 * with CONSOLE_SCREENSHOTS=docs).
 */
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Locator, Page } from 'playwright-core';
import { mintA2AToken, mintAdminToken, mintNodeToken } from '@cp/auth';
import { NodeSync } from '@cp/node-sdk';
import { WorkerModule } from '../../apps/worker/src/worker.module';
import { AgentNodeModule } from '../../apps/agent-node/src/agent-node.module';
import { bootApp } from '../support/boot';
import { screenshot, seriousA11yViolations, type KnownViolation } from '../support/browser';
import { testConfig } from '../support/config';
import { openScreen, SHOTS, startConsoleStack, UI_MS, type ConsoleStack } from '../support/console-stack';
import { freePort } from '../support/free-port';
import { codeOf, gql, gqlOk } from '../support/graphql-client';
import { until } from '../support/until';

const AGENT = 'finance-agent';

/**
 * Every wait in this suite is on state: an element, a text or an API answer that proves the screen
 * (or the fleet) is where the next step needs it, with timeouts generous enough for a loaded
 * 2-core CI box (UI_MS; a slow step waits longer; nothing sleeps for a fixed time).
 */
const CONVERGE_MS = 120_000;
jest.setTimeout(300_000);

describe('the admin console in Chromium (control plane, worker, agent node)', () => {
  let stack: ConsoleStack;
  let worker: NestFastifyApplication;
  let node: NestFastifyApplication;
  let nodeUrl: string;
  let page: Page;
  const admin = () => mintAdminToken(stack.config, 'test:admin', ['platform-admin']);

  const shot = async (name: string, known: KnownViolation[] = []) => {
    expect(await seriousA11yViolations(page, known)).toEqual([]);
    await screenshot(page, name, SHOTS);
  };
  /** The editor's check passed; if it never does, the failure says what the editor shows instead. */
  const noProblems = async () => {
    try {
      await page.getByText('No problems.').waitFor();
    } catch (error) {
      const shown = await page
        .locator('.editor')
        .innerText()
        .catch(() => '(no editor)');
      throw new Error(`"No problems." never showed; the editor shows: ${shown.replace(/\s+/g, ' ').slice(-600)}`, { cause: error });
    }
  };
  /** Opens a screen and waits until the signed-in console has rendered it (its h1). */
  const go = (path: string) => openScreen(page, stack.url, path);
  /** Waits until `locator`'s text matches (the locator re-resolves on every poll). */
  const textOf = async (what: string, locator: Locator, pattern: RegExp, timeoutMs = UI_MS) =>
    until(
      what,
      async () => {
        const text = (await locator.count()) ? ((await locator.first().textContent()) ?? '') : '';
        return pattern.test(text) ? text : undefined;
      },
      timeoutMs,
    );
  const chooseAgent = async () => {
    await page.getByLabel('Agent', { exact: true }).selectOption(AGENT);
  };
  const revision = async () =>
    ((await gqlOk(stack.url, admin(), `{ agent(id: "${AGENT}") { revision } }`)).agent as { revision: number }).revision;
  /** The agent's manifest documents as the API has them (what the editors open on). */
  const documents = async <T>() =>
    (
      (await gqlOk(stack.url, admin(), `{ manifests(filter: { agentId: "${AGENT}" }, page: { first: 100 }) { nodes { state document } } }`))
        .manifests as { nodes: { state: string; document: T }[] }
    ).nodes
      .filter((m) => m.state !== 'removed')
      .map((m) => m.document);
  /** The text a CodeMirror editor shows (its lines, without line breaks). */
  const shown = async (editor: Locator) => (await editor.textContent()) ?? '';
  /**
   * Replaces the editor's document with `text` and checks it took: on a loaded machine a fill can
   * race CodeMirror's own selection and leave the old text beside the new (seen in CI). Compared
   * line by line (`.cm-line`: the problem widgets between lines are not part of the document).
   */
  const setEditor = async (editor: Locator, text: string) => {
    const holds = async () =>
      (await editor.locator('.cm-line').allTextContents()).join('').replace(/\s+/g, '') === text.replace(/\s+/g, '');
    for (let attempt = 0; attempt < 3; attempt++) {
      await editor.fill(text);
      if (await holds()) return;
      await editor.press('ControlOrMeta+a');
      await editor.press('Delete');
    }
    throw new Error(
      `the editor never held the text filled in: ${(await editor.locator('.cm-line').allTextContents()).join('\n').slice(0, 300)}`,
    );
  };

  beforeAll(async () => {
    const nodePort = await freePort();
    nodeUrl = `http://127.0.0.1:${nodePort}`;
    // The one-click sign-in is opt-in (ADR 0210), as `npm start` opts in for the demo.
    stack = await startConsoleStack('console', { overrides: { CONSOLE_DEV_SIGN_IN: 'true' }, seed: { agentNodeUrl: nodeUrl } });
    const { db, dir, prefix, url } = stack;
    ({ app: worker } = await bootApp(
      WorkerModule,
      testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: prefix, RETIREMENT_SCHEDULE_ENABLED: 'false' }),
    ));
    ({ app: node } = await bootApp(
      AgentNodeModule,
      testConfig({
        DATABASE_URL: db.url,
        REDIS_KEY_PREFIX: prefix,
        CONTROL_PLANE_URL: url,
        AGENT_ID: AGENT,
        NODE_ID: 'console-node-1',
        NODE_TOKEN: mintNodeToken(stack.config, AGENT),
        NODE_CACHE_DIR: join(dir, 'node'),
        USAGE_FLUSH_INTERVAL_MS: '300',
      }),
      { port: nodePort },
    ));
    await until('the node synced', () => node.get(NodeSync).current(), CONVERGE_MS);
    // The agents and fleet screens count live nodes: a node is live once its handler inventory (sent
    // at register and with every heartbeat) has reached the control plane; the suite starts then.
    await until(
      'the node is live in the fleet',
      async () => {
        const r = await gqlOk(url, admin(), `{ fleet(agentId: "${AGENT}") { nodes { nodeId live lag } } }`);
        return (r.fleet as { nodes: { live: boolean; lag: number | null }[] }).nodes.some((n) => n.live && n.lag === 0) || undefined;
      },
      CONVERGE_MS,
    );
    page = await stack.page();
  }, 600_000);

  afterEach(() => stack?.reportPageErrors());

  afterAll(async () => {
    await node?.close();
    await worker?.close();
    await stack?.close();
  });

  it('serves the console: index.html revalidated, hashed assets immutable, deep links answer the app', async () => {
    const index = await fetch(`${stack.url}/console/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(index.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await index.text();
    const asset = /\/console\/assets\/index-[A-Za-z0-9_-]+\.js/.exec(html)?.[0];
    expect(asset).toBeDefined();
    const js = await fetch(`${stack.url}${asset}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const deep = await fetch(`${stack.url}/console/agents/${AGENT}`);
    expect(deep.status).toBe(200);
    expect(await deep.text()).toBe(html);
    const missing = await fetch(`${stack.url}/console/assets/index-doesnotexist.js`);
    expect(missing.headers.get('cache-control')).toBe('no-cache');
    const settings = await (await fetch(`${stack.url}/console/config.json`)).json();
    expect(settings).toEqual({ graphqlPath: '/graphql', oidc: null, devSignIn: true, apiTimeoutMs: 15_000, spinnerDelayMs: 300 });
  });

  it('the agent node reports its handler inventory, so the fleet counts it live (what the agents and fleet screens show)', async () => {
    const r = await gqlOk(stack.url, admin(), `{ fleet(agentId: "${AGENT}") { nodes { nodeId live handlers { id } } } }`);
    const nodes = (r.fleet as { nodes: { nodeId: string; live: boolean; handlers: { id: string }[] | null }[] }).nodes;
    expect(nodes).toHaveLength(1);
    expect(nodes[0]).toMatchObject({ nodeId: 'console-node-1', live: true });
    expect(nodes[0].handlers?.map((h) => h.id).sort()).toEqual(['invoices.v1.lookup', 'recon.v3.reconcile']);
  });

  it('the development sign-in refuses hostile bodies with a clear 4xx and mints nothing', async () => {
    const post = (body: string, type = 'application/json') =>
      fetch(`${stack.url}/console/dev-sign-in`, { method: 'POST', headers: { 'content-type': type }, body });
    const cases: [string, string | undefined, number, RegExp][] = [
      ['{"kind":"root"}', undefined, 400, /"kind" must be one of/],
      ['{"kind":"team-admin","team":"../other"}', undefined, 400, /"team" must be a team id/],
      [`{"kind":"team-admin","team":"${'a'.repeat(100)}"}`, undefined, 400, /"team" must be a team id/],
      ['{"kind":"admin","roles":["platform-admin"]}', undefined, 400, /unknown field/],
      ['{"kind":"viewer","team":"finance-agents-team"}', undefined, 400, /only for kind team-admin/],
      ['[1,2]', undefined, 400, /JSON object/],
      ['kind=admin', 'application/x-www-form-urlencoded', 415, /application\/json/],
      ['{"kind":', undefined, 400, /./],
    ];
    for (const [body, type, status, message] of cases) {
      const res = await post(body, type);
      expect([body, res.status]).toEqual([body, status]);
      const text = await res.text();
      expect(text).not.toMatch(/eyJ/); // no token
      const answer = JSON.parse(text) as { error?: { message: string }; message?: string };
      expect(answer.error?.message ?? answer.message).toMatch(message);
    }
    const big = await post(JSON.stringify({ kind: 'admin', pad: 'x'.repeat(2_000_000) }));
    expect(big.status).toBe(413);
  });

  it('signs in with one click and lists the agents with revision, nodes and lag', async () => {
    await page.goto(`${stack.url}/console/`);
    await page.getByRole('button', { name: 'Platform admin' }).waitFor();
    await shot('sign-in');
    await page.getByRole('button', { name: 'Platform admin' }).click();
    await textOf('the signed-in subject', page.getByTestId('who'), /platform-admin/);
    const row = page.getByRole('row', { name: /Finance/ });
    // Agent, team, revision 1, one live node of one, no lag.
    await textOf('the agent row', row, /finance-agent\s*finance-agents-team\s*1\s*1 \/ 1\s*0$/);
    await page.getByLabel('Search').fill('no-such-agent');
    await page.getByText('No agent matches.').waitFor();
    expect(await row.count()).toBe(0);
    await page.getByLabel('Search').fill('finance');
    await row.waitFor();
    await shot('agents');
  });

  it('views the agent as acme-partner (extended card, explain) and as anonymous', async () => {
    await go('/caller');
    await chooseAgent();
    await page.getByLabel('Caller', { exact: true }).selectOption('acme-partner');
    await page.getByLabel('recon.run').check();
    const extended = page.getByRole('region', { name: /Extended card for acme-partner/ });
    await extended.waitFor();
    await textOf('the extended card lists reconcile-invoice', extended, /reconcile-invoice/);
    await page.getByRole('button', { name: 'Explain reconcile-invoice for acme-partner [recon.run]' }).click();
    await page.getByText('acme-partner [recon.run] sees reconcile-invoice in').waitFor();
    await page.getByLabel('Message text').fill('Reconcile invoice INV-20931 against its PO');
    await page.getByRole('button', { name: 'Route it' }).click();
    // The decision layer by layer: every earlier layer passed, the classifier chose, among the two
    // capabilities this caller's index holds.
    const decision = page.getByRole('region', { name: 'Routing decision' });
    await textOf('the routing decision', decision, /Routed to reconcile-invoice/);
    const layers = decision.getByRole('list', { name: 'Routing decision, layer by layer' }).getByRole('listitem');
    expect(
      await layers.evaluateAll((items) => items.map((i) => `${i.getAttribute('data-layer')}:${i.getAttribute('data-status')}`)),
    ).toEqual([
      'bound-task:passed',
      'entitlement:passed',
      'only-candidate:passed',
      'data-shape:passed',
      'hint:passed',
      'classifier:decided',
    ]);
    expect(await layers.nth(1).textContent()).toContain("2 capabilities in this caller's router index");
    expect(await decision.getByRole('row').nth(1).textContent()).toMatch(/^reconcile-invoice\d/);
    await shot('view-as-partner');

    await page.getByLabel('Caller', { exact: true }).selectOption('');
    await page.getByRole('button', { name: 'Explain reconcile-invoice for anonymous' }).click();
    await page.getByText('anonymous cannot see reconcile-invoice').waitFor();
    expect(await page.getByRole('region', { name: 'Public card' }).textContent()).not.toContain('reconcile-invoice');
    // Anonymous routes through what anyone may use: invoice-lookup alone, whatever the text says.
    await page.getByRole('button', { name: 'Route it' }).click();
    await textOf('the anonymous routing decision', decision, /Routed to invoice-lookup/);
    expect(await decision.locator('li[data-status="decided"]').getAttribute('data-layer')).toBe('only-candidate');
    expect(await layers.nth(1).textContent()).toContain("1 capability in this caller's router index");
    await shot('view-as-anonymous');

    // What the screen sends, refused when it makes no sense: an anonymous caller with a tenant.
    const refused = await gql(stack.url, admin(), 'query($input: RouteTestInput!) { routeTest(input: $input) { revision } }', {
      input: { agentId: AGENT, tests: { tests: [{ text: 'x', expect: 'clarify', anonymous: true, tenant: 'acme-partner' }] } },
    });
    expect(codeOf(refused)).toBe('BAD_USER_INPUT');
    expect(JSON.stringify(refused.errors)).toContain('$.tests.tests[0].anonymous');
  });

  it('edits a manifest: a validation error shows at its JSON path, the fix saves a new revision', async () => {
    const before = await revision();
    await go(`/agents/${AGENT}`);
    await page.getByRole('button', { name: 'Edit invoice-lookup' }).click();
    const editor = page.getByLabel('Manifest document (JSON)');
    // The editor opens on the current document, checked against the current revision.
    await noProblems();
    const doc = (await documents<{ id: string; skill: { name: string } }>()).find((d) => d.id === 'invoice-lookup')!;
    expect(await shown(editor)).toContain(`"name": "${doc.skill.name}"`);
    await setEditor(editor, JSON.stringify({ ...doc, skill: { ...doc.skill, name: '' } }, null, 2));
    const problems = page.getByRole('list', { name: 'Validator problems' });
    await textOf('the problem at its JSON path', problems, /\$\.skill\.name/);
    // The problem is also shown in the editor, right under the line of `"name": ""`.
    const under = page.locator('.cm-problem').filter({ hasText: '$.skill.name' });
    await under.waitFor();
    expect(await under.evaluate((el) => el.previousElementSibling?.textContent?.trim())).toBe('"name": "",');
    expect(await page.getByRole('button', { name: 'Save', exact: true }).isDisabled()).toBe(true);
    await setEditor(editor, '{\n  "id": ');
    await page.getByText(/not valid JSON at line 2/).waitFor();
    // A truncated document: its position, under the line where it stops.
    await textOf('the syntax problem under line 2', page.locator('.cm-problem'), /^line 2, column \d+: /);
    await shot('manifest-editor-error');
    await setEditor(editor, JSON.stringify({ ...doc, skill: { ...doc.skill, name: 'Invoice lookup (console)' } }, null, 2));
    await noProblems();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(`saved invoice-lookup: the agent is now at revision ${before + 1}`).waitFor();
    expect(await revision()).toBe(before + 1);
    await textOf('the saved name in the table', page.locator('tr[data-capability="invoice-lookup"]'), /Invoice lookup \(console\)/);
    await shot('manifests');
  });

  it('a stale revision on save keeps the edit and offers to reload', async () => {
    await go(`/agents/${AGENT}`);
    await page.getByRole('button', { name: 'Edit invoice-lookup' }).click();
    const editor = page.getByLabel('Manifest document (JSON)');
    await noProblems();
    const doc = (await documents<{ id: string; skill: { description: string } }>()).find((d) => d.id === 'invoice-lookup')!;
    const text = JSON.stringify(
      { ...doc, skill: { ...doc.skill, description: 'Looks up an invoice (edited while someone else changed the agent).' } },
      null,
      2,
    );
    await setEditor(editor, text);
    await noProblems();
    const current = await revision();
    await gqlOk(stack.url, admin(), 'mutation($input: UpdateAgentInput!) { updateAgent(input: $input) { revision } }', {
      input: { id: AGENT, expectedRevision: current, description: 'Changed behind the console.' },
    });
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'CONFLICT' }).waitFor();
    expect(await shown(editor)).toContain('edited while someone else changed the agent');
    await page.getByRole('button', { name: /Reload the agent and re-plan/ }).click();
    await noProblems();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(`the agent is now at revision ${current + 2}`).waitFor();
  });

  it('plans a change (public-card diff), applies it at the planned revision and the fleet converges', async () => {
    await go('/plan');
    await chooseAgent();
    await page.getByRole('button', { name: 'Start from the current manifests' }).click();
    const area = page.getByLabel('Manifests', { exact: true });
    await until('the manifests loaded', async () => (await shown(area)).includes('invoice-lookup') || undefined, UI_MS);
    const docs = await documents<{ id: string; skill: { description: string } }>();
    const changed = docs.map((d) =>
      d.id === 'invoice-lookup' ? { ...d, skill: { ...d.skill, description: 'Looks up an invoice by number, now with PO details.' } } : d,
    );
    await area.fill(JSON.stringify(changed, null, 2));
    await page.getByRole('button', { name: 'Plan', exact: true }).click();
    const plan = page.getByRole('region', { name: 'Plan', exact: true });
    await plan.waitFor();
    const planned = await revision();
    expect(await plan.textContent()).toContain(`revision ${planned}`);
    expect(await plan.getByRole('row', { name: /invoice-lookup changed/ }).count()).toBe(1);
    await shot('plan');
    // The fleet screen, open in a second tab before the apply, watches the change propagate (a tab
    // the console opens itself: it inherits the session, which lives in sessionStorage).
    const opened = stack.browser.context.waitForEvent('page');
    await page.evaluate("void window.open('/console/fleet', '_blank')");
    const fleet = await opened;
    fleet.setDefaultTimeout(UI_MS);
    await fleet.getByTestId('who').waitFor();
    await fleet.getByLabel('Agent', { exact: true }).selectOption(AGENT);
    const summary = fleet.getByTestId('fleet-summary');
    await textOf(
      'the fleet before the change',
      summary,
      new RegExp(`^Revision ${planned}: 1 of 1 live node\\(s\\) up to date — converged$`),
    );
    await page.getByRole('button', { name: `Apply at revision ${planned}` }).click();
    await page.getByText(`is at revision ${planned + 1}`).waitFor();
    await textOf(
      'the fleet converged on the new revision',
      summary,
      new RegExp(`^Revision ${planned + 1}: 1 of 1 live node\\(s\\) up to date — converged$`),
      CONVERGE_MS,
    );
    expect(node.get(NodeSync).current()?.revision).toBe(planned + 1);
    await textOf(
      'the node row',
      fleet.getByRole('row', { name: /console-node-1/ }),
      new RegExp(`console-node-1.*${planned + 1}\\s*0\\s*yes`),
    );
    expect(await seriousA11yViolations(fleet)).toEqual([]);
    await screenshot(fleet, 'fleet', SHOTS);
    await fleet.close();
  });

  it('deprecates a capability with confirmation and shows its remaining callers', async () => {
    const partner = mintA2AToken(stack.config, 'orchestrator@acme-partner', 'acme-partner', ['recon.run'], 3600, AGENT);
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${nodeUrl}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${partner}` },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: i,
          method: 'SendMessage',
          params: { message: { messageId: `m-${i}`, role: 'ROLE_USER', parts: [{ text: 'Reconcile invoice INV-20931 against its PO' }] } },
        }),
      });
      expect(res.status).toBe(200);
    }
    await until(
      'usage reached the control plane',
      async () => {
        const r = await gqlOk(
          stack.url,
          admin(),
          `{ usage(filter: { agentId: "${AGENT}", capabilityId: "reconcile-invoice" }) { nodes { calls } } }`,
        );
        return (r.usage as { nodes: { calls: number }[] }).nodes.reduce((s, n) => s + n.calls, 0) >= 3 || undefined;
      },
      CONVERGE_MS,
    );

    await go(`/agents/${AGENT}`);
    await page.getByRole('button', { name: 'Deprecate reconcile-invoice' }).click();
    const dialog = page.getByRole('dialog', { name: 'Deprecate reconcile-invoice?' });
    await dialog.waitFor();
    await dialog.getByLabel('Reason').fill('moving to the v2 reconciler');
    await shot('deprecate-confirm');
    await dialog.getByRole('button', { name: 'Deprecate' }).click();
    await page.getByText(/deprecate reconcile-invoice: the agent is now at revision/).waitFor();
    await textOf('the row shows the new state', page.locator('tr[data-capability="reconcile-invoice"]'), /deprecated/);

    await go('/usage');
    await chooseAgent();
    const callers = page.getByRole('table', { name: 'Remaining callers of reconcile-invoice' });
    await textOf('the remaining callers', callers, /acme-partner\s*3/);
    await page.getByText('Calls per capability per day').waitFor();
    // By node too: the chart, and the nodes that served the deprecated capability.
    await page.getByText('Calls per node and capability (retirement window)').waitFor();
    await textOf(
      'the nodes that served it',
      page.getByRole('table', { name: 'Nodes that served reconcile-invoice' }),
      /console-node-1\s*3/,
    );
    // The projected retirement date is the API's (capabilityImpact), as a UTC day.
    const impact = (
      await gqlOk(
        stack.url,
        admin(),
        `{ capabilityImpact(agentId: "${AGENT}", capabilityId: "reconcile-invoice") { earliestRetirementAt } }`,
      )
    ).capabilityImpact as { earliestRetirementAt: string | null };
    expect(impact.earliestRetirementAt).not.toBeNull();
    expect(await page.getByTestId('retirement-reconcile-invoice').textContent()).toContain(
      `Projected retirement: ${impact.earliestRetirementAt!.slice(0, 10)} (UTC) at the earliest`,
    );
    await shot('usage');
  });

  it('shows the audit log with filters', async () => {
    await go('/audit');
    await page.getByRole('textbox', { name: 'Agent' }).fill(AGENT);
    await page.getByRole('textbox', { name: 'Action' }).fill('manifest.deprecate');
    await page.getByRole('button', { name: 'Filter' }).click();
    await until(
      'the filtered log',
      async () => {
        const rows = await page.getByRole('row').allTextContents();
        return rows.length === 2 && rows[1].includes('reconcile-invoice') ? rows : undefined;
      },
      UI_MS,
    );
    await page.getByRole('textbox', { name: 'Action' }).fill('');
    await page.getByRole('button', { name: 'Filter' }).click();
    await until('the whole log', async () => ((await page.getByRole('row').count()) > 3 ? true : undefined), UI_MS);
    await shot('audit');
  });

  it('bundles GraphiQL, signed in with the same session', async () => {
    await go('/explorer');
    // GraphiQL fills its query editor after mounting: run the query once it is there.
    await textOf('the default query in the editor', page.locator('.graphiql-query-editor'), /subject/);
    await page.getByRole('button', { name: /Execute query/i }).click();
    await textOf('GraphiQL answered', page.locator('.graphiql-response'), /dev:platform-admin/).catch(async (e: unknown) => {
      await screenshot(page, 'explorer-failed', SHOTS.slice(0, 1));
      throw e;
    });
    // No allowlist: the console fixes GraphiQL's tab strip and editor scrollers (ExplorerScreen).
    await shot('explorer');
  });

  it('works at a narrow width without horizontal scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      // Every screen, with the agent chosen where there is a picker (cards, charts and tables shown).
      const screens: [string, string | null][] = [
        ['/', 'Finance Agent'],
        ['/caller', 'Public card'],
        [`/agents/${AGENT}`, 'invoice-lookup'],
        ['/plan', null],
        ['/fleet', 'console-node-1'],
        ['/usage', 'Calls per capability per day'],
        ['/audit', 'manifest.deprecate'],
      ];
      for (const [path, shown] of screens) {
        await go(path);
        if (['/caller', '/fleet', '/usage'].includes(path)) await chooseAgent();
        if (shown) await page.getByText(shown, { exact: true }).first().waitFor();
        const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
        // On failure, name the widest elements that stick out (tag, class, width) so the fix is obvious.
        const culprits =
          overflow === 0
            ? []
            : await page.evaluate<string[]>(
                `[...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).slice(-5).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().width))`,
              );
        expect([path, overflow, culprits]).toEqual([path, 0, []]);
      }
      await shot('narrow');
    } finally {
      await page.setViewportSize({ width: 1366, height: 900 });
    }
  });

  it('is usable with the keyboard alone: skip link, navigation, dialog Escape', async () => {
    await go(`/agents/${AGENT}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe('Skip to content');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe('Agents');
    await page.getByRole('button', { name: 'Remove invoice-lookup' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    expect(await page.locator('tr[data-capability="invoice-lookup"]').textContent()).not.toContain('removed');
  });

  it('a viewer sees no edit controls; a team admin of another team sees none of this agent', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Viewer' }).click();
    await textOf('the viewer signed in', page.getByTestId('who'), /viewer/);
    await go(`/agents/${AGENT}`);
    await page.locator('tr[data-capability="invoice-lookup"]').waitFor();
    expect(await page.getByRole('button', { name: /^(Edit|Deprecate|Remove|Promote) / }).count()).toBe(0);
    await expect(page.getByText('read only').count()).resolves.toBe(1);
    await go('/plan');
    await chooseAgent();
    expect(await page.getByRole('button', { name: /^Apply/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Team').fill('other-team');
    await page.getByRole('button', { name: 'Team admin of this team' }).click();
    await textOf('the team admin signed in', page.getByTestId('who'), /team-admin · other-team/);
    await go('/');
    await page.getByText('No agent matches.').waitFor();
    await go(`/agents/${AGENT}`);
    await page.getByRole('alert').filter({ hasText: 'NOT_FOUND' }).first().waitFor();
    await shot('team-admin-other-team');
  });
});
