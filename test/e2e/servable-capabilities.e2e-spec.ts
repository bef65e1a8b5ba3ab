/**
 * Issue 14 end to end: "advertised means servable" and the execution policy's limits, with the
 * real control plane (GraphQL + node API, its own database), the real cpctl binary, and agent
 * nodes built from the node-sdk (NodeSync + the A2A server) that report their handler inventory.
 *
 * The story: a node on "old code" is live, so the plan adding invoice-pdf (handler invoices.pdf)
 * is refused naming it; that node stops, a node that has the handler starts, the same plan
 * applies; a second node on old code then shows the capability as unservable in the fleet view
 * and answers callers with a clear temporarily-unavailable error. Then the limits: timeout_s,
 * max_input_bytes, and a cost_class budget shared by two replicas through Redis.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import YAML from 'yaml';
import { a2aVerifier, mintA2AToken, mintAdminToken, mintNodeToken } from '@cp/auth';
import { toManifestDocument, type CapabilityManifest } from '@cp/capabilities';
import { given } from '@cp/capabilities/testing';
import type { AppConfig } from '@cp/common';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import {
  ExecutionLimits,
  HandlerRegistry,
  HttpTokenExchanger,
  NodeSync,
  RedisBudgetStore,
  registerA2AServer,
  ToolGateway,
  type HandlerContext,
  InMemoryTaskEvents,
  InMemoryTaskStore,
} from '@cp/node-sdk';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { registerFinanceHandlers } from '../../apps/agent-node/src/finance/finance-handlers';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { cpctl, Workspace } from '../support/cpctl-harness';
import { gql, gqlOk } from '../support/graphql-client';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { until } from '../support/until';

const AGENT = 'finance-agent';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PDF_LIMITS = { max_pdf_pages: 'integer' } as const;
const seenLimits: Record<string, unknown>[] = [];

/** The handler only "new code" has: it records the typed limits it got; "slow" makes it outlast timeout_s. */
async function invoicePdf(ctx: HandlerContext<typeof PDF_LIMITS>) {
  seenLimits.push({ ...ctx.capability.limits });
  if (ctx.text.includes('slow')) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 5000);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    return { state: 'failed' as const, text: 'aborted' };
  }
  return {
    state: 'completed' as const,
    artifacts: [
      { name: 'invoice.pdf', parts: [{ text: `%PDF pages<=${ctx.capability.limits.max_pdf_pages}`, mediaType: 'application/pdf' }] },
    ],
  };
}

const oldCode = () => registerFinanceHandlers(new HandlerRegistry());
const newCode = () => oldCode().register('invoices.pdf', invoicePdf, { limits: PDF_LIMITS, outputModes: ['application/pdf'] });

interface RunningNode {
  nodeId: string;
  url: string;
  sync: NodeSync;
  stop(): Promise<void>;
}

