/**
 * Issue 17 end to end: the worked example driven against the real apps (control plane with its
 * GraphQL API and node API, an agent node synced from it, PostgreSQL, Redis), with tracing on
 * through an in-memory span exporter. Asserts the exact counters and histograms that moved on
 * each app's /metrics, one connected trace from the A2A caller to the tool call and one from a
 * GraphQL mutation to the node's apply, the audit trail of that tool call, and that hostile
 * callers cannot mint metric series.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { Client } from 'pg';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mintA2AToken, mintAdminToken, mintNodeToken } from '@cp/auth';
import { MetricsServer, type AppConfig } from '@cp/common';
import { recordSpans, type RecordedSpans } from '@cp/common/testing';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import { createAgent, createInventory, createManifests, createNode, DAY_MS } from '../support/given-db';
import { NOTICE_DELIVER_JOB, NOTICE_SCAN_JOB, NOTICES_QUEUE, RETIREMENT_QUEUE } from '@cp/jobs';
import { HttpUsageSender, NodeMetrics, NodeSync, UsageReporter } from '@cp/node-sdk';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { AgentNodeModule } from '../../apps/agent-node/src/agent-node.module';
import { WorkerModule } from '../../apps/worker/src/worker.module';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { freePort } from '../support/free-port';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { until } from '../support/until';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The value of one series in Prometheus text format (0 when absent). */
function value(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  let found = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[3] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) {
      total += Number(m[4]);
      found = true;
    }
  }
  return found ? total : 0;
}

