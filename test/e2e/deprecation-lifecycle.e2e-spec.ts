/**
 * Issue 21 end to end: deprecate with a replacement and a sunset date, calls from two tenants,
 * the impact report, the headers on A2A responses (the node SDK serving the bundle built from the
 * registry), signed notices at local webhook receivers delivered by the worker's BullMQ jobs;
 * one tenant stops, the clock moves past the window, the other still holds retirement back; a
 * week before removal the remaining caller is told; retirement after both stopped and the sunset
 * passed. Then notices to a failing receiver: retries stop at the bound and land in the
 * dead-letter view, and one is redelivered once the receiver is fixed; a redelivered job, a second
 * scan, or a delivery while another is in flight sends no duplicate; a moved sunset (also back to
 * an earlier date) is told again.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { type TestingModule } from '@nestjs/testing';
import { getQueueToken } from '@nestjs/bullmq';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Queue } from 'bullmq';
import Fastify, { type FastifyInstance } from 'fastify';
import { Client } from 'pg';
import { Webhook } from 'standardwebhooks';
import { a2aVerifier, mintA2AToken, mintAdminToken } from '@cp/auth';
import { buildNodeBundle } from '@cp/capabilities';
import { type AppConfig } from '@cp/common';
import { RegistrySnapshotRepository } from '@cp/db';
import {
  NOTICE_DELIVER_JOB,
  NoticeDeliveryService,
  NOTICES_QUEUE,
  NoticeScanService,
  RetirementService,
  type NoticeJobData,
} from '@cp/jobs';
import { FixedClock } from '@cp/jobs/testing';
import { addUsage, createNode, createNotice, createTenants, DAY_MS, setCoverage } from '../support/given-db';
import { ActiveBundle, HandlerRegistry, InMemoryTaskEvents, InMemoryTaskStore, registerA2AServer, ToolGateway } from '@cp/node-sdk';
import { NoticesWorkerModule } from '../../apps/worker/src/notices/notices-worker.module';
import { bootAppAndWorker, closeAppAndWorker } from '../support/app-and-worker';
import { testConfig } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { until } from '../support/until';

jest.setTimeout(300_000);

const AGENT = 'finance-agent';
const NOW = new Date('2027-03-01T10:00:00.000Z');
const at = (days: number) => new Date(NOW.getTime() + days * DAY_MS);
const SUNSET = at(10);

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local webhook receiver answering `status()` to every POST, after `delayMs()`. */
async function receiver(status: () => number, delayMs: () => number = () => 0): Promise<{ server: Server; url: string; got: Received[] }> {
  const got: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      setTimeout(() => res.writeHead(status()).end(), delayMs());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks/deprecations`, got };
}

describe('deprecation that reaches the callers (issue 21)', () => {
  let db: TestDatabase;
  let pg: Client;
  let app: NestFastifyApplication;
  let worker: TestingModule;
  let config: AppConfig;
  let admin: string;
  const clock = new FixedClock(NOW);
  const hooks: Record<string, Awaited<ReturnType<typeof receiver>>> = {};
  const secrets: Record<string, string> = {};
  /** What initech's receiver answers: failing until its operator fixes it. */
  let initechStatus = 503;
  /** How long globex's receiver takes to answer. */
  let globexDelay = 0;
  const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

  beforeAll(async () => {
    db = await createTestDatabase('deprecation_e2e');
    config = testConfig({
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: `test-deprecation-${randomBytes(4).toString('hex')}:`,
      RETIREMENT_SCHEDULE_ENABLED: 'false',
      DEPRECATION_NOTICE_SCHEDULE_ENABLED: 'false',
      // The receivers listen on loopback: allowed here only, as an operator would allow an internal host.
      DEPRECATION_NOTICE_ALLOW: '127.0.0.1',
      DEPRECATION_NOTICE_ATTEMPTS: '3',
      DEPRECATION_NOTICE_BACKOFF_MS: '20',
    });
    // The worker's notice jobs (processor + BullMQ), on the same clock.
    ({ app, worker } = await bootAppAndWorker(NoticesWorkerModule, config, clock));
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    await createTenants(pg, [
      { id: 'globex', name: 'Globex' },
      { id: 'initech', name: 'Initech' },
    ]);
    await createNode(pg, { id: 'node-1', agentId: AGENT, registeredAt: at(-90), lastSeenAt: NOW, coverage: { from: at(-90), until: NOW } });
    admin = mintAdminToken(config, 'pat', ['platform-admin']);
    hooks['acme-partner'] = await receiver(() => 204);
    hooks.globex = await receiver(
      () => 200,
      () => globexDelay,
    );
    hooks.initech = await receiver(() => initechStatus);
  }, 600_000);
  afterAll(async () => {
    await closeAppAndWorker({ app, worker }, NOTICES_QUEUE);
    for (const h of Object.values(hooks)) h.server.close();
    await pg?.end();
    await db?.drop();
  });

  async function gql(query: string, variables: Record<string, unknown> = {}, token = admin) {
    const res = await app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: { query, variables },
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- suites assert the shapes
    return res.json<{ data?: Record<string, any>; errors?: { message: string; extensions: Record<string, unknown> }[] }>();
  }
  const revision = async () => (await pg.query(`SELECT revision FROM "Agent" WHERE id = $1`, [AGENT])).rows[0].revision as number;
  /** The node has reported its usage through now (so zero calls mean zero). */
  const nodeReported = async () => {
    await pg.query(`UPDATE "Node" SET "lastSeenAt" = $1 WHERE id = 'node-1'`, [clock.now().toISOString()]);
    await setCoverage(pg, 'node-1', AGENT, { from: at(-90), until: clock.now() });
  };
  const calls = (tenantId: string, when: Date, count = 1) =>
    addUsage(pg, [{ agentId: AGENT, capabilityId: 'invoice-lookup', nodeId: 'node-1', tenantId, lastCallAt: when, count }]);
  const IMPACT = `query ($id: String!) { capabilityImpact(agentId: "${AGENT}", capabilityId: $id) {
    state replacedBy sunsetAt windowDays calls lastCallAt usageComplete earliestRetirementAt
    tenants { tenantId calls } nodes { nodeId calls } daily { day calls } retirementBlockers { code message } } }`;
  const events = (tenant: string) => hooks[tenant].got.map((r) => (JSON.parse(r.body) as { type: string }).type).sort();

  it('refuses a sunset without enough notice, a webhook URL that breaks the SSRF rules, and hostile input', async () => {
    const created = await gql(
      `mutation ($m: JSON!, $r: Int!) { createManifest(input: { agentId: "${AGENT}", expectedRevision: $r, manifest: $m }) { revision } }`,
      {
        r: await revision(),
        m: {
          id: 'invoice-lookup-v2',
          state: 'ga',
          visibility: 'public',
          skill: { name: 'Invoice lookup v2', description: 'Finds invoices by number, with line items.', tags: ['invoices'] },
          requires_scopes: [],
          tenants: '*',
          handler: 'invoices.v2.lookup',
          limits: {},
          owner: 'finance-agents-team',
        },
      },
    );
    // The replacement exists before the deprecation names it (owned by the seed's team).
    expect(created.errors).toBeUndefined();
    const DEPRECATE = `mutation ($r: Int!, $s: String) { deprecateManifest(input: { agentId: "${AGENT}", capabilityId: "invoice-lookup",
      expectedRevision: $r, replacedBy: "invoice-lookup-v2", sunsetAt: $s }) { revision manifest { state sunsetAt } } }`;
    for (const s of [at(3).toISOString(), 'next tuesday', '2027-02-31', '9'.repeat(10_000)]) {
      const refused = await gql(DEPRECATE, { r: await revision(), s });
      expect(refused.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(refused.errors?.[0].message).toMatch(/sunset/i);
    }
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'http://10.0.0.7/hook',
      'file:///etc/passwd',
      'http://user:pw@example.com/',
      'x'.repeat(5000),
      '',
      'javascript:alert(1)',
      // The cloud metadata address spelled other ways, and private v6.
      'http://0251.0376.0251.0376/',
      'http://2852039166/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://[::1]/hook',
      'http://[fd00::1]/hook',
      'http://0.0.0.0/hook',
    ]) {
      const refused = await gql(`mutation ($u: String!) { setNotificationEndpoint(input: { tenantId: "globex", url: $u }) { secret } }`, {
        u: url,
      });
      expect({
        url: url.slice(0, 40),
        code: refused.errors?.[0].extensions.code,
        path: refused.errors?.[0].extensions.validationErrors,
      }).toEqual({
        url: url.slice(0, 40),
        code: 'BAD_USER_INPUT',
        path: [expect.objectContaining({ path: '$.url', message: expect.any(String) })],
      });
    }
    const longTenant = await gql(
      `mutation ($t: String!) { setNotificationEndpoint(input: { tenantId: $t, url: "http://127.0.0.1:1/" }) { secret } }`,
      {
        t: 't'.repeat(5000),
      },
    );
    expect(longTenant.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', validationErrors: [{ path: '$.tenantId' }] });
    const otherTenant = await gql(
      `mutation { setNotificationEndpoint(input: { tenantId: "no-such-tenant", url: "http://127.0.0.1:1/" }) { secret } }`,
    );
    expect(otherTenant.errors?.[0].extensions.code).toBe('NOT_FOUND');
    const viewer = await gql(
      `mutation { setNotificationEndpoint(input: { tenantId: "globex", url: "http://127.0.0.1:1/" }) { secret } }`,
      {},
      mintAdminToken(config, 'vic', ['viewer']),
    );
    expect(viewer.errors?.[0].extensions.code).toBe('FORBIDDEN');
    expect((await pg.query(`SELECT count(*)::int AS n FROM "NotificationEndpoint"`)).rows[0].n).toBe(0);
  });

  it('deprecate with a replacement and a sunset; two tenants call it; the impact report names them', async () => {
    for (const tenant of ['acme-partner', 'globex', 'initech']) {
      const set = await gql(
        `mutation ($t: String!, $u: String!) { setNotificationEndpoint(input: { tenantId: $t, url: $u }) { tenantId url secret } }`,
        {
          t: tenant,
          u: hooks[tenant].url,
        },
      );
      expect(set.errors).toBeUndefined();
      secrets[tenant] = set.data!.setNotificationEndpoint.secret;
      expect(secrets[tenant]).toMatch(/^whsec_/);
    }
    const listed = await gql(`{ notificationEndpoints { tenantId url } }`);
    expect(JSON.stringify(listed)).not.toContain('whsec_');
    const dep = await gql(
      `mutation ($r: Int!) { deprecateManifest(input: { agentId: "${AGENT}", capabilityId: "invoice-lookup", expectedRevision: $r,
        replacedBy: "invoice-lookup-v2", sunsetAt: "${SUNSET.toISOString()}" }) { manifest { state sunsetAt deprecatedAt } } }`,
      { r: await revision() },
    );
    expect(dep.data!.deprecateManifest.manifest).toEqual({
      state: 'deprecated',
      sunsetAt: SUNSET.toISOString(),
      deprecatedAt: NOW.toISOString(),
    });
    await calls('acme-partner', at(-1), 5);
    await calls('globex', at(-2), 2);
    await calls('initech', at(-3), 1);
    await nodeReported();
    const { data } = await gql(IMPACT, { id: 'invoice-lookup' });
    expect(data!.capabilityImpact).toMatchObject({
      state: 'deprecated',
      replacedBy: 'invoice-lookup-v2',
      sunsetAt: SUNSET.toISOString(),
      windowDays: 30,
      calls: 8,
      lastCallAt: at(-1).toISOString(),
      usageComplete: true,
      tenants: [
        { tenantId: 'acme-partner', calls: 5 },
        { tenantId: 'globex', calls: 2 },
        { tenantId: 'initech', calls: 1 },
      ],
      nodes: [{ nodeId: 'node-1', calls: 8 }],
    });
    expect(data!.capabilityImpact.daily).toHaveLength(3);
    // Eligible by age at NOW + 30 days; the last call (yesterday) keeps it until 29 days from now; the sunset is earlier.
    expect(new Date(data!.capabilityImpact.earliestRetirementAt).getTime()).toBe(at(30).getTime());
    expect(data!.capabilityImpact.retirementBlockers.map((b: { code: string }) => b.code).sort()).toEqual([
      'DEPRECATED_TOO_RECENTLY',
      'STILL_CALLED',
      'SUNSET_NOT_REACHED',
    ]);
    // The retirement preview says it waits for the announced sunset, naming the date.
    const preview = await gql(
      `{ retirementPreview(agentId: "${AGENT}") { retire { capabilityId } skipped { capabilityId reasons { code message } } } }`,
    );
    expect(preview.data!.retirementPreview.retire).toEqual([]);
    const skipped = preview.data!.retirementPreview.skipped.find((d: { capabilityId: string }) => d.capabilityId === 'invoice-lookup');
    expect(skipped.reasons).toContainEqual({
      code: 'SUNSET_NOT_REACHED',
      message: expect.stringContaining(SUNSET.toISOString().slice(0, 10)),
    });
  });

  /** One SendMessage to a node SDK serving the bundle built from the registry as it is now. */
  async function sendToNode(skillId: string) {
    const snapshot = (await app.get(RegistrySnapshotRepository).snapshot(AGENT))!;
    const bundle = new ActiveBundle(buildNodeBundle(snapshot));
    const node: FastifyInstance = Fastify();
    const done = async () => ({ state: 'completed' as const, artifacts: [{ parts: [{ data: { ok: true } }] }] });
    registerA2AServer(node, {
      bundle: () => bundle,
      verifier: a2aVerifier(config),
      handlers: new HandlerRegistry()
        .register('invoices.v1.lookup', done)
        .register('invoices.v2.lookup', done)
        .register('recon.v3.reconcile', done),
      tools: new ToolGateway(
        { exchange: async () => ({ accessToken: 't', expiresAt: Date.now() + 60_000, scopes: [] }) },
        new Map(),
        silent,
      ),
      log: silent,
      tasks: new InMemoryTaskStore(),
      events: new InMemoryTaskEvents(),
    });
    await node.ready();
    try {
      return await node.inject({
        method: 'POST',
        url: '/a2a/jsonrpc',
        headers: {
          'content-type': 'application/json',
          'a2a-version': '1.0',
          authorization: `Bearer ${mintA2AToken(config, 'bot@globex', 'globex', [])}`,
        },
        payload: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'find INV-1' }], metadata: { skillId } } },
        }),
      });
    } finally {
      await node.close();
    }
  }

  it('responses for it carry Deprecation, Sunset and a Link to the replacement; the task notice names both', async () => {
    const res = await sendToNode('invoice-lookup');
    expect(res.headers.deprecation).toBe(`@${NOW.getTime() / 1000}`);
    expect(res.headers.sunset).toBe(SUNSET.toUTCString());
    expect(res.headers.link).toBe(
      '</a2a/rest/extendedAgentCard#skill=invoice-lookup-v2>; rel="successor-version"; title="invoice-lookup-v2"',
    );
    expect(res.json().result.task.metadata.deprecation).toMatchObject({
      replacedBy: 'invoice-lookup-v2',
      sunsetAt: SUNSET.toISOString(),
    });
    // The replacement itself is not deprecated: none of the three.
    const v2 = await sendToNode('invoice-lookup-v2');
    expect(v2.json().result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect([v2.headers.deprecation, v2.headers.sunset, v2.headers.link]).toEqual([undefined, undefined, undefined]);
  });

  it('the callers with an endpoint get signed notices through the worker: deprecated and sunset scheduled', async () => {
    await app.get(NoticeScanService).scan();
    await until('notices at both receivers', () => hooks['acme-partner'].got.length >= 2 && hooks.globex.got.length >= 2, 60_000);
    for (const tenant of ['acme-partner', 'globex']) {
      expect(events(tenant)).toEqual(['capability.deprecated', 'capability.sunset_scheduled']);
      for (const r of hooks[tenant].got) {
        // The receiver verifies the Standard Webhooks signature with the secret it was shown once.
        const payload = new Webhook(secrets[tenant]).verify(r.body, r.headers as Record<string, string>) as {
          data: Record<string, unknown>;
        };
        expect(payload.data).toMatchObject({
          capabilityId: 'invoice-lookup',
          tenantId: tenant,
          replacedBy: 'invoice-lookup-v2',
          sunsetAt: SUNSET.toISOString(),
        });
        expect(() =>
          new Webhook(secrets[tenant === 'globex' ? 'acme-partner' : 'globex']).verify(r.body, r.headers as Record<string, string>),
        ).toThrow();
      }
    }
  });

  it('a failing receiver: retries stop at the bound and the notices land in the dead-letter view', async () => {
    const dead = await until(
      'dead letters',
      async () => {
        const { data } = await gql(`{ deprecationNotices(status: dead, tenantId: "initech") { id event attempts lastError status } }`);
        return data!.deprecationNotices.length === 2 ? data!.deprecationNotices : null;
      },
      60_000,
    );
    for (const n of dead) expect(n).toMatchObject({ attempts: 3, status: 'dead', lastError: 'the endpoint answered HTTP 503' });
    // Exactly the bound: 3 attempts per notice, none after.
    expect(hooks.initech.got).toHaveLength(6);
  });

  it('a redelivered job and a second scan send no duplicate', async () => {
    const before = hooks['acme-partner'].got.length;
    const { data } = await gql(`{ deprecationNotices(status: delivered, tenantId: "acme-partner") { id } }`);
    const queue = worker.get<Queue<NoticeJobData>>(getQueueToken(NOTICES_QUEUE));
    const job = await queue.add(
      NOTICE_DELIVER_JOB,
      { kind: 'deliver', noticeId: data!.deprecationNotices[0].id },
      { jobId: `again-${randomBytes(3).toString('hex')}` },
    );
    await until('the redelivered job finished', async () => ((await job.isCompleted()) ? true : null), 60_000);
    expect((await queue.getJob(job.id!))!.returnvalue).toEqual({ outcome: 'already-done' });
    expect(await app.get(NoticeScanService).scan()).toMatchObject({ recorded: 0 });
    // Nothing is left in the queue that could still send one.
    await until(
      'the notice queue is idle',
      async () => Object.values(await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized')).every((n) => n === 0),
      60_000,
    );
    expect(hooks['acme-partner'].got).toHaveLength(before);
  });

  it('a dead letter is redelivered once its endpoint is fixed; only a dead notice can be, and hostile ids are refused', async () => {
    const { data } = await gql(`{ deprecationNotices(status: dead, tenantId: "initech") { id event } }`);
    const [dead] = data!.deprecationNotices as { id: string; event: string }[];
    initechStatus = 204;
    const before = hooks.initech.got.length;
    const revived = await gql(`mutation ($id: String!) { redeliverDeprecationNotice(id: $id) { id status attempts } }`, { id: dead.id });
    expect(revived.data!.redeliverDeprecationNotice).toMatchObject({ id: dead.id, attempts: 0 });
    const delivered = await until(
      'the revived notice delivered',
      async () => {
        const { data: now } = await gql(`{ deprecationNotices(tenantId: "initech") { id status attempts lastError } }`);
        return now!.deprecationNotices.find((n: { id: string; status: string }) => n.id === dead.id && n.status === 'delivered');
      },
      60_000,
    );
    expect(delivered).toMatchObject({ attempts: 1, lastError: null });
    expect(hooks.initech.got).toHaveLength(before + 1);
    expect(hooks.initech.got[before].headers['webhook-id']).toBe(dead.id);
    expect(JSON.parse(hooks.initech.got[before].body).type).toBe(dead.event);

    const again = await gql(`mutation ($id: String!) { redeliverDeprecationNotice(id: $id) { id } }`, { id: dead.id });
    expect(again.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    expect(again.errors?.[0].message).toMatch(/only a dead notice/);
    for (const id of ['no-such-notice', 'x'.repeat(5000), "' OR 1=1 --"]) {
      const refused = await gql(`mutation ($id: String!) { redeliverDeprecationNotice(id: $id) { id } }`, { id });
      expect(refused.errors?.[0].extensions.code).toBe('NOT_FOUND');
    }
    for (const limit of [0, -1, 100_000]) {
      const refused = await gql(`query ($l: Int!) { deprecationNotices(limit: $l) { id } }`, { l: limit });
      expect(refused.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(refused.errors?.[0].message).toMatch(/limit/);
    }
    const viewer = mintAdminToken(config, 'vic', ['viewer']);
    expect((await gql(`mutation { redeliverDeprecationNotice(id: "${dead.id}") { id } }`, {}, viewer)).errors?.[0].extensions.code).toBe(
      'FORBIDDEN',
    );
    expect((await gql(`{ deprecationNotices(status: dead) { id } }`, {}, viewer)).errors).toBeUndefined();
  });

  it('when the sunset moves, and when it moves back, the callers are told again, with the date it moved from', async () => {
    const SET_SUNSET = `mutation ($r: Int!, $s: String) { setSunset(input: { agentId: "${AGENT}", capabilityId: "invoice-lookup",
      expectedRevision: $r, sunsetAt: $s }) { manifest { sunsetAt } } }`;
    const latest = (tenant: string) =>
      JSON.parse(hooks[tenant].got[hooks[tenant].got.length - 1].body) as { type: string; data: Record<string, unknown> };
    const LATER = at(20);
    for (const [to, from] of [
      [LATER, SUNSET],
      [SUNSET, LATER],
    ]) {
      const moved = await gql(SET_SUNSET, { r: await revision(), s: to.toISOString() });
      expect(moved.data!.setSunset.manifest.sunsetAt).toBe(to.toISOString());
      const told = Object.fromEntries(Object.keys(hooks).map((t) => [t, hooks[t].got.length]));
      expect(await app.get(NoticeScanService).scan()).toMatchObject({ recorded: 3 });
      await until('the move at every receiver', () => Object.keys(hooks).every((t) => hooks[t].got.length === told[t] + 1), 60_000);
      for (const tenant of Object.keys(hooks)) {
        const notice = latest(tenant);
        expect(notice).toMatchObject({
          type: 'capability.sunset_scheduled',
          data: { tenantId: tenant, sunsetAt: to.toISOString(), previousSunsetAt: from.toISOString() },
        });
        new Webhook(secrets[tenant]).verify(
          hooks[tenant].got[told[tenant]].body,
          hooks[tenant].got[told[tenant]].headers as Record<string, string>,
        );
      }
      // Found again: nothing new.
      expect(await app.get(NoticeScanService).scan()).toMatchObject({ recorded: 0 });
    }
    // Withdrawn, then set again to the date last told: nothing to tell.
    await gql(SET_SUNSET, { r: await revision(), s: null });
    expect(await app.get(NoticeScanService).scan()).toMatchObject({ recorded: 0 });
    const back = await gql(SET_SUNSET, { r: await revision(), s: SUNSET.toISOString() });
    expect(back.errors).toBeUndefined();
    expect(await app.get(NoticeScanService).scan()).toMatchObject({ recorded: 0 });
    expect(events('globex')).toEqual([
      'capability.deprecated',
      'capability.sunset_scheduled',
      'capability.sunset_scheduled',
      'capability.sunset_scheduled',
    ]);
  });

  it('a second delivery of a notice while the first is in flight (a job redelivered meanwhile) sends nothing', async () => {
    const pending = async () => {
      const id = `race-${randomBytes(4).toString('hex')}`;
      await createNotice(pg, {
        id,
        tenantId: 'globex',
        agentId: AGENT,
        capabilityId: 'invoice-lookup',
        event: 'capability.deprecated',
        payload: { type: 'capability.deprecated', timestamp: NOW.toISOString(), data: { capabilityId: 'invoice-lookup' } },
      });
      return id;
    };
    const deliveries = worker.get(NoticeDeliveryService);
    const before = hooks.globex.got.length;
    globexDelay = 500;
    try {
      // Started together, and one started once the other's request reached the receiver.
      const together = await pending();
      expect((await Promise.all([deliveries.deliver(together, false), deliveries.deliver(together, false)])).sort()).toEqual([
        'delivered',
        'in-progress',
      ]);
      const overlapping = await pending();
      const first = deliveries.deliver(overlapping, false);
      await until('the first request at the receiver', () => hooks.globex.got.some((r) => r.headers['webhook-id'] === overlapping), 60_000);
      expect(await deliveries.deliver(overlapping, false)).toBe('in-progress');
      expect(await first).toBe('delivered');
      expect(hooks.globex.got.slice(before).map((r) => r.headers['webhook-id'])).toEqual([together, overlapping]);
      const rows = await pg.query(`SELECT status, attempts, "claimedUntil" FROM "DeprecationNotice" WHERE id = ANY($1) ORDER BY id`, [
        [together, overlapping],
      ]);
      expect(rows.rows).toEqual([
        { status: 'delivered', attempts: 1, claimedUntil: null },
        { status: 'delivered', attempts: 1, claimedUntil: null },
      ]);
      // Done: any later delivery of them sends nothing either.
      expect(await deliveries.deliver(overlapping, false)).toBe('already-done');

      // A delivery that crashed holds its claim until it expires; then the next one sends.
      globexDelay = 0;
      const crashed = await pending();
      const claim = (offset: string) =>
        pg.query(`UPDATE "DeprecationNotice" SET attempts = 1, "claimedUntil" = (now() AT TIME ZONE 'UTC') + $2::interval WHERE id = $1`, [
          crashed,
          offset,
        ]);
      await claim('1 hour');
      expect(await deliveries.deliver(crashed, false)).toBe('in-progress');
      await claim('-1 second');
      expect(await deliveries.deliver(crashed, false)).toBe('delivered');
      expect((await pg.query(`SELECT attempts FROM "DeprecationNotice" WHERE id = $1`, [crashed])).rows[0].attempts).toBe(2);
    } finally {
      globexDelay = 0;
    }
  });

  it('one tenant stops; past the window the other still holds retirement back; a week before removal it is told; then retirement', async () => {
    // globex and initech stop; acme-partner keeps calling until day 35.
    clock.set(at(35));
    await calls('acme-partner', at(35), 3);
    await nodeReported();
    const held = await gql(IMPACT, { id: 'invoice-lookup' });
    expect(held.data!.capabilityImpact.tenants).toEqual([{ tenantId: 'acme-partner', calls: 3 }]);
    expect(held.data!.capabilityImpact.retirementBlockers.map((b: { code: string }) => b.code)).toEqual(['STILL_CALLED']);
    const preview = await gql(
      `{ retirementPreview(agentId: "${AGENT}") { retire { capabilityId } skipped { capabilityId earliestAt reasons { code } } } }`,
    );
    expect(preview.data!.retirementPreview.skipped).toEqual([
      { capabilityId: 'invoice-lookup', earliestAt: new Date(at(65).getTime() + 1).toISOString(), reasons: [{ code: 'STILL_CALLED' }] },
    ]);

    // A week before that earliest removal, the tenant still calling it is told; the others are not (outside the window).
    clock.set(at(60));
    await nodeReported();
    const told = hooks['acme-partner'].got.length;
    await app.get(NoticeScanService).scan();
    await until('removal notice', () => hooks['acme-partner'].got.length > told, 60_000);
    expect(JSON.parse(hooks['acme-partner'].got[told].body)).toMatchObject({
      type: 'capability.removal_imminent',
      data: { capabilityId: 'invoice-lookup', earliestRemovalAt: new Date(at(65).getTime() + 1).toISOString() },
    });
    expect(events('globex')).not.toContain('capability.removal_imminent');

    clock.set(at(66));
    await nodeReported();
    const run = await app.get(RetirementService).run({ trigger: 'manual' });
    expect(run!.retired.map((r) => r.capabilityId)).toEqual(['invoice-lookup']);
    expect((await pg.query(`SELECT state FROM "CapabilityManifest" WHERE "capabilityId" = 'invoice-lookup'`)).rows[0].state).toBe(
      'removed',
    );
    // Removed: calls keep failing clearly, naming the replacement.
    const gone = (await sendToNode('invoice-lookup')).json();
    expect(gone.error.message).toMatch(/invoice-lookup.*removed.*invoice-lookup-v2/);
    expect(JSON.stringify(gone.error.data)).toContain('CAPABILITY_REMOVED');
  });
});
