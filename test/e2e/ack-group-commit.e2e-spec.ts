/**
 * Acks are written in batches (ADR 0191): a fleet acking at once gets every row written, each
 * request answers after its own row is committed, an ack of a deleted agent is still refused on
 * its own, and the inventories' unservable lists follow the acks as they did one by one.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mintNodeToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { AckWriter } from '../../apps/control-plane/src/node-api/ack-writer';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const AGENT = 'finance-agent';
const hash = (i: number) => i.toString(16).padStart(64, '0');

describe('acks written in batches', () => {
  let db: TestDatabase;
  let config: AppConfig;
  let app: NestFastifyApplication;
  let url: string;
  let prisma: PrismaService;
  const post = (path: string, body: unknown, agentId = AGENT) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${mintNodeToken(config, agentId)}` },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    db = await createTestDatabase('ack_group_commit');
    config = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: `test:ack-batch:${process.pid}:` });
    ({ app, url } = await bootApp(AppModule, config));
    prisma = app.get(PrismaService);
    await seedWhenEmpty(prisma);
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  it('200 nodes acking at once: every ack answers 204 after its row is written, in fewer statements than acks', async () => {
    const writer = app.get(AckWriter);
    const before = { ...writer.stats };
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => post('/node/v1/ack', { nodeId: `batch-${i}`, revision: 1 + (i % 3), servedHash: hash(i) })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(200).fill(204));
    const rows = await prisma.node.findMany({ where: { agentId: AGENT, id: { startsWith: 'batch-' } } });
    expect(rows).toHaveLength(200);
    for (const row of rows) {
      const i = Number(row.id.slice('batch-'.length));
      expect(row).toMatchObject({ appliedRevision: 1 + (i % 3), servedHash: hash(i), lastError: null, lastErrorAt: null });
    }
    expect(writer.stats.rows - before.rows).toBe(200);
    expect(writer.stats.batches - before.batches).toBeLessThan(200);
  });

  it('a good ack clears the node’s refusal, and two acks of one node at once leave one of them', async () => {
    expect((await post('/node/v1/ack', { nodeId: 'batch-0', revision: 5, error: 'contentHash mismatch' })).status).toBe(204);
    expect(await prisma.node.findUniqueOrThrow({ where: { agentId_id: { agentId: AGENT, id: 'batch-0' } } })).toMatchObject({
      lastError: 'revision 5: contentHash mismatch',
    });
    const answers = await Promise.all([
      post('/node/v1/ack', { nodeId: 'batch-0', revision: 6, servedHash: hash(6) }),
      post('/node/v1/ack', { nodeId: 'batch-0', revision: 7, servedHash: hash(7) }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([204, 204]);
    const row = await prisma.node.findUniqueOrThrow({ where: { agentId_id: { agentId: AGENT, id: 'batch-0' } } });
    expect([6, 7]).toContain(row.appliedRevision);
    expect(row.servedHash).toBe(hash(row.appliedRevision!));
    expect(row).toMatchObject({ lastError: null, lastErrorAt: null });
  });

  it('an ack for an agent that does not exist is refused alone; the acks beside it are written', async () => {
    const [gone, ...good] = await Promise.all([
      post('/node/v1/ack', { nodeId: 'ghost', revision: 1, servedHash: hash(1) }, 'no-such-agent'),
      ...Array.from({ length: 20 }, (_, i) => post('/node/v1/ack', { nodeId: `beside-${i}`, revision: 2, servedHash: hash(2) })),
    ]);
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { error: { code: string } }).error.code).toBe('AGENT_NOT_FOUND');
    expect(good.map((a) => a.status)).toEqual(Array(20).fill(204));
    expect(await prisma.node.count({ where: { agentId: AGENT, id: { startsWith: 'beside-' }, appliedRevision: 2 } })).toBe(20);
    expect(await prisma.node.count({ where: { id: 'ghost' } })).toBe(0);
  });

  it('what a node reports it cannot serve reaches its inventory (deduplicated, sorted), and [] clears it', async () => {
    const handlers = [{ id: 'finance.v1.lookup_invoice', limits: {}, outputModes: ['application/json'] }];
    expect((await post('/node/v1/register', { nodeId: 'inv-1', handlers })).status).toBe(204);
    expect((await post('/node/v1/register', { nodeId: 'inv-2', handlers })).status).toBe(204);
    const answers = await Promise.all([
      post('/node/v1/ack', { nodeId: 'inv-1', revision: 4, servedHash: hash(4), unservable: ['zeta', 'alpha', 'zeta'] }),
      post('/node/v1/ack', { nodeId: 'inv-2', revision: 4, servedHash: hash(4), unservable: ['beta'] }),
      post('/node/v1/ack', { nodeId: 'inv-3', revision: 4, servedHash: hash(4), unservable: ['gamma'] }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([204, 204, 204]);
    const inventory = async (nodeId: string) =>
      prisma.nodeInventory.findUnique({
        where: { agentId_nodeId: { agentId: AGENT, nodeId } },
        select: { unservable: true, unservableRevision: true },
      });
    expect(await inventory('inv-1')).toEqual({ unservable: ['alpha', 'zeta'], unservableRevision: 4 });
    expect(await inventory('inv-2')).toEqual({ unservable: ['beta'], unservableRevision: 4 });
    // No inventory (a node that never reported handlers): nothing is created for it.
    expect(await inventory('inv-3')).toBeNull();
    expect((await post('/node/v1/ack', { nodeId: 'inv-1', revision: 5, servedHash: hash(5), unservable: [] })).status).toBe(204);
    expect(await inventory('inv-1')).toEqual({ unservable: [], unservableRevision: 5 });
  });

  it('an ack without a report leaves the inventory as it was; beside a refused ack (written row by row) a report still lands', async () => {
    const handlers = [{ id: 'finance.v1.lookup_invoice', limits: {}, outputModes: ['application/json'] }];
    expect((await post('/node/v1/register', { nodeId: 'inv-4', handlers })).status).toBe(204);
    const inventory = async (nodeId: string) =>
      prisma.nodeInventory.findUnique({
        where: { agentId_nodeId: { agentId: AGENT, nodeId } },
        select: { unservable: true, unservableRevision: true },
      });
    expect((await post('/node/v1/ack', { nodeId: 'inv-4', revision: 6, servedHash: hash(6), unservable: ['delta'] })).status).toBe(204);
    expect((await post('/node/v1/ack', { nodeId: 'inv-4', revision: 7, servedHash: hash(7) })).status).toBe(204);
    expect(await inventory('inv-4')).toEqual({ unservable: ['delta'], unservableRevision: 6 });
    // The ghost's foreign-key violation fails the batch: each ack is then written on its own.
    const [gone, good] = await Promise.all([
      post('/node/v1/ack', { nodeId: 'ghost-2', revision: 1, servedHash: hash(1) }, 'no-such-agent'),
      post('/node/v1/ack', { nodeId: 'inv-4', revision: 8, servedHash: hash(8), unservable: ['omega', 'epsilon'] }),
    ]);
    expect([gone.status, good.status]).toEqual([404, 204]);
    expect(await inventory('inv-4')).toEqual({ unservable: ['epsilon', 'omega'], unservableRevision: 8 });
    expect(
      await prisma.node.findUnique({ where: { agentId_id: { agentId: AGENT, id: 'inv-4' } }, select: { appliedRevision: true } }),
    ).toEqual({
      appliedRevision: 8,
    });
  });
});
