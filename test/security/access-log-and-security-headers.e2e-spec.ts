/**
 * Issue 11 item 14: every request of the three apps is logged once (method, route, status,
 * duration, principal, request id; never a token), raw Fastify routes included (Apollo's /graphql,
 * the node bundle route, the agent node's A2A routes), and every answer carries the security
 * headers of a JSON API, while the public card keeps its own caching headers.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mintA2AToken, mintAdminToken, mintNodeToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import { NodeSync } from '@cp/node-sdk';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { AgentNodeModule } from '../../apps/agent-node/src/agent-node.module';
import { WorkerModule } from '../../apps/worker/src/worker.module';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { LogCapture } from '../support/log-capture';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { until } from '../support/until';
import { freePort } from '../support/free-port';

const AGENT = 'finance-agent';

function expectSecurityHeaders(headers: Headers, cacheControl = 'no-store') {
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('referrer-policy')).toBe('no-referrer');
  expect(headers.get('x-frame-options')).toBe('DENY');
  expect(headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  expect(headers.get('cache-control')).toBe(cacheControl);
  expect(headers.get('x-powered-by')).toBeNull();
}

/** Waits for the access line of a request id (written when the response ends) and checks it is the only one. */
async function accessLine(logs: LogCapture, requestId: string) {
  await until(`the access line of ${requestId}`, () => logs.requests().some((l) => l.requestId === requestId), 2000);
  const lines = logs.requests().filter((l) => l.requestId === requestId);
  expect(lines).toHaveLength(1);
  return lines[0];
}

