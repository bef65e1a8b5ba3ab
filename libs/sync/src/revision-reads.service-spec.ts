import { createConnection, createServer, type Socket } from 'node:net';
import { connectRedis, type RedisClient } from '@cp/common';
import { RevisionReads } from './revision-reads';

const config = { REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_NODES: undefined };
const ready = async (redis: RedisClient) => {
  while (redis.status !== 'ready') await new Promise((r) => setTimeout(r, 10));
};

/** A TCP proxy to a local port that delays what the server sends back by `ms`. */
async function delayingProxy(target: number, ms: number): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: target });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => (client.destroy(), upstream.destroy()));
    }
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => setTimeout(() => client.writable && client.write(chunk), ms));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** ADR 0195: the node bundle route's revision reads against the real Redis. */
describe.each([
  ['auto-pipelined', true],
  ['plain', false],
])('RevisionReads on a %s connection', (_name, autoPipelining) => {
  const prefix = `test:revision-reads:${process.pid}:${autoPipelining ? 'p' : 'n'}:`;
  let writer: RedisClient;
  let reads: RevisionReads;
  beforeAll(async () => {
    writer = connectRedis(config, 'revision-reads-writer');
    reads = new RevisionReads(connectRedis(config, 'revision-reads', { autoPipelining }));
    await ready(writer);
  });
  afterAll(async () => {
    const keys = await writer.keys(`${prefix}*`);
    if (keys.length > 0) await writer.del(...keys);
    await reads.close();
    writer.disconnect();
  });

  it('reads of one key arriving in one event-loop turn share one GET; other keys get their own', async () => {
    await writer.set(`${prefix}a`, '3|e');
    await writer.set(`${prefix}b`, '9|e');
    const before = { ...reads.stats };
    const values = await Promise.all([
      ...Array.from({ length: 20 }, () => reads.get(`${prefix}a`)),
      ...Array.from({ length: 5 }, () => reads.get(`${prefix}b`)),
      reads.get(`${prefix}missing`),
    ]);
    expect(values.slice(0, 20)).toEqual(Array(20).fill('3|e'));
    expect(values.slice(20, 25)).toEqual(Array(5).fill('9|e'));
    expect(values[25]).toBeNull();
    expect(reads.stats.reads - before.reads).toBe(26);
    expect(reads.stats.gets - before.gets).toBe(3);
  });

  it('a read that starts after a write has completed sees it, while a GET of the key issued before the write is in flight', async () => {
    // The reads' connection goes through a proxy that holds Redis's answers back 20 ms: a GET
    // issued before the SET is still on its way when the SET (direct) has answered. A read that
    // joined that GET would be answered with the old value.
    const proxy = await delayingProxy(6379, 20);
    const slow = new RevisionReads(
      connectRedis({ REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_CLUSTER_NODES: undefined }, 'revision-reads-slow', {
        autoPipelining,
      }),
    );
    const key = `${prefix}raced`;
    await writer.set(key, '0|e');
    let stop = false;
    let background = 0;
    const hammer = async () => {
      while (!stop) {
        await slow.get(key);
        background++;
      }
    };
    // Readers that never stop: at any moment a GET of the key is on its way.
    const hammers = Array.from({ length: 4 }, hammer);
    try {
      for (let revision = 1; revision <= 20; revision++) {
        await new Promise((r) => setTimeout(r, 5));
        await writer.set(key, `${revision}|e`);
        expect(await slow.get(key)).toBe(`${revision}|e`);
      }
    } finally {
      stop = true;
      await Promise.all(hammers);
      await slow.close();
      await proxy.close();
    }
    expect(background).toBeGreaterThan(20);
    // The point of it: fewer GETs than reads.
    expect(slow.stats.gets).toBeLessThan(slow.stats.reads);
  });

  it('without coalescing, each read is its own GET', async () => {
    const own = new RevisionReads(connectRedis(config, 'revision-reads-own', { autoPipelining }), false);
    try {
      await writer.set(`${prefix}c`, '1|e');
      expect(await Promise.all([own.get(`${prefix}c`), own.get(`${prefix}c`)])).toEqual(['1|e', '1|e']);
      expect(own.stats).toEqual({ reads: 2, gets: 2 });
    } finally {
      await own.close();
    }
  });
});

describe('RevisionReads with Redis away', () => {
  it('is not connected once its first attempt failed, and every read of a batch fails fast (no hang) instead of answering', async () => {
    // Nothing listens on port 1: the connection retries; commands fail after maxRetriesPerRequest.
    const client = connectRedis({ REDIS_URL: 'redis://127.0.0.1:1', REDIS_CLUSTER_NODES: undefined }, 'away');
    const reads = new RevisionReads(client);
    try {
      // A first connection still being made is waited for (a slow Redis is not away); a refused one is away.
      await new Promise<void>((resolve) => client.once('close', () => resolve()));
      expect(reads.connected()).toBe(false);
      const batch = [reads.get('k'), reads.get('k')];
      const settled = await Promise.allSettled(batch);
      expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    } finally {
      await reads.close();
    }
  }, 20_000);
});
