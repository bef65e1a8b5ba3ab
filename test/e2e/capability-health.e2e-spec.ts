/**
 * Health per capability end to end (issue 32, ADR 0310): a real A2A node (the node SDK's server
 * over HTTP) serves calls that complete, fail, get refused by a limit and get canceled; its usage
 * reporter sends them to a real control plane, and GraphQL answers the counts, the error rate and
 * plausible percentiles per capability and tenant. Access as usage: a team admin sees only its agents.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { a2aVerifier, mintA2AToken, mintAdminToken, mintNodeToken } from '@cp/auth';
import { buildNodeBundle, financeAgentExample } from '@cp/capabilities';
import type { AppConfig } from '@cp/common';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import {
  ActiveBundle,
  HandlerRegistry,
  HttpUsageSender,
  InMemoryTaskEvents,
  InMemoryTaskStore,
  registerA2AServer,
  ToolGateway,
  UsageReporter,
} from '@cp/node-sdk';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { createNode } from '../support/given-db';
import { codeOf, gql, gqlOk } from '../support/graphql-client';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { until } from '../support/until';

const AGENT = 'finance-agent';
const NODE = 'health-node-1';
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const finance = financeAgentExample();

const HEALTH = `query($filter: CapabilityHealthFilter!, $page: PageInput) {
  capabilityHealth(filter: $filter, page: $page) {
    from to latencyBoundsMs
    rows { nodes { capabilityId tenantId calls ended errorRate refusedRate p50Ms p95Ms latencyBuckets
                   outcomes { completed failed rejected canceled refused inputRequired } }
           pageInfo { hasNextPage endCursor } }
  }
}`;

describe('capability health: a real node reports outcomes and latency, GraphQL answers the figures', () => {
  let db: TestDatabase;
  let pg: Client;
  let config: AppConfig;
  let cp: NestFastifyApplication;
  let cpUrl: string;
  let node: FastifyInstance;
  let nodeUrl: string;
  let reporter: UsageReporter;
  let admin: string;
  const holding = new Map<string, () => void>();

  beforeAll(async () => {
    db = await createTestDatabase('capability_health');
    config = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: `e2e-health-${randomBytes(4).toString('hex')}:` });
    ({ app: cp, url: cpUrl } = await bootApp(AppModule, config));
    await seedWhenEmpty(cp.get(PrismaService));
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    await createNode(pg, { id: NODE, agentId: AGENT, registeredAt: new Date(Date.now() - 60_000) });
    admin = mintAdminToken(config, 'ops', ['platform-admin']);

    // invoice-lookup takes one part at most: a call with two is refused by the limit before its handler runs.
    const manifests = finance.manifests.map((m) => (m.id === 'invoice-lookup' ? { ...m, limits: { ...m.limits, max_input_parts: 1 } } : m));
    const bundle = new ActiveBundle(buildNodeBundle({ agentId: AGENT, revision: 1, agent: finance.agent, manifests, previewTenants: [] }));
    const handlers = new HandlerRegistry()
      .register('invoices.v1.lookup', async (ctx) => {
        if (ctx.text.includes('fail')) throw new Error('the ERP is down');
        if (ctx.text.includes('hold')) await new Promise<void>((release) => holding.set(ctx.task.id, release));
        if (ctx.text.includes('slow')) await new Promise((r) => setTimeout(r, 300));
        return { state: 'completed', artifacts: [{ parts: [{ text: 'ok' }] }] };
      })
      .register('recon.v3.reconcile', async () => ({ state: 'rejected', text: 'not this one' }));
    reporter = new UsageReporter({
      nodeId: NODE,
      sender: new HttpUsageSender(cpUrl, () => mintNodeToken(config, AGENT)),
      flushIntervalMs: 3_600_000,
      log: silent,
    });
    node = Fastify();
    registerA2AServer(node, {
      bundle: () => bundle,
      verifier: a2aVerifier(config),
      handlers,
      tools: new ToolGateway({ exchange: () => Promise.reject(new Error('no tools here')) }, new Map(), silent),
      log: silent,
      usage: reporter,
      tasks: new InMemoryTaskStore(),
      events: new InMemoryTaskEvents(),
    });
    await node.listen({ port: 0, host: '127.0.0.1' });
    nodeUrl = `http://127.0.0.1:${(node.server.address() as { port: number }).port}`;
  });

  afterAll(async () => {
    await node?.close();
    await pg?.end();
    await cp?.close();
    await db?.drop();
  });

  const rpc = async (method: string, params: unknown, token?: string) => {
    const res = await fetch(`${nodeUrl}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return (await res.json()) as {
      // SendMessage answers { task }, GetTask and CancelTask the task itself.
      result?: { task: { id: string; status: { state: string } }; status?: { state: string } };
      error?: { code: number; message: string };
    };
  };
  const send = (text: string, opts: { skill?: string; parts?: number; token?: string } = {}) =>
    rpc(
      'SendMessage',
      {
        message: { messageId: randomUUID(), role: 'ROLE_USER', parts: Array.from({ length: opts.parts ?? 1 }, () => ({ text })) },
        metadata: { skillId: opts.skill ?? 'invoice-lookup' },
      },
      opts.token,
    );

  it('counts completed, failed, refused and canceled calls per capability and tenant, with plausible percentiles', async () => {
    for (let i = 0; i < 6; i++) expect((await send('Look up invoice INV-1')).result?.task.status.state).toBe('TASK_STATE_COMPLETED');
    for (let i = 0; i < 2; i++) expect((await send('Look up invoice INV-2 slow')).result?.task.status.state).toBe('TASK_STATE_COMPLETED');
    for (let i = 0; i < 2; i++) expect((await send('Look up invoice INV-3 fail')).result?.task.status.state).toBe('TASK_STATE_FAILED');
    const refused = await send('Look up invoice INV-4', { parts: 2 });
    expect(refused.error?.message).toMatch(/max_input_parts|part/);
    // Canceled while its handler runs: the call is counted canceled, not completed.
    const held = send('Look up invoice INV-5 hold');
    await until('the held call runs', () => holding.size === 1, 30_000);
    const [taskId, release] = [...holding.entries()][0];
    // A caller can cancel it once it is stored: A2A_SEND_STORE_AFTER_MS into the call at the latest (ADR 0397).
    await until('the held task is stored', async () => (await rpc('GetTask', { id: taskId })).result !== undefined, 30_000);
    expect((await rpc('CancelTask', { id: taskId })).result?.status?.state).toBe('TASK_STATE_CANCELED');
    release();
    expect((await held).result?.task.status.state).toBe('TASK_STATE_CANCELED');
    // Another tenant's calls stay on their own row.
    const partner = mintA2AToken(config, 'orchestrator@acme-partner', finance.tenants.partner, ['recon.run']);
    expect((await send('Reconcile INV-20931', { skill: 'reconcile-invoice', token: partner })).result?.task.status.state).toBe(
      'TASK_STATE_REJECTED',
    );

    await reporter.flush();
    expect(reporter.queued).toHaveLength(0);

    const data = await gqlOk(cpUrl, admin, HEALTH, { filter: { agentId: AGENT } });
    const report = data.capabilityHealth;
    expect(report.latencyBoundsMs).toEqual([5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000]);
    expect(Date.parse(report.to) - Date.parse(report.from)).toBe(24 * 3_600_000);
    const rows = Object.fromEntries(
      report.rows.nodes.map((r: { capabilityId: string; tenantId: string }) => [`${r.capabilityId}/${r.tenantId}`, r]),
    );
    const lookup = rows['invoice-lookup/anonymous'];
    expect(lookup.calls).toBe(12);
    expect(lookup.outcomes).toEqual({ completed: 8, failed: 2, rejected: 0, canceled: 1, refused: 1, inputRequired: 0 });
    expect(lookup.ended).toBe(12);
    expect(lookup.errorRate).toBeCloseTo(2 / 11, 10);
    expect(lookup.refusedRate).toBeCloseTo(1 / 12, 10);
    expect(lookup.latencyBuckets.reduce((s: number, n: number) => s + n, 0)).toBe(11);
    // Two of eleven calls slept 300 ms: the p95 lies in (250, 500] ms, the median well below it.
    expect(lookup.p95Ms).toBeGreaterThan(250);
    expect(lookup.p95Ms).toBeLessThanOrEqual(500);
    expect(lookup.p50Ms).toBeLessThan(lookup.p95Ms);
    expect(rows[`reconcile-invoice/${finance.tenants.partner}`]).toMatchObject({ calls: 1, errorRate: 0, outcomes: { rejected: 1 } });

    // Over all tenants, one row per capability.
    const all = await gqlOk(cpUrl, admin, HEALTH, { filter: { agentId: AGENT, perTenant: false } });
    expect(
      all.capabilityHealth.rows.nodes.map((r: { capabilityId: string; tenantId: null; calls: number }) => [
        r.capabilityId,
        r.tenantId,
        r.calls,
      ]),
    ).toEqual([
      ['invoice-lookup', null, 12],
      ['reconcile-invoice', null, 1],
    ]);
    // A range without calls answers no rows.
    const before = await gqlOk(cpUrl, admin, HEALTH, {
      filter: { agentId: AGENT, from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' },
    });
    expect(before.capabilityHealth.rows.nodes).toEqual([]);
  });

  it('pages by capability and tenant', async () => {
    const first = await gqlOk(cpUrl, admin, HEALTH, { filter: { agentId: AGENT }, page: { first: 1 } });
    expect(first.capabilityHealth.rows.pageInfo.hasNextPage).toBe(true);
    const next = await gqlOk(cpUrl, admin, HEALTH, {
      filter: { agentId: AGENT },
      page: { first: 1, after: first.capabilityHealth.rows.pageInfo.endCursor },
    });
    expect(next.capabilityHealth.rows.nodes[0].capabilityId).toBe('reconcile-invoice');
  });

  it('shows a team admin only its own agents, as usage does', async () => {
    const outsider = mintAdminToken(config, 'other-team-admin', ['team-admin'], ['some-other-team']);
    const res = await gql(cpUrl, outsider, HEALTH, { filter: { agentId: AGENT } });
    expect(res.data?.capabilityHealth ?? null).toBeNull();
    expect(['NOT_FOUND', 'FORBIDDEN']).toContain(codeOf(res));
    const owner = mintAdminToken(config, 'finance-admin', ['team-admin'], [finance.manifests[0].owner]);
    expect((await gqlOk(cpUrl, owner, HEALTH, { filter: { agentId: AGENT } })).capabilityHealth.rows.nodes.length).toBe(2);
  });

  it.each([
    ['a from that is no date-time', { from: 'yesterday' }, '$.filter.from', 'ISO-8601'],
    ['from after to', { from: '2026-12-02T00:00:00Z', to: '2026-12-01T00:00:00Z' }, '$.filter.from', 'before "to"'],
    ['a range over 93 days', { from: '2025-01-01T00:00:00Z', to: '2026-12-01T00:00:00Z' }, '$.filter.from', 'longer than 93 days'],
    ['a 100 kB to', { to: 'x'.repeat(100_000) }, '$.filter.to', 'ISO-8601'],
  ])('refuses %s with a clear error naming the field, never a 5xx', async (_what, range, path, message) => {
    const res = await gql(cpUrl, admin, HEALTH, { filter: { agentId: AGENT, ...range } });
    expect(res.status).toBeLessThan(500);
    expect(codeOf(res)).toBe('BAD_USER_INPUT');
    const issues = res.errors?.[0]?.extensions.validationErrors as { path: string; message: string }[];
    expect(issues.map((i) => i.path)).toEqual([path]);
    expect(issues[0].message).toContain(message);
  });
});