describe('access log and security headers on the control plane, the worker and the agent node', () => {
  let db: TestDatabase;
  let dir: string;
  let cpConfig: AppConfig;
  let cp: NestFastifyApplication;
  let cpUrl: string;
  let node: NestFastifyApplication;
  let nodeUrl: string;
  let worker: NestFastifyApplication;
  let workerUrl: string;
  const cpLogs = new LogCapture();
  const nodeLogs = new LogCapture();
  const workerLogs = new LogCapture();
  const tokens: string[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('sec_access_log');
    dir = await mkdtemp(join(tmpdir(), 'sec-access-log-'));
    const prefix = `test:sec-access-log:${process.pid}:`;
    cpConfig = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: prefix, LOG_LEVEL: 'info' });
    ({ app: cp, url: cpUrl } = await bootApp(AppModule, cpConfig, { logs: cpLogs }));
    const port = await freePort();
    await seedWhenEmpty(cp.get(PrismaService), { agentNodeUrl: `http://127.0.0.1:${port}` });
    const nodeConfig = testConfig({
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: prefix,
      LOG_LEVEL: 'info',
      CONTROL_PLANE_URL: cpUrl,
      AGENT_ID: AGENT,
      NODE_ID: 'sec-node-1',
      NODE_TOKEN: mintNodeToken(cpConfig, AGENT),
      NODE_CACHE_DIR: dir,
      USAGE_FLUSH_INTERVAL_MS: '3600000',
    });
    tokens.push(nodeConfig.NODE_TOKEN!);
    ({ app: node } = await bootApp(AgentNodeModule, nodeConfig, { logs: nodeLogs, port }));
    nodeUrl = `http://127.0.0.1:${port}`;
    await until('the node bundle', () => node.get(NodeSync).current());
    ({ app: worker, url: workerUrl } = await bootApp(
      WorkerModule,
      testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: prefix, LOG_LEVEL: 'info', RETIREMENT_SCHEDULE_ENABLED: 'false' }),
      { logs: workerLogs },
    ));
  });
  afterAll(async () => {
    await worker?.close();
    await node?.close();
    await cp?.close();
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  afterAll(() => {
    // Never a token, in any app's log.
    for (const line of [...cpLogs.lines, ...nodeLogs.lines, ...workerLogs.lines]) {
      for (const token of tokens) expect(JSON.stringify(line)).not.toContain(token);
      expect(JSON.stringify(line)).not.toMatch(/Bearer /);
    }
  });

  it('control plane GraphQL: one access line naming the admin principal, security headers, no token logged', async () => {
    const token = mintAdminToken(cpConfig, 'ci-bot', ['platform-admin']);
    tokens.push(token);
    const res = await fetch(`${cpUrl}/graphql?token=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-request-id': 'sec-gql-1' },
      body: JSON.stringify({ query: '{ me { subject } }' }),
    });
    expect(res.status).toBe(200);
    expectSecurityHeaders(res.headers);
    const line = await accessLine(cpLogs, 'sec-gql-1');
    expect(line).toMatchObject({ method: 'POST', route: '/graphql', status: 200, principal: 'admin:ci-bot', level: 30 });
    expect(typeof line.durationMs).toBe('number');
  });

  it('control plane node API (a raw route): the node principal, and an unknown route answered 404 with headers', async () => {
    const res = await fetch(`${cpUrl}/node/v1/bundle`, {
      headers: { authorization: `Bearer ${tokens[0]}`, 'x-request-id': 'sec-bundle-1' },
    });
    expect(res.status).toBe(200);
    expectSecurityHeaders(res.headers, 'no-cache'); // the bundle route's own revalidation policy
    expect(await accessLine(cpLogs, 'sec-bundle-1')).toMatchObject({
      route: '/node/v1/bundle',
      status: 200,
      principal: expect.stringMatching(new RegExp(`^node:.*${AGENT}$`)),
    });
    const missing = await fetch(`${cpUrl}/nope`, { headers: { 'x-request-id': 'sec-404-1' } });
    expect(missing.status).toBe(404);
    expectSecurityHeaders(missing.headers);
    expect(await accessLine(cpLogs, 'sec-404-1')).toMatchObject({ method: 'GET', status: 404, principal: 'anonymous' });
  });

  it('agent node public card: security headers but its own caching headers, and an anonymous access line', async () => {
    const res = await fetch(`${nodeUrl}/.well-known/agent-card.json`, { headers: { 'x-request-id': 'sec-card-1' } });
    expect(res.status).toBe(200);
    expectSecurityHeaders(res.headers, 'public, max-age=60');
    expect(res.headers.get('etag')).toBeTruthy();
    expect(await accessLine(nodeLogs, 'sec-card-1')).toMatchObject({
      method: 'GET',
      route: '/.well-known/agent-card.json',
      status: 200,
      principal: 'anonymous',
    });
    // The 304 is answered on arrival, before Nest's middleware (ADR 0185): the same headers and line.
    const fresh = await fetch(`${nodeUrl}/.well-known/agent-card.json`, {
      headers: { 'x-request-id': 'sec-card-2', 'if-none-match': res.headers.get('etag')! },
    });
    expect(fresh.status).toBe(304);
    expectSecurityHeaders(fresh.headers, 'public, max-age=60');
    expect(fresh.headers.get('x-request-id')).toBe('sec-card-2');
    expect(fresh.headers.get('vary')).toBe('A2A-Version');
    expect(await accessLine(nodeLogs, 'sec-card-2')).toMatchObject({ route: '/.well-known/agent-card.json', status: 304 });
  });

  it("agent node JSON-RPC (a raw route): the partner's principal, no-store, and a refused token logged without it", async () => {
    const partner = mintA2AToken(cpConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run']);
    tokens.push(partner);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard' });
    const headers = { 'content-type': 'application/json', 'a2a-version': '1.0' };
    const ok = await fetch(`${nodeUrl}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${partner}`, 'x-request-id': 'sec-rpc-1' },
      body,
    });
    expect(ok.status).toBe(200);
    expectSecurityHeaders(ok.headers);
    expect(await accessLine(nodeLogs, 'sec-rpc-1')).toMatchObject({
      route: '/a2a/jsonrpc',
      status: 200,
      principal: 'a2a:orchestrator@acme-partner',
    });
    const forged = `${partner.slice(0, -4)}AAAA`;
    tokens.push(forged);
    const refused = await fetch(`${nodeUrl}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${forged}`, 'x-request-id': 'sec-rpc-2' },
      body,
    });
    expect(refused.status).toBe(401);
    expectSecurityHeaders(refused.headers);
    expect(await accessLine(nodeLogs, 'sec-rpc-2')).toMatchObject({ status: 401, principal: 'anonymous' });
  });

  it('worker: every request logged once with headers (health probes at debug, so not at info)', async () => {
    const res = await fetch(`${workerUrl}/nope`, { headers: { 'x-request-id': 'sec-worker-1' } });
    expect(res.status).toBe(404);
    expectSecurityHeaders(res.headers);
    expect(await accessLine(workerLogs, 'sec-worker-1')).toMatchObject({ method: 'GET', status: 404 });
    const health = await fetch(`${workerUrl}/healthz`, { headers: { 'x-request-id': 'sec-worker-2' } });
    expect(health.status).toBe(200);
    expectSecurityHeaders(health.headers); // probes are never cached either
    await new Promise((r) => setTimeout(r, 50));
    expect(workerLogs.requests().filter((l) => l.requestId === 'sec-worker-2')).toEqual([]);
  });
});
