/**
 * The whole control plane (AppModule): a GraphQL mutation reaches every node (one of them in a
 * separate process), the fleet view shows what each node serves, and the node API only lets a
 * node token touch its own agent.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mintAdminToken, mintNodeToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import { NodeSync, type NodeSyncOptions } from '@cp/node-sdk';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { codeOf, gql, gqlOk } from '../support/graphql-client';
import { spawnNodeProcess, type NodeProcess } from '../support/node-process';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { until } from '../support/until';

const AGENT = 'finance-agent';
type ErrorBody = { error: { code: string; message: string } };
const UPDATE = 'mutation($input: UpdateAgentInput!) { updateAgent(input: $input) { id revision } }';
const FLEET = `query($id: ID!) { fleet(agentId: $id) { agentId currentRevision upToDate
  nodes { nodeId hostname appliedRevision servedHash lag lastSeenAt lastError lastErrorAt registeredAt } } }`;

describe('node sync through the control plane (GraphQL, node API, fleet)', () => {
  let db: TestDatabase;
  let config: AppConfig;
  let app: NestFastifyApplication;
  let url: string;
  let dir: string;
  let nodes: NodeSync[] = [];
  let child: NodeProcess | undefined;
  const admin = () => mintAdminToken(config, 'alice', ['platform-admin']);
  const nodeToken = (agentId = AGENT) => mintNodeToken(config, agentId);

  const optionsFor = (nodeId: string): NodeSyncOptions => ({
    controlPlaneUrl: url,
    nodeToken: nodeToken(),
    agentId: AGENT,
    nodeId,
    cacheDir: join(dir, nodeId),
    redisUrl: config.REDIS_URL,
    redisKeyPrefix: config.REDIS_KEY_PREFIX,
    pollIntervalMs: 60_000,
    heartbeatIntervalMs: 60_000,
  });
  const post = (path: string, token: string | undefined, body: unknown) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    db = await createTestDatabase('sync_fleet');
    config = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: `test:sync-fleet:${process.pid}:` });
    ({ app, url } = await bootApp(AppModule, config));
    await seedWhenEmpty(app.get(PrismaService));
    dir = await mkdtemp(join(tmpdir(), 'sync-fleet-'));
    nodes = ['fleet-a', 'fleet-b'].map((id) => new NodeSync(optionsFor(id)));
    await Promise.all(nodes.map((n) => n.start()));
    child = await spawnNodeProcess(optionsFor('fleet-process'));
  }, 60_000);

  afterAll(async () => {
    await child?.kill();
    await Promise.all(nodes.map((n) => n.stop()));
    await app?.close();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a GraphQL mutation reaches every node, and the fleet shows them all on it', async () => {
    const { updateAgent } = await gqlOk(url, admin(), UPDATE, {
      input: { id: AGENT, expectedRevision: 1, name: 'Finance Agent via GraphQL' },
    });
    const revision = updateAgent.revision as number;
    expect(revision).toBe(2);
    await until('in-process nodes', () => nodes.every((n) => n.current()?.revision === revision));
    const status = await child!.waitFor((s) => s.revision === revision);
    expect(nodes.map((n) => JSON.parse(n.current()!.publicCard.body).name)).toEqual([
      'Finance Agent via GraphQL',
      'Finance Agent via GraphQL',
    ]);

    const fleet = await until('acks in the fleet view', async () => {
      const f = (await gqlOk(url, admin(), FLEET, { id: AGENT })).fleet;
      return f.upToDate === 3 ? f : undefined;
    });
    expect(fleet).toMatchObject({ agentId: AGENT, currentRevision: revision });
    expect(fleet.nodes.map((n: { nodeId: string }) => n.nodeId)).toEqual(['fleet-a', 'fleet-b', 'fleet-process']);
    for (const n of fleet.nodes) {
      expect(n).toMatchObject({ appliedRevision: revision, lag: 0, servedHash: status.servedHash, lastError: null });
      expect(Date.now() - Date.parse(n.lastSeenAt)).toBeLessThan(60_000);
    }
  });

  it('shows lag for a node that is behind, and Agent.nodes lists the same nodes', async () => {
    await nodes[1].stop();
    try {
      const { updateAgent } = await gqlOk(url, admin(), UPDATE, {
        input: { id: AGENT, expectedRevision: 2, description: 'One node is stopped.' },
      });
      await until('running nodes', () => nodes[0].current()?.revision === updateAgent.revision);
      const fleet = await until('fleet with one node behind', async () => {
        const f = (await gqlOk(url, admin(), FLEET, { id: AGENT })).fleet;
        return f.upToDate === 2 ? f : undefined;
      });
      const behind = fleet.nodes.find((n: { nodeId: string }) => n.nodeId === 'fleet-b');
      expect(behind).toMatchObject({ appliedRevision: updateAgent.revision - 1, lag: 1 });
      const viaAgent = await gqlOk(url, admin(), 'query($id: String!) { agent(id: $id) { revision nodes { nodeId lag } } }', { id: AGENT });
      expect(viaAgent.agent.nodes).toEqual(fleet.nodes.map((n: { nodeId: string; lag: number }) => ({ nodeId: n.nodeId, lag: n.lag })));
    } finally {
      nodes[1] = new NodeSync(optionsFor('fleet-b'));
      await nodes[1].start();
    }
    expect(nodes[1].current()!.revision).toBe(3);
  });

  it('the fleet is guarded like the agent: no token is refused, another team reads NOT_FOUND', async () => {
    expect(codeOf(await gql(url, undefined, FLEET, { id: AGENT }))).toBe('UNAUTHENTICATED');
    expect(codeOf(await gql(url, nodeToken(), FLEET, { id: AGENT }))).toBe('UNAUTHENTICATED');
    const other = await gql(url, mintAdminToken(config, 'bob', ['team-admin'], ['other-team']), FLEET, { id: AGENT });
    expect(codeOf(other)).toBe('NOT_FOUND');
    expect(codeOf(await gql(url, admin(), FLEET, { id: 'no-such-agent' }))).toBe('NOT_FOUND');
    expect((await gqlOk(url, mintAdminToken(config, 'vera', ['viewer']), FLEET, { id: AGENT })).fleet.agentId).toBe(AGENT);
  });

  it('the node API takes node tokens only, and a node token only touches its own agent', async () => {
    const bundle = (token?: string) => fetch(`${url}/node/v1/bundle`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    const noToken = await bundle();
    expect(noToken.status).toBe(401);
    expect(await noToken.json()).toEqual({ error: { code: 'TOKEN_MISSING', message: expect.stringMatching(/node token is required/) } });
    expect(noToken.headers.get('www-authenticate')).toBe('Bearer');
    // An admin token is a valid token of another kind: 403, like on every /node/v1 route.
    expect((await bundle(admin())).status).toBe(403);
    expect((await bundle(nodeToken('no-such-agent'))).status).toBe(404);

    // Another agent's node token using one of finance-agent's node ids writes a node of its own
    // agent (node ids are per agent: ADR 0070) and never touches finance-agent's.
    const prisma = app.get(PrismaService);
    await prisma.agent.create({
      data: {
        ...(await prisma.agent.findUniqueOrThrow({ where: { id: AGENT } })),
        id: 'other-agent',
        revision: 1,
        createdAt: undefined,
        updatedAt: undefined,
      } as never,
    });
    const key = { agentId_id: { agentId: AGENT, id: 'fleet-a' } };
    const before = await prisma.node.findUniqueOrThrow({ where: key });
    for (const [path, body] of [
      ['/node/v1/register', { nodeId: 'fleet-a', hostname: 'evil' }],
      ['/node/v1/heartbeat', { nodeId: 'fleet-a' }],
      ['/node/v1/ack', { nodeId: 'fleet-a', revision: 99, servedHash: 'a'.repeat(64) }],
    ] as const) {
      const res = await post(path, nodeToken('other-agent'), body);
      expect(res.status).toBe(204);
    }
    expect(await prisma.node.findUniqueOrThrow({ where: key })).toEqual(before);
    expect(await prisma.node.findUniqueOrThrow({ where: { agentId_id: { agentId: 'other-agent', id: 'fleet-a' } } })).toMatchObject({
      hostname: 'evil',
      appliedRevision: 99,
    });

    // The other agent's token gets the other agent's bundle, never finance-agent's.
    const own = await bundle(nodeToken('other-agent'));
    expect(own.status).toBe(200);
    expect(((await own.json()) as { agentId: string }).agentId).toBe('other-agent');
  });

  it('bad node API bodies are refused naming the field, and change nothing', async () => {
    const count = await app.get(PrismaService).node.count();
    const cases: [string, unknown, RegExp][] = [
      ['/node/v1/register', { nodeId: 'has spaces' }, /\$\.nodeId/],
      ['/node/v1/heartbeat', {}, /\$\.nodeId/],
      ['/node/v1/ack', { nodeId: 'n1', revision: -1, servedHash: 'a'.repeat(64) }, /invalid ack body/],
      ['/node/v1/ack', { nodeId: 'n1', revision: 1, servedHash: 'not-hex' }, /invalid ack body/],
      ['/node/v1/register', { nodeId: 'n1', extra: true }, /invalid register body/],
    ];
    for (const [path, body, message] of cases) {
      const res = await post(path, nodeToken(), body);
      expect(res.status).toBe(400);
      const json = (await res.json()) as ErrorBody;
      expect(json.error.code).toBe('INVALID_REQUEST');
      expect(json.error.message).toMatch(message);
    }
    expect(await app.get(PrismaService).node.count()).toBe(count);
  });

  it('a refusal reported by a node shows in the fleet until its next good ack', async () => {
    const res = await post('/node/v1/ack', nodeToken(), { nodeId: 'fleet-a', revision: 3, error: 'contentHash mismatch' });
    expect(res.status).toBe(204);
    let fleet = (await gqlOk(url, admin(), FLEET, { id: AGENT })).fleet;
    const a = fleet.nodes.find((n: { nodeId: string }) => n.nodeId === 'fleet-a');
    expect(a.lastError).toBe('revision 3: contentHash mismatch');
    expect(a.lastErrorAt).not.toBeNull();
    const { updateAgent } = await gqlOk(url, admin(), UPDATE, { input: { id: AGENT, expectedRevision: 3, description: 'healed' } });
    await until('node a applied it', () => nodes[0].current()?.revision === updateAgent.revision);
    fleet = await until('the error cleared', async () => {
      const f = (await gqlOk(url, admin(), FLEET, { id: AGENT })).fleet;
      return f.nodes.find((n: { nodeId: string; lastError: string | null }) => n.nodeId === 'fleet-a' && n.lastError === null)
        ? f
        : undefined;
    });
    expect(fleet.currentRevision).toBe(updateAgent.revision);
  });
});
