/**
 * Issue 21: the usage-aware CI gate against a running control plane. A plan removing a
 * capability called yesterday fails (exit 17) with the callers named; with --accept-impact it
 * passes; --json carries the same report; card diff --usage gates the same way (after --approve
 * of a card change).
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { mintAdminToken } from '@cp/auth';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import { addUsage, createNode, DAY_MS } from '../support/given-db';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { cpctl, Workspace } from '../support/cpctl-harness';

const AGENT = 'finance-agent';
// Each case runs cpctl (a child process) several times; the machine is shared.
jest.setTimeout(300_000);

interface GateJson {
  ok: boolean;
  exitCode: number;
  applied?: boolean;
  impactDays: number;
  acceptedImpact: string[];
  unacceptedImpact: string[];
  impact?: { capabilityId: string; kind: string; calls: number; callers: { tenantId: string; calls: number }[] }[];
  plan?: { impact: { capabilityId: string; kind: string; calls: number; callers: { tenantId: string; calls: number }[] }[] };
}

describe('cpctl usage gate (issue 21) against the control plane', () => {
  let db: TestDatabase;
  let pg: Client;
  let app: NestFastifyApplication;
  let env: Record<string, string>;
  const ws = new Workspace();
  let dir: string;
  let released: string;

  beforeAll(async () => {
    db = await createTestDatabase('deprecation_gate');
    const config = testConfig({
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: `test:deprecation-gate:${process.pid}:`,
      GRAPHQL_SCHEMA_FILE: join(tmpdir(), `deprecation-gate-schema-${process.pid}.graphql`),
    });
    const booted = await bootApp(AppModule, config);
    app = booted.app;
    await seedWhenEmpty(app.get(PrismaService));
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    // reconcile-invoice is deprecated (a reason, no replacement) and was called yesterday by the partner.
    await pg.query(
      `UPDATE "CapabilityManifest" SET state = 'deprecated', "deprecatedAt" = now() - interval '40 days', "deprecationReason" = 'moving to v4'
        WHERE "agentId" = $1 AND "capabilityId" = 'reconcile-invoice'`,
      [AGENT],
    );
    const now = Date.now();
    await createNode(pg, { id: 'node-1', agentId: AGENT, registeredAt: new Date(now - 90 * DAY_MS), lastSeenAt: new Date(now) });
    await addUsage(pg, [
      {
        agentId: AGENT,
        capabilityId: 'reconcile-invoice',
        nodeId: 'node-1',
        tenantId: 'acme-partner',
        lastCallAt: new Date(now - DAY_MS),
        count: 7,
      },
      // Calls older than the window do not count.
      {
        agentId: AGENT,
        capabilityId: 'reconcile-invoice',
        nodeId: 'node-1',
        tenantId: 'globex',
        lastCallAt: new Date(now - 45 * DAY_MS),
        count: 3,
      },
    ]);
    env = { CPCTL_URL: `${booted.url}/graphql`, CPCTL_TOKEN: mintAdminToken(config, 'ci@finance', ['platform-admin']) };
    dir = ws.path('gate');
    const exported = await cpctl(['export', '--agent', AGENT, dir], env);
    expect(exported.code).toBe(0);
    released = ws.path('released-card.json');
    expect((await cpctl(['card', 'show', dir, '--out', released])).code).toBe(0);
    // The change under review: drop the deprecated capability (= remove it).
    rmSync(join(dir, 'reconcile-invoice.yaml'));
  }, 600_000);
  afterAll(async () => {
    ws.remove();
    await pg?.end();
    await app?.close();
    await db?.drop();
  });

  it('plan fails with exit 17 naming the capability and its callers of the window', async () => {
    const run = await cpctl(['plan', dir], env);
    expect(run.code).toBe(17);
    expect(run.stdout).toMatch(/Impact on callers \(last 30 days\):/);
    expect(run.stdout).toMatch(/reconcile-invoice: removed .*7 call\(s\) from acme-partner \(7, last /);
    expect(run.stdout).not.toContain('globex');
    expect(run.stderr).toMatch(/--accept-impact reconcile-invoice/);
  });

  it('--json carries the report for other CI systems', async () => {
    const run = await cpctl(['plan', dir, '--json'], env);
    expect(run.code).toBe(17);
    const doc = run.json<GateJson>();
    expect(doc).toMatchObject({ ok: false, exitCode: 17, impactDays: 30, acceptedImpact: [], unacceptedImpact: ['reconcile-invoice'] });
    expect(doc.plan!.impact).toEqual([
      {
        capabilityId: 'reconcile-invoice',
        kind: 'removed',
        detail: 'deprecated capability removed',
        calls: 7,
        callers: [{ tenantId: 'acme-partner', calls: 7, lastCallAt: expect.any(String) }],
      },
    ]);
  });

  it('a window that ends before yesterday sees no callers; --impact-days is bounded', async () => {
    // 1 day back from now still includes yesterday's bucket only if its last call is inside: it is (24h ago minus the run time).
    const far = await cpctl(['plan', dir, '--impact-days', '400', '--json'], env);
    expect(
      far
        .json<GateJson>()
        .plan!.impact[0].callers.map((c) => c.tenantId)
        .sort(),
    ).toEqual(['acme-partner', 'globex']);
    const bad = await cpctl(['plan', dir, '--impact-days', '100000'], env);
    expect(bad.code).toBe(2);
  });

  it('card diff --usage gates the same way; a card change still needs --approve first', async () => {
    // Dropping the only extended capability turns the card's extendedAgentCard off: a public change.
    const unapproved = await cpctl(['card', 'diff', dir, '--against', released, '--usage', '--json'], env);
    expect(unapproved.code).toBe(3);
    expect(unapproved.json<GateJson & { changes: { kind: string }[] }>()).toMatchObject({
      changes: [{ kind: 'capability-disabled' }],
      unacceptedImpact: ['reconcile-invoice'],
      impact: [{ capabilityId: 'reconcile-invoice', calls: 7 }],
    });
    const gated = await cpctl(['card', 'diff', dir, '--against', released, '--usage', '--approve', '--json'], env);
    expect(gated.code).toBe(17);
    expect(gated.json<GateJson>()).toMatchObject({
      ok: false,
      exitCode: 17,
      unacceptedImpact: ['reconcile-invoice'],
      impact: [{ capabilityId: 'reconcile-invoice', calls: 7, callers: [{ tenantId: 'acme-partner', calls: 7 }] }],
    });
    const human = await cpctl(['card', 'diff', dir, '--against', released, '--usage', '--approve'], env);
    expect(human.code).toBe(17);
    expect(human.stdout).toMatch(/reconcile-invoice: removed .*7 call\(s\) from acme-partner/);
    expect(human.stderr).toMatch(/--accept-impact reconcile-invoice/);
    const accepted = await cpctl(
      ['card', 'diff', dir, '--against', released, '--usage', '--approve', '--accept-impact', 'reconcile-invoice'],
      env,
    );
    expect(accepted.code).toBe(0);
    // Without --usage, card diff stays the offline gate it was: no control plane asked.
    expect((await cpctl(['card', 'diff', dir, '--against', released])).code).toBe(3);
    expect((await cpctl(['card', 'diff', dir, '--against', released, '--approve'])).code).toBe(0);
    expect((await cpctl(['card', 'diff', dir, '--against', released, '--accept-impact', 'x'])).code).toBe(2);
  });

  it('accepting another capability does not pass; accepting this one passes, and apply applies', async () => {
    expect((await cpctl(['plan', dir, '--accept-impact', 'invoice-lookup'], env)).code).toBe(17);
    const refused = await cpctl(['apply', dir], env);
    expect(refused.code).toBe(17);
    const state = async () =>
      (await pg.query(`SELECT state FROM "CapabilityManifest" WHERE "agentId" = $1 AND "capabilityId" = 'reconcile-invoice'`, [AGENT]))
        .rows[0].state;
    expect(await state()).toBe('deprecated');
    const plan = await cpctl(['plan', dir, '--accept-impact', 'reconcile-invoice', '--json'], env);
    expect(plan.code).toBe(0);
    expect(plan.json<GateJson>()).toMatchObject({ ok: true, acceptedImpact: ['reconcile-invoice'], unacceptedImpact: [] });
    const applied = await cpctl(['apply', dir, '--accept-impact', 'reconcile-invoice'], env);
    expect(applied.code).toBe(0);
    expect(await state()).toBe('removed');
  });
});
