/**
 * Issue 11, item 9: node ids are keyed per agent. Another agent's node token registering a
 * victim's predictable `hostname:port` id first must not push the victim out of its fleet, its
 * usage coverage or retirement's view of it; no answer names another agent; and a node whose
 * registration is refused is not healthy, with the reason.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { mintAdminToken, mintNodeToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import { RetirementRepository } from '@cp/jobs';
import { NodeSync, nodeSyncHealthCheck, type NodeSyncOptions } from '@cp/node-sdk';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { createAgent, createManifests } from '../support/given-db';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { gqlOk } from '../support/graphql-client';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { until } from '../support/until';

const VICTIM = 'finance-agent';
const ATTACKER = 'squatter-agent';
const PREDICTABLE_ID = 'finance-host:3002';
const FLEET = `query($id: ID!) { fleet(agentId: $id) { nodes { nodeId hostname } } }`;

describe('node ids are per agent: a squatter cannot take a victim node id', () => {
  let db: TestDatabase;
  let config: AppConfig;
  let app: NestFastifyApplication;
  let url: string;
  let pg: Client;
  let dir: string;
  const syncs: NodeSync[] = [];
  const admin = () => mintAdminToken(config, 'alice', ['platform-admin']);

  const post = async (path: string, agentId: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${mintNodeToken(config, agentId)}` },
      body: JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  };
  const options = (over: Partial<NodeSyncOptions>): NodeSyncOptions => ({
    controlPlaneUrl: url,
    nodeToken: mintNodeToken(config, VICTIM),
    agentId: VICTIM,
    nodeId: PREDICTABLE_ID,
    hostname: 'finance-host',
    cacheDir: join(dir, randomUUID()),
    pollIntervalMs: 60_000,
    heartbeatIntervalMs: 60_000,
    ...over,
  });
  const start = async (over: Partial<NodeSyncOptions>) => {
    const sync = new NodeSync(options(over));
    syncs.push(sync);
    await sync.start();
    return sync;
  };

  beforeAll(async () => {
    db = await createTestDatabase('sec_node_ids');
    config = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: `test:sec-node-ids:${process.pid}:` });
    ({ app, url } = await bootApp(AppModule, config));
    await seedWhenEmpty(app.get(PrismaService));
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    await createAgent(pg, ATTACKER);
    await createManifests(pg, [{ agentId: ATTACKER, capabilityId: 'squat', state: 'ga' }]);
    dir = await mkdtemp(join(tmpdir(), 'sec-node-ids-'));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(syncs.map((s) => s.stop()));
    await pg?.end();
    await app?.close();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the victim registers, heartbeats, acks and reports usage under the id the squatter took first', async () => {
    const squat = await post('/node/v1/register', ATTACKER, { nodeId: PREDICTABLE_ID, hostname: 'evil' });
    expect(squat.status).toBe(204);

    const victim = await start({});
    expect(victim.status().registration).toEqual({ ok: true, refused: false, error: null });
    await victim.whenReady();
    // Its own ack of revision 1 lands now, not within ackSpreadMs (ADR 0280) after the refusal
    // below or during the next test's before/after comparison.
    await victim.settle();
    await expect(nodeSyncHealthCheck(victim)()).resolves.toBeUndefined();

    for (const [path, body] of [
      ['/node/v1/heartbeat', { nodeId: PREDICTABLE_ID }],
      ['/node/v1/ack', { nodeId: PREDICTABLE_ID, revision: 1, error: 'test refusal' }],
    ] as const) {
      expect((await post(path, VICTIM, body)).status).toBe(204);
    }
    const usage = await post('/node/v1/usage', VICTIM, {
      nodeId: PREDICTABLE_ID,
      batchId: randomUUID(),
      windowStart: new Date(Date.now() - 60_000).toISOString(),
      windowEnd: new Date().toISOString(),
      counts: [{ capabilityId: 'invoice-lookup', tenant: 'anonymous', count: 2, lastCallAt: new Date(Date.now() - 1000).toISOString() }],
    });
    expect(usage.status).toBe(202);

    // Each fleet shows its own node under the shared id, with its own hostname.
    const victimFleet = (await gqlOk(url, admin(), FLEET, { id: VICTIM })).fleet;
    expect(victimFleet.nodes).toEqual([{ nodeId: PREDICTABLE_ID, hostname: 'finance-host' }]);
    const attackerFleet = (await gqlOk(url, admin(), FLEET, { id: ATTACKER })).fleet;
    expect(attackerFleet.nodes).toEqual([{ nodeId: PREDICTABLE_ID, hostname: 'evil' }]);

    // Usage coverage and retirement see the victim's node under the victim's agent.
    const coverage = await pg.query(`SELECT "agentId" FROM "NodeUsageCoverage" WHERE "nodeId" = $1`, [PREDICTABLE_ID]);
    expect(coverage.rows).toEqual([{ agentId: VICTIM }]);
    const [inputs] = await app.get(RetirementRepository).loadInputs(new Date(Date.now() - 86_400_000), VICTIM);
    expect(inputs.nodes.map((n) => ({ nodeId: n.nodeId, covered: n.coverage !== null, used: n.usedInWindow }))).toEqual([
      { nodeId: PREDICTABLE_ID, covered: true, used: true },
    ]);
    const [theirs] = await app.get(RetirementRepository).loadInputs(new Date(Date.now() - 86_400_000), ATTACKER);
    expect(theirs.nodes.map((n) => ({ nodeId: n.nodeId, covered: n.coverage !== null, used: n.usedInWindow }))).toEqual([
      { nodeId: PREDICTABLE_ID, covered: false, used: false },
    ]);
  });

  it('nothing the squatter does with the shared id touches the victim node, and no answer names the victim', async () => {
    // The victim registers this one first; the squatter comes second.
    expect((await post('/node/v1/register', VICTIM, { nodeId: 'finance-host:3003' })).status).toBe(204);
    const before = (await pg.query(`SELECT * FROM "Node" WHERE "agentId" = $1 ORDER BY id`, [VICTIM])).rows;
    const answers = [
      await post('/node/v1/usage', ATTACKER, {
        nodeId: 'finance-host:3003',
        batchId: randomUUID(),
        windowStart: new Date(Date.now() - 60_000).toISOString(),
        windowEnd: new Date().toISOString(),
        counts: [],
      }),
      await post('/node/v1/register', ATTACKER, { nodeId: PREDICTABLE_ID, hostname: 'evil-2' }),
      await post('/node/v1/heartbeat', ATTACKER, { nodeId: PREDICTABLE_ID }),
      await post('/node/v1/ack', ATTACKER, { nodeId: PREDICTABLE_ID, revision: 99, servedHash: 'a'.repeat(64) }),
      await post('/node/v1/usage', ATTACKER, {
        nodeId: PREDICTABLE_ID,
        batchId: randomUUID(),
        windowStart: new Date(Date.now() - 60_000).toISOString(),
        windowEnd: new Date().toISOString(),
        counts: [{ capabilityId: 'invoice-lookup', tenant: 'anonymous', count: 1, lastCallAt: new Date().toISOString() }],
      }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBeLessThan(500);
      expect(answer.text).not.toContain(VICTIM);
    }
    expect((await pg.query(`SELECT * FROM "Node" WHERE "agentId" = $1 ORDER BY id`, [VICTIM])).rows).toEqual(before);
  });

  it('a node whose registration is refused is not healthy, and says why', async () => {
    const ghost = await start({ nodeToken: mintNodeToken(config, 'ghost-agent'), agentId: 'ghost-agent', nodeId: 'ghost:1' });
    expect(ghost.status().registration.ok).toBe(false);
    expect(ghost.status().registration.error).toMatch(/register.*404/);
    await expect(nodeSyncHealthCheck(ghost)()).rejects.toThrow(/not registered.*404/);

    // A node that serves from its disk copy but cannot register is not healthy either.
    // (An invalid node id no longer gets this far: NodeSync refuses it at construction, with the
    // control plane's own rule from @cp/node-protocol. A hostname with a control character does.)
    expect(() => new NodeSync(options({ nodeId: 'has spaces' }))).toThrow(/nodeId "has spaces" must be/);
    const badId = await start({ nodeId: 'bad-host:1', hostname: 'bad\u0007host' });
    await until('a bundle applied', () => badId.current());
    expect(badId.status().registration).toEqual({ ok: false, refused: true, error: expect.stringMatching(/400.*\$\.hostname/) });
    await expect(nodeSyncHealthCheck(badId)()).rejects.toThrow(/not registered/);
  });
});