/** How many series of these metric families a scrape has (histogram buckets not counted: `_sum`/`_count` stand for them). */
function seriesCount(text: string, prefix: string): number {
  return text.split('\n').filter((l) => l.startsWith(prefix) && !/^[a-zA-Z_:][a-zA-Z0-9_:]*_bucket\{/.test(l)).length;
}

const traceparent = (traceId: string) => `00-${traceId}-${randomBytes(8).toString('hex')}-01`;

describe('observability of the worked example (metrics, traces, audit trail)', () => {
  let db: TestDatabase;
  let spans: RecordedSpans;
  let cpConfig: AppConfig;
  let cp: NestFastifyApplication;
  let cpUrl: string;
  let node: NestFastifyApplication;
  let nodeUrl: string;
  let dir: string;
  let partner: string;
  let admin: string;
  let nodeToken: string;
  let worker: NestFastifyApplication | undefined;
  let cpClosed = false;

  const scrape = async (app: NestFastifyApplication) => (await fetch(app.get(MetricsServer).url()!)).text();
  const rpc = async (method: string, params: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${nodeUrl}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const graphql = async (query: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${cpUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}`, ...headers },
      body: JSON.stringify({ query }),
    });
    return (await res.json()) as Json;
  };

  beforeAll(async () => {
    spans = recordSpans('e2e');
    db = await createTestDatabase('observability');
    dir = await mkdtemp(join(tmpdir(), 'observability-e2e-'));
    const prefix = `e2e-obs-${randomBytes(4).toString('hex')}:`;
    cpConfig = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: prefix, CONTROL_PLANE_METRICS_PORT: '0' });
    ({ app: cp, url: cpUrl } = await bootApp(AppModule, cpConfig));
    const port = await freePort();
    nodeUrl = `http://127.0.0.1:${port}`;
    await seedWhenEmpty(cp.get(PrismaService), { agentNodeUrl: nodeUrl });
    const nodeConfig = testConfig({
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: prefix,
      CONTROL_PLANE_URL: cpUrl,
      AGENT_ID: 'finance-agent',
      NODE_ID: 'obs-node-1',
      NODE_TOKEN: (nodeToken = mintNodeToken(cpConfig, 'finance-agent')),
      NODE_CACHE_DIR: dir,
      USAGE_FLUSH_INTERVAL_MS: '3600000',
      AGENT_NODE_METRICS_PORT: '0',
    });
    node = (await bootApp(AgentNodeModule, nodeConfig, { port })).app;
    await until('the node serving revision 1', () => node.get(NodeSync).current()?.revision === 1, 15_000);
    partner = mintA2AToken(cpConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run']);
    admin = mintAdminToken(cpConfig, 'ops@platform', ['platform-admin']);
  });

  afterAll(async () => {
    if (worker) {
      for (const name of [RETIREMENT_QUEUE, NOTICES_QUEUE]) await worker.get<Queue>(getQueueToken(name)).obliterate({ force: true });
      await worker.close();
    }
    await node?.close();
    if (!cpClosed) await cp?.close();
    await spans?.stop();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('serves /metrics on a loopback listener of its own, never on the A2A or API port', async () => {
    for (const app of [cp, node]) expect(new URL(app.get(MetricsServer).url()!).hostname).toBe('127.0.0.1');
    expect(new URL(node.get(MetricsServer).url()!).port).not.toBe(new URL(nodeUrl).port);
    expect((await fetch(`${nodeUrl}/metrics`)).status).toBe(404);
    expect((await fetch(`${cpUrl}/metrics`)).status).toBe(404);
    expect(await scrape(node)).toContain('# TYPE a2a_card_requests_total counter');
  });

  it('card, extended card and a routed message with a tool call move exactly their counters, in one connected trace', async () => {
    const [node0, cp0] = [await scrape(node), await scrape(cp)];
    const card = await fetch(`${nodeUrl}/.well-known/agent-card.json`);
    expect(card.status).toBe(200);
    const again = await fetch(`${nodeUrl}/.well-known/agent-card.json`, { headers: { 'if-none-match': card.headers.get('etag')! } });
    expect(again.status).toBe(304);
    const extended = await rpc('GetExtendedAgentCard', undefined, { authorization: `Bearer ${partner}` });
    expect(extended.body.result.skills.map((s: Json) => s.id)).toContain('reconcile-invoice');

    const traceId = randomBytes(16).toString('hex');
    const caller = traceparent(traceId);
    const sent = await rpc(
      'SendMessage',
      { message: { messageId: 'obs-1', role: 'ROLE_USER', parts: [{ text: 'Reconcile invoice INV-20931 against its PO' }] } },
      { authorization: `Bearer ${partner}`, traceparent: caller },
    );
    expect(sent.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(sent.body.result.task.metadata.routing.capabilityId).toBe('reconcile-invoice');

    const [node1, cp1] = [await scrape(node), await scrape(cp)];
    const delta = (a: string, b: string, name: string, labels?: Record<string, string>) => value(b, name, labels) - value(a, name, labels);
    expect(delta(node0, node1, 'a2a_card_requests_total', { kind: 'public', status: '200' })).toBe(1);
    expect(delta(node0, node1, 'a2a_card_requests_total', { kind: 'public', status: '304' })).toBe(1);
    expect(delta(node0, node1, 'a2a_card_requests_total', { kind: 'extended', status: '200' })).toBe(1);
    expect(delta(node0, node1, 'a2a_card_duration_seconds_count')).toBe(2);
    expect(delta(node0, node1, 'a2a_requests_total', { method: 'GetExtendedAgentCard', binding: 'jsonrpc', outcome: 'ok' })).toBe(1);
    expect(delta(node0, node1, 'a2a_requests_total', { method: 'SendMessage', binding: 'jsonrpc', outcome: 'ok' })).toBe(1);
    expect(delta(node0, node1, 'a2a_routing_decisions_total', { outcome: 'routed' })).toBe(1);
    expect(delta(node0, node1, 'a2a_handler_duration_seconds_count', { capability: 'reconcile-invoice', state: 'completed' })).toBe(1);
    expect(delta(node0, node1, 'a2a_tool_token_exchanges_total', { outcome: 'exchanged' })).toBe(1);
    expect(delta(node0, node1, 'a2a_tool_calls_total', { tool: 'erp', outcome: 'ok' })).toBe(1);
    expect(delta(cp0, cp1, 'cp_token_exchanges_total', { outcome: 'issued' })).toBe(1);
    expect(value(node1, 'node_bundle_revision')).toBe(1);

    // One trace: caller → node route → routing → handler → tool call → token exchange → control plane.
    const trace = spans.trace(traceId);
    const names = trace.map((s) => s.name);
    for (const name of ['a2a.jsonrpc', 'a2a.route', 'a2a.handler', 'tool.call erp', 'tool.token_exchange', 'POST /node/v1/token-exchange'])
      expect(names).toContain(name);
    const ids = new Set(trace.map((s) => s.spanContext().spanId));
    for (const span of trace) {
      const parent = span.parentSpanContext?.spanId;
      expect(parent === caller.split('-')[2] || (parent !== undefined && ids.has(parent))).toBe(true);
    }
    const route = trace.find((s) => s.name === 'a2a.route')!;
    expect(route.attributes).toMatchObject({
      'a2a.tenant': 'acme-partner',
      'a2a.routing.decision': 'routed',
      'a2a.capability.id': 'reconcile-invoice',
    });
    // Never a token in any attribute.
    for (const span of spans.spans()) for (const v of Object.values(span.attributes)) expect(String(v)).not.toContain(partner.slice(0, 30));

    // The audit trail: who did what on whose behalf, found by the trace.
    const audit = await graphql(
      `{ auditEvents(filter: { traceId: "${traceId}" }) { nodes { action actor onBehalfOf traceId delegation { principal tenant agentId capabilityId tool scopes } } } }`,
    );
    expect(audit.errors).toBeUndefined();
    expect(audit.data.auditEvents.nodes).toEqual([
      expect.objectContaining({
        action: 'tool-token.issue',
        onBehalfOf: 'orchestrator@acme-partner',
        traceId,
        delegation: {
          principal: 'orchestrator@acme-partner',
          tenant: 'acme-partner',
          agentId: 'finance-agent',
          capabilityId: 'reconcile-invoice',
          tool: 'erp',
          scopes: ['recon.run'],
        },
      }),
    ]);
    const bad = await graphql(`
      {
        auditEvents(filter: { traceId: "not-a-trace" }) {
          nodes {
            id
          }
        }
      }
    `);
    expect(bad.errors?.[0]?.message).toMatch(/traceId/);
  });

  it('a GraphQL mutation: one trace from the mutation through registry write, bundle build and publish to the node applying it', async () => {
    const [node0, cp0] = [await scrape(node), await scrape(cp)];
    const traceId = randomBytes(16).toString('hex');
    const answer = await graphql(
      `
        mutation {
          updateAgent(input: { id: "finance-agent", expectedRevision: 1, description: "Invoices, traced." }) {
            revision
          }
        }
      `,
      { traceparent: traceparent(traceId) },
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data.updateAgent.revision).toBe(2);
    await until('the node serving revision 2', () => node.get(NodeSync).current()?.revision === 2, 15_000);
    await until('the node apply span', () => spans.trace(traceId).some((s) => s.name === 'node.sync.apply'), 10_000);
    await until(
      'the ack observed',
      async () =>
        value(await scrape(cp), 'cp_sync_propagation_seconds_count', { agent: 'finance-agent' }) >
        value(cp0, 'cp_sync_propagation_seconds_count', { agent: 'finance-agent' }),
      10_000,
    );

    const trace = spans.trace(traceId);
    const names = trace.map((s) => s.name);
    for (const name of ['graphql.mutation updateAgent', 'registry.write', 'sync.publish', 'bundle.build', 'node.sync.apply'])
      expect(names).toContain(name);
    const ids = new Set(trace.map((s) => s.spanContext().spanId));
    const roots = trace.filter((s) => !s.parentSpanContext || !ids.has(s.parentSpanContext.spanId));
    expect(roots.map((s) => s.name)).toEqual(['graphql.mutation updateAgent']);
    const apply = trace.find((s) => s.name === 'node.sync.apply')!;
    expect(apply.attributes).toMatchObject({ 'cp.agent.id': 'finance-agent', 'cp.revision': 2, 'cp.sync.outcome': 'applied' });

    const [node1, cp1] = [await scrape(node), await scrape(cp)];
    expect(
      value(cp1, 'cp_graphql_operations_total', { type: 'mutation', field: 'updateAgent', outcome: 'ok' }) -
        value(cp0, 'cp_graphql_operations_total', { type: 'mutation', field: 'updateAgent', outcome: 'ok' }),
    ).toBe(1);
    expect(value(cp1, 'cp_registry_changes_total') - value(cp0, 'cp_registry_changes_total')).toBeGreaterThanOrEqual(1);
    expect(
      value(cp1, 'cp_sync_publishes_total', { outcome: 'published' }) - value(cp0, 'cp_sync_publishes_total', { outcome: 'published' }),
    ).toBe(1);
    // The change rode to the node with its announcement (ADR 0199).
    expect(
      value(cp1, 'cp_sync_pushed_deltas_total', { outcome: 'pushed' }) - value(cp0, 'cp_sync_pushed_deltas_total', { outcome: 'pushed' }),
    ).toBe(1);
    expect(value(cp1, 'cp_bundle_build_duration_seconds_count') - value(cp0, 'cp_bundle_build_duration_seconds_count')).toBe(1);
    expect(
      value(node1, 'node_sync_fetches_total', { outcome: 'applied' }) - value(node0, 'node_sync_fetches_total', { outcome: 'applied' }),
    ).toBe(1);
    expect(value(node1, 'node_bundle_revision')).toBe(2);
  });

  it('cardinality guard: many tenants, principals, methods and capability ids leave the number of series bounded', async () => {
    const warm = await scrape(node);
    const before = seriesCount(warm, 'a2a_');
    for (let i = 0; i < 60; i++) {
      const token = mintA2AToken(cpConfig, `p-${i}-${randomBytes(4).toString('hex')}`, `tenant-${i}`, [`scope-${i}`]);
      await rpc(`Method${i}`, {}, { authorization: `Bearer ${token}` });
      await rpc(
        'SendMessage',
        {
          message: { messageId: `c-${i}`, role: 'ROLE_USER', parts: [{ text: `cap-${i}` }] },
          metadata: { skillId: `cap-${randomBytes(6).toString('hex')}` },
        },
        { authorization: `Bearer ${token}` },
      );
      await fetch(`${nodeUrl}/a2a/rest/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0', authorization: `Bearer ${token}x` },
        body: '{',
      });
    }
    const after = await scrape(node);
    // A handful of new (method, outcome, layer, capability) combinations at most, not one per caller (180 calls).
    expect(seriesCount(after, 'a2a_') - before).toBeLessThanOrEqual(20);
    expect(after).not.toMatch(/tenant-\d|p-\d+-|cap-[0-9a-f]{12}|Method\d/);
    expect(value(after, 'a2a_requests_total', { method: 'unknown', binding: 'jsonrpc', outcome: 'MethodNotFound' })).toBe(60);
  });
  it('usage: batches spooled and sent on the node, recorded on the control plane; a refused batch counted on both sides', async () => {
    // What the earlier cases counted goes first (the cardinality guard's made-up tenants get that batch refused).
    await node.get(UsageReporter).flush();
    const [node0, cp0] = [await scrape(node), await scrape(cp)];
    const sent = await rpc(
      'SendMessage',
      { message: { messageId: 'obs-usage-1', role: 'ROLE_USER', parts: [{ text: 'Reconcile invoice INV-20932 against its PO' }] } },
      { authorization: `Bearer ${partner}` },
    );
    expect(sent.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    await node.get(UsageReporter).flush();
    // A reporter for a node the registry does not know: the control plane refuses its batch, the node sets it aside.
    const ghost = new UsageReporter({
      nodeId: 'ghost-node',
      sender: new HttpUsageSender(cpUrl, () => nodeToken),
      flushIntervalMs: 3_600_000,
      log: { warn: () => undefined, error: () => undefined },
      observer: node.get(NodeMetrics),
    });
    await ghost.flush();
    const [node1, cp1] = [await scrape(node), await scrape(cp)];
    const delta = (a: string, b: string, name: string, labels: Record<string, string>) => value(b, name, labels) - value(a, name, labels);
    expect(delta(node0, node1, 'node_usage_batches_total', { outcome: 'spooled' })).toBe(2);
    expect(delta(node0, node1, 'node_usage_batches_total', { outcome: 'sent' })).toBe(1);
    expect(delta(node0, node1, 'node_usage_batches_total', { outcome: 'refused' })).toBe(1);
    expect(delta(cp0, cp1, 'cp_usage_batches_ingested_total', { outcome: 'recorded' })).toBe(1);
    expect(delta(cp0, cp1, 'cp_usage_batches_ingested_total', { outcome: 'refused' })).toBe(1);
    expect(cp1).not.toContain('ghost-node');
  });

  it('token exchanges refused at the control plane are counted by refusal code, answered 400, and the token never becomes a label', async () => {
    const cp0 = await scrape(cp);
    const exchange = (body: unknown) =>
      fetch(`${cpUrl}/node/v1/token-exchange`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${nodeToken}` },
        body: JSON.stringify(body),
      });
    const garbage = `forged.${randomBytes(24).toString('hex')}.token`;
    const malformed = await exchange({ tool: 'ERP!' });
    const forged = await exchange({ subjectToken: garbage, tool: 'erp', capabilityId: 'reconcile-invoice' });
    expect([malformed.status, forged.status]).toEqual([400, 400]);
    const cp1 = await scrape(cp);
    const delta = (outcome: string) =>
      value(cp1, 'cp_token_exchanges_total', { outcome }) - value(cp0, 'cp_token_exchanges_total', { outcome });
    expect(delta('INVALID_REQUEST')).toBe(1);
    expect(delta('SUBJECT_TOKEN_INVALID')).toBe(1);
    expect(delta('issued')).toBe(0);
    expect(cp1).not.toContain(garbage.slice(7, 30));
  });

  it('a bundle the node refuses: a NACK counted per agent on the control plane, the node keeps serving', async () => {
    const sync = node.get(NodeSync);
    const serving = sync.current()!.revision;
    const cp0 = await scrape(cp);
    const tampered = JSON.parse(JSON.stringify(sync.current()!.bundle)) as Json;
    tampered.classLimit = Number(tampered.classLimit) + 1; // no longer what its contentHash says
    expect(await sync.offer(tampered)).toBe('refused');
    await until(
      'the NACK counted',
      async () =>
        value(await scrape(cp), 'cp_sync_nacks_total', { agent: 'finance-agent' }) -
          value(cp0, 'cp_sync_nacks_total', { agent: 'finance-agent' }) ===
        1,
      10_000,
    );
    expect(sync.current()!.revision).toBe(serving);
    expect(value(await scrape(node), 'node_bundle_revision')).toBe(serving);
  });

  it('fleet gauge: live, silent and gracefully stopped nodes per agent; nodes silent for over a day forgotten', async () => {
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    try {
      const ago = (ms: number) => new Date(Date.now() - ms);
      await createNode(pg, { id: 'quiet-node', agentId: 'finance-agent', registeredAt: ago(DAY_MS), lastSeenAt: ago(5 * 60_000) });
      await createNode(pg, { id: 'old-node', agentId: 'finance-agent', registeredAt: ago(9 * DAY_MS), lastSeenAt: ago(3 * DAY_MS) });
      await createNode(pg, { id: 'stopped-node', agentId: 'finance-agent', registeredAt: ago(DAY_MS), lastSeenAt: ago(60_000) });
      await createInventory(pg, { agentId: 'finance-agent', nodeId: 'stopped-node', reportedAt: ago(60_000), stoppedAt: ago(60_000) });
    } finally {
      await pg.end();
    }
    const text = await scrape(cp);
    expect(value(text, 'cp_fleet_nodes', { agent: 'finance-agent', state: 'live' })).toBe(1);
    expect(value(text, 'cp_fleet_nodes', { agent: 'finance-agent', state: 'silent' })).toBe(1);
    expect(value(text, 'cp_fleet_nodes', { agent: 'finance-agent', state: 'stopped' })).toBe(1);
    expect(value(text, 'cp_fleet_nodes', { agent: 'finance-agent' })).toBe(3);
    expect(text).not.toMatch(/node="|old-node|quiet-node/);
  });

  it('worker: a retirement run counted with what it retired and kept (by reason), job durations, failures and queue depth per queue', async () => {
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    try {
      const now = Date.now();
      const ago = (days: number) => new Date(now - days * DAY_MS);
      await createAgent(pg, 'legacy-agent', 'legacy-team');
      await createManifests(pg, [
        { agentId: 'legacy-agent', capabilityId: 'old-report', state: 'deprecated', deprecatedAt: ago(40), teamId: 'legacy-team' },
        { agentId: 'legacy-agent', capabilityId: 'recent-report', state: 'deprecated', deprecatedAt: ago(3), teamId: 'legacy-team' },
      ]);
      // Usage known up to well past the run: nothing is kept for unknown usage.
      await createNode(pg, {
        id: 'legacy-node',
        agentId: 'legacy-agent',
        registeredAt: ago(90),
        lastSeenAt: new Date(now),
        coverage: { from: ago(90), until: new Date(now + DAY_MS) },
      });
    } finally {
      await pg.end();
    }
    const workerConfig = {
      ...cpConfig,
      WORKER_METRICS_PORT: 0,
      RETIREMENT_SCHEDULE_ENABLED: false,
      DEPRECATION_NOTICE_SCHEDULE_ENABLED: false,
    } as AppConfig;
    worker = (await bootApp(WorkerModule, workerConfig)).app;
    const w0 = await scrape(worker);
    expect(w0).toContain('# TYPE cp_job_duration_seconds histogram');

    const run = await graphql('mutation { runRetirementNow { id status } }');
    expect(run.errors).toBeUndefined();
    await until(
      'the run counted',
      async () => value(await scrape(worker!), 'cp_retirement_runs_total', { outcome: 'completed' }) === 1,
      30_000,
    );
    // A scan job, and a deliver job naming no notice (a malformed job: counted as a failure, never a crash).
    const notices = worker.get<Queue>(getQueueToken(NOTICES_QUEUE));
    await notices.add(NOTICE_SCAN_JOB, { kind: 'scan' });
    await notices.add(NOTICE_DELIVER_JOB, { kind: 'deliver' }, { attempts: 1 });
    await until(
      'both notice jobs done',
      async () => value(await scrape(worker!), 'cp_job_duration_seconds_count', { queue: NOTICES_QUEUE }) === 2,
      30_000,
    );

    const w1 = await scrape(worker);
    expect(value(w1, 'cp_retirement_capabilities_total', { decision: 'retired', reason: 'unused' })).toBe(1);
    expect(value(w1, 'cp_retirement_capabilities_total', { decision: 'kept', reason: 'DEPRECATED_TOO_RECENTLY' })).toBe(1);
    expect(value(w1, 'cp_retirement_capabilities_total')).toBe(2);
    expect(value(w1, 'cp_retirement_runs_total', { outcome: 'failed' })).toBe(0);
    expect(value(w1, 'cp_job_duration_seconds_count', { queue: RETIREMENT_QUEUE })).toBe(1);
    expect(value(w1, 'cp_job_failures_total', { queue: RETIREMENT_QUEUE })).toBe(0);
    expect(value(w1, 'cp_job_failures_total', { queue: NOTICES_QUEUE })).toBe(1);
    expect(value(w1, 'cp_deprecation_notice_deliveries_total', { outcome: 'failed' })).toBe(1);
    // Queue depth read from Redis at scrape time: every state of both queues, the failed job among them.
    for (const queue of [RETIREMENT_QUEUE, NOTICES_QUEUE])
      for (const state of ['waiting', 'delayed', 'active', 'failed'])
        expect(w1).toMatch(new RegExp(`^cp_queue_jobs\\{[^}]*queue="${queue}",state="${state}"[^}]*\\} \\d+$`, 'm'));
    expect(value(w1, 'cp_queue_jobs', { queue: NOTICES_QUEUE, state: 'failed' })).toBe(1);
    expect(value(w1, 'cp_queue_jobs', { queue: RETIREMENT_QUEUE, state: 'failed' })).toBe(0);
  });

  it('the control plane gone: sync errors counted as unreachable, the bundle age keeps growing', async () => {
    const sync = node.get(NodeSync);
    const n0 = await scrape(node);
    const age0 = value(n0, 'node_bundle_age_seconds');
    expect(age0).toBeGreaterThan(0);
    await cp.close();
    cpClosed = true;
    expect(await sync.refresh()).toBe('unreachable');
    await until('the bundle age grows', async () => value(await scrape(node), 'node_bundle_age_seconds') > age0, 10_000);
    const n1 = await scrape(node);
    expect(
      value(n1, 'node_sync_errors_total', { kind: 'unreachable' }) - value(n0, 'node_sync_errors_total', { kind: 'unreachable' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      value(n1, 'node_sync_fetches_total', { outcome: 'unreachable' }) - value(n0, 'node_sync_fetches_total', { outcome: 'unreachable' }),
    ).toBe(value(n1, 'node_sync_errors_total', { kind: 'unreachable' }) - value(n0, 'node_sync_errors_total', { kind: 'unreachable' }));
    expect(value(n1, 'node_sync_errors_total', { kind: 'refused' })).toBe(value(n0, 'node_sync_errors_total', { kind: 'refused' }));
  });
});