describe('advertised means servable, and limits are enforced (issue 14)', () => {
  let db: TestDatabase;
  let cp: NestFastifyApplication;
  let cpUrl: string;
  let config: AppConfig;
  let admin: string;
  let env: Record<string, string>;
  let dir: string;
  let prefix: string;
  const ws = new Workspace();
  const redis: Redis[] = [];
  const nodes: RunningNode[] = [];

  async function startNode(nodeId: string, handlers: HandlerRegistry): Promise<RunningNode> {
    const nodeToken = mintNodeToken(config, AGENT);
    const sync = new NodeSync({
      controlPlaneUrl: cpUrl,
      nodeToken,
      agentId: AGENT,
      nodeId,
      cacheDir: join(dir, nodeId),
      redisUrl: config.REDIS_URL,
      redisKeyPrefix: prefix,
      pollIntervalMs: 500,
      heartbeatIntervalMs: 500,
      handlers: () => handlers.inventory(),
    });
    const app: FastifyInstance = Fastify();
    const connection = new Redis(config.REDIS_URL);
    redis.push(connection);
    const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
    registerA2AServer(app, {
      bundle: () => sync.current(),
      verifier: a2aVerifier(config),
      handlers,
      tools: new ToolGateway(new HttpTokenExchanger(cpUrl, () => nodeToken), new Map(), log),
      tasks: new InMemoryTaskStore(),
      events: new InMemoryTaskEvents(),
      log,
      executionLimits: new ExecutionLimits({ budgets: new RedisBudgetStore(connection, prefix) }),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    await sync.start();
    const { port } = app.server.address() as { port: number };
    const node = {
      nodeId,
      url: `http://127.0.0.1:${port}`,
      sync,
      stop: async () => {
        await sync.stop();
        await app.close();
      },
    };
    nodes.push(node);
    return node;
  }

  const currentRevision = async () => (await cp.get(PrismaService).agent.findUniqueOrThrow({ where: { id: AGENT } })).revision;
  const synced = async (node: RunningNode) => {
    const revision = await currentRevision();
    await until(`${node.nodeId} at revision ${revision}`, () => node.sync.current()?.revision === revision);
  };
  const send = (node: RunningNode, text: string, token?: string, skillId = 'invoice-pdf') =>
    fetch(`${node.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: randomBytes(4).toString('hex'), role: 'ROLE_USER', parts: [{ text }] }, metadata: { skillId } },
      }),
    });
  const fleet = async () =>
    (
      await gqlOk(
        cpUrl,
        admin,
        `{ fleet(agentId: "${AGENT}") { nodes { nodeId live unservable warnings handlers { id limits outputModes } } } }`,
      )
    ).fleet.nodes as Json[];

  const pdf: CapabilityManifest = given.manifest({
    id: 'invoice-pdf',
    state: 'ga',
    visibility: 'public',
    owner: 'finance-agents-team',
    handler: 'invoices.pdf',
    skill: {
      name: 'Invoice as PDF',
      description: 'Renders an invoice as a PDF document.',
      tags: ['finance'],
      outputModes: ['application/pdf'],
    },
    limits: { max_pdf_pages: 50, cost_class: 'low', timeout_s: 0.3, max_input_bytes: 2000 },
  });

  beforeAll(async () => {
    db = await createTestDatabase('servable');
    dir = await mkdtemp(join(tmpdir(), 'servable-e2e-'));
    prefix = `test:servable:${process.pid}:${randomBytes(3).toString('hex')}:`;
    config = testConfig({
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: prefix,
      GRAPHQL_SCHEMA_FILE: join(tmpdir(), `servable-schema-${process.pid}.graphql`),
    });
    const booted = await bootApp(AppModule, config);
    cp = booted.app;
    cpUrl = booted.url.replace('[::1]', '127.0.0.1');
    await seedWhenEmpty(cp.get(PrismaService));
    admin = mintAdminToken(config, 'ci@finance', ['platform-admin']);
    env = { CPCTL_URL: `${cpUrl}/graphql`, CPCTL_TOKEN: admin };
  });

  afterAll(async () => {
    for (const n of nodes) await n.stop().catch(() => undefined);
    for (const r of redis) r.disconnect();
    const cleanup = new Redis(config.REDIS_URL);
    const keys = await cleanup.keys(`${prefix}*`);
    if (keys.length) await cleanup.del(...keys);
    cleanup.disconnect();
    ws.remove();
    await cp?.close();
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses the plan adding invoice-pdf while a live node lacks invoices.pdf, naming capability, handler and node', async () => {
    const old = await startNode('node-old-1', oldCode());
    await synced(old);
    const exported = ws.path('export');
    expect((await cpctl(['export', '--agent', AGENT, exported], env)).code).toBe(0);
    ws.write('export/invoice-pdf.yaml', YAML.stringify(toManifestDocument(pdf)));
    const before = await currentRevision();

    const plan = await cpctl(['plan', exported], env);
    expect(plan.code).not.toBe(0);
    expect(plan.stderr).toContain('invoice-pdf.yaml');
    expect(plan.stderr).toContain(
      'capability "invoice-pdf" would be in a card but its handler "invoices.pdf" is not served by live node(s) node-old-1',
    );

    // The GraphQL mutation says the same, with the JSON path of the document.
    const docs = (await gqlOk(cpUrl, admin, `{ manifests(filter: {agentId: "${AGENT}"}) { nodes { document } } }`)).manifests.nodes.map(
      (n: Json) => n.document,
    );
    const res = await gql(cpUrl, admin, `mutation($i: ApplyManifestsInput!) { applyManifests(input: $i) { applied } }`, {
      i: { agentId: AGENT, manifests: [...docs, toManifestDocument(pdf)], dryRun: false, expectedRevision: before },
    });
    expect(res.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0]?.extensions.validationErrors).toEqual([
      { path: `$[${docs.length}].handler`, message: expect.stringContaining('"invoices.pdf" is not served by live node(s) node-old-1') },
    ]);
    // The single-manifest mutation too.
    const single = await gql(cpUrl, admin, `mutation($i: ManifestDocumentInput!) { createManifest(input: $i) { revision } }`, {
      i: { agentId: AGENT, expectedRevision: before, manifest: toManifestDocument(pdf) },
    });
    expect(single.errors?.[0]?.message).toContain('"invoices.pdf" is not served by live node(s) node-old-1');
    expect(await currentRevision()).toBe(before);
    await old.stop();
  });

  it('applies the same plan once the only live node registers the handler; limits are checked against its declaration', async () => {
    const fresh = await startNode('node-new-1', newCode());
    await synced(fresh);
    const exported = ws.path('export');

    // An undeclared limit key and a wrongly typed one fail at plan time with their paths.
    ws.write(
      'export/invoice-pdf.yaml',
      YAML.stringify(toManifestDocument({ ...pdf, limits: { ...pdf.limits, max_pages: 3, max_pdf_pages: 2.5 } })),
    );
    const bad = await cpctl(['plan', exported], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('handler "invoices.pdf" does not declare limit "max_pages" (it declares max_pdf_pages)');
    expect(bad.stderr).toContain('must be an integer');

    ws.write('export/invoice-pdf.yaml', YAML.stringify(toManifestDocument(pdf)));
    const before = await currentRevision();
    const apply = await cpctl(['apply', exported], env);
    expect({ code: apply.code, stderr: apply.stderr }).toEqual({ code: 0, stderr: '' });
    expect(await currentRevision()).toBe(before + 1);
    await synced(fresh);

    const res = await send(fresh, 'Invoice INV-20931 as PDF');
    const body = (await res.json()) as Json;
    expect(body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(body.result.task.artifacts[0].parts[0].text).toBe('%PDF pages<=50');
    // Typed as declared: the declared key and the generic ones, nothing else.
    expect(seenLimits.at(-1)).toEqual({ max_pdf_pages: 50, cost_class: 'low', timeout_s: 0.3, max_input_bytes: 2000 });
  }, 120_000); // cpctl runs twice here, each a cold TypeScript start: past jest's 30 s on a loaded machine

  it('a second node on old code shows invoice-pdf as unservable in the fleet view and answers callers with a clear error', async () => {
    const old = await startNode('node-old-2', oldCode());
    await synced(old);
    await until(
      'the old node to warn in the fleet view',
      async () => (await fleet()).some((n) => n.nodeId === 'node-old-2' && n.warnings.length > 0),
      30_000,
    );
    const view = Object.fromEntries((await fleet()).map((n) => [n.nodeId, n]));
    expect(view['node-old-2']).toMatchObject({ live: true, unservable: ['invoice-pdf'] });
    expect(view['node-old-2'].warnings[0]).toContain('invoice-pdf');
    expect(view['node-old-2'].handlers.map((h: Json) => h.id)).toEqual(['invoices.v1.lookup', 'recon.v3.reconcile']);
    expect(view['node-new-1']).toMatchObject({ live: true, unservable: [], warnings: [] });
    expect(view['node-new-1'].handlers).toContainEqual({
      id: 'invoices.pdf',
      limits: { max_pdf_pages: 'integer' },
      outputModes: ['application/pdf'],
    });
    expect(view['node-old-1']).toMatchObject({ live: false }); // stopped gracefully
    expect(old.sync.status().unservable).toEqual(['invoice-pdf']);

    const res = await send(old, 'Invoice INV-20931 as PDF');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('30');
    const body = (await res.json()) as Json;
    expect(body.error.code).toBe(-32000);
    expect(body.error.message).toBe(
      'capability "invoice-pdf" is temporarily unavailable on this node (its handler is not deployed here yet)',
    );
    expect(body.error.data[0]).toMatchObject({ reason: 'CAPABILITY_TEMPORARILY_UNAVAILABLE', metadata: { capabilityId: 'invoice-pdf' } });
    // Everything else keeps being served.
    const lookup = (await (await send(old, 'Look up invoice INV-20931', undefined, 'invoice-lookup')).json()) as Json;
    expect(lookup.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('stages explicitly: allowUnserved is applied and audited; a preview with no opted-in tenant passes', async () => {
    const zip = given.manifest({
      id: 'invoice-zip',
      state: 'ga',
      visibility: 'public',
      handler: 'invoices.zip',
      owner: 'finance-agents-team',
    });
    const refused = await gql(cpUrl, admin, `mutation($i: ManifestDocumentInput!) { createManifest(input: $i) { revision } }`, {
      i: { agentId: AGENT, expectedRevision: await currentRevision(), manifest: toManifestDocument(zip) },
    });
    expect(refused.errors?.[0]?.message).toContain('not served by live node(s) node-new-1, node-old-2');
    // Another agent's capability, or garbage, cannot be named.
    const hostile = await gql(cpUrl, admin, `mutation($i: ManifestDocumentInput!) { createManifest(input: $i) { revision } }`, {
      i: {
        agentId: AGENT,
        expectedRevision: await currentRevision(),
        manifest: toManifestDocument(zip),
        allowUnserved: ['invoice-zip', 'x'.repeat(5000)],
      },
    });
    expect(hostile.errors?.[0]?.extensions.validationErrors).toContainEqual({
      path: '$.allowUnserved[1]',
      message: expect.stringContaining('is not a capability of this agent'),
    });

    const staged = await gqlOk(cpUrl, admin, `mutation($i: ManifestDocumentInput!) { createManifest(input: $i) { revision } }`, {
      i: { agentId: AGENT, expectedRevision: await currentRevision(), manifest: toManifestDocument(zip), allowUnserved: ['invoice-zip'] },
    });
    const audit = await cp.get(PrismaService).auditEvent.findMany({ where: { action: 'manifest.allow-unserved' } });
    expect(audit.map((a) => [a.targetId, a.revision, a.after])).toEqual([
      [
        `${AGENT}/invoice-zip`,
        staged.createManifest.revision,
        { allowUnserved: true, handler: 'invoices.zip', nodesLacking: ['node-new-1', 'node-old-2'] },
      ],
    ]);

    const preview = given.manifest({
      id: 'invoice-csv',
      state: 'preview',
      visibility: 'extended',
      handler: 'invoices.csv',
      owner: 'finance-agents-team',
    });
    await gqlOk(cpUrl, admin, `mutation($i: ManifestDocumentInput!) { createManifest(input: $i) { revision } }`, {
      i: { agentId: AGENT, expectedRevision: await currentRevision(), manifest: toManifestDocument(preview) },
    });
    // Opting a tenant in would put that preview in its card: refused, naming it.
    const before = await currentRevision();
    const optIn = await gql(cpUrl, admin, `mutation($i: PreviewOptInInput!) { createPreviewOptIn(input: $i) { revision } }`, {
      i: { agentId: AGENT, tenantId: 'acme-partner', expectedRevision: before },
    });
    expect(optIn.errors?.[0]?.extensions.validationErrors).toEqual([
      {
        path: '$.tenantId',
        message: expect.stringContaining(
          'would show preview capability "invoice-csv", whose handler "invoices.csv" is not served by live node(s) node-new-1, node-old-2',
        ),
      },
    ]);
    expect(await currentRevision()).toBe(before);
  });

  it('fails a task past timeout_s and refuses a body over max_input_bytes before the handler', async () => {
    const fresh = nodes.find((n) => n.nodeId === 'node-new-1')!;
    await synced(fresh);
    const count = seenLimits.length;
    const slow = (await (await send(fresh, 'Invoice INV-1 as PDF, slow please')).json()) as Json;
    expect(slow.result.task.status.state).toBe('TASK_STATE_FAILED');
    expect(slow.result.task.status.message.parts[0].text).toBe('the capability did not finish within its time limit (timeout_s 0.3)');

    const big = await send(fresh, `Invoice INV-1 as PDF ${'x'.repeat(3000)}`);
    const body = (await big.json()) as Json;
    expect(big.status).toBe(413);
    expect(body.error.data[0]).toMatchObject({ reason: 'INPUT_TOO_LARGE', metadata: { limit: 'max_input_bytes', max: '2000' } });
    expect(seenLimits.length).toBe(count + 1); // only the slow call reached the handler
  });

  it('refuses hostile inventories and acks with a clear 4xx, storing nothing', async () => {
    const token = mintNodeToken(config, AGENT);
    const post = (path: string, body: unknown, bearer = token) =>
      fetch(`${cpUrl}/node/v1/${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const handler = (id: string) => ({ id, limits: {}, outputModes: [] });
    const cases: [string, unknown, RegExp][] = [
      ['register', { nodeId: 'hostile', handlers: Array.from({ length: 501 }, (_, i) => handler(`h.x${i}`)) }, /\$\.handlers/],
      ['register', { nodeId: 'hostile', handlers: [handler('Not A Handler')] }, /\$\.handlers\[0\]\.id/],
      [
        'heartbeat',
        { nodeId: 'hostile', handlers: [{ ...handler('h.x'), limits: { pages: 'string' } }] },
        /\$\.handlers\[0\]\.limits\.pages/,
      ],
      ['heartbeat', { nodeId: 'hostile', handlers: [handler('h.x'), handler('h.x')] }, /must not list a handler twice/],
      ['heartbeat', { nodeId: 'hostile', handlers: [{ ...handler('h.x'), extra: 1 }] }, /\$\.handlers\[0\]/],
      ['ack', { nodeId: 'hostile', revision: 1, servedHash: 'a'.repeat(64), unservable: ['../../etc'] }, /\$\.unservable\[0\]/],
    ];
    for (const [path, body, where] of cases) {
      const res = await post(path, body);
      const answer = (await res.json()) as Json;
      expect([path, res.status, answer.error.code]).toEqual([path, 400, 'INVALID_REQUEST']);
      expect(answer.error.message).toMatch(where);
    }
    // A token of an agent that does not exist cannot store an inventory anywhere.
    const ghost = await post('register', { nodeId: 'hostile', handlers: [handler('invoices.pdf')] }, mintNodeToken(config, 'ghost-agent'));
    expect(ghost.status).toBe(404);
    expect(await cp.get(PrismaService).nodeInventory.count({ where: { nodeId: 'hostile' } })).toBe(0);
  });

  it('a cost_class budget set per agent holds across two replicas sharing Redis; another tenant is unaffected', async () => {
    const set = await gqlOk(
      cpUrl,
      admin,
      `mutation($i: SetCostBudgetsInput!) { setCostBudgets(input: $i) { revision budgets { costClass calls windowS } } }`,
      { i: { agentId: AGENT, expectedRevision: await currentRevision(), budgets: [{ costClass: 'low', calls: 3, windowS: 3600 }] } },
    );
    expect(set.setCostBudgets.budgets).toEqual([{ costClass: 'low', calls: 3, windowS: 3600 }]);
    const hostile = await gql(cpUrl, admin, `mutation($i: SetCostBudgetsInput!) { setCostBudgets(input: $i) { revision } }`, {
      i: { agentId: AGENT, expectedRevision: await currentRevision(), budgets: [{ costClass: 'low', calls: 0, windowS: 10 ** 9 }] },
    });
    expect(hostile.errors?.[0]?.extensions.validationErrors).toEqual([
      { path: '$.budgets[0].calls', message: 'must be an integer from 1 to 1000000000' },
      { path: '$.budgets[0].windowS', message: 'must be an integer from 1 to 86400' },
    ]);

    const a = nodes.find((n) => n.nodeId === 'node-new-1')!;
    const b = await startNode('node-new-2', newCode());
    await synced(a);
    await synced(b);
    const acme = mintA2AToken(config, 'orchestrator@acme-partner', 'acme-partner', []);
    const globex = mintA2AToken(config, 'bot@globex', 'globex', []);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => send(i % 2 ? a : b, 'Invoice INV-7 as PDF', acme)));
    const ok = answers.filter((r) => r.status === 200);
    const limited = answers.filter((r) => r.status === 429);
    expect([ok.length, limited.length]).toEqual([3, 5]);
    for (const r of limited) {
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      const body = (await r.json()) as Json;
      expect(body.error.data[0].reason).toBe('RATE_LIMITED');
      expect(body.error.message).toContain('tenant "acme-partner" is over its budget for capability "invoice-pdf"');
    }
    const other = (await (await send(b, 'Invoice INV-7 as PDF', globex)).json()) as Json;
    expect(other.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });
});
