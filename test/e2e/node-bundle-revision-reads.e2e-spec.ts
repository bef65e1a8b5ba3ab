/**
 * ADR 0195: the node bundle route reads an agent's revision key on a pipelined Redis connection of
 * its own, concurrent revalidations of one agent sharing a GET. Against the booted control plane and
 * a private Redis the suite stops and starts: the connection is there (named), a burst of 304s
 * shares GETs, a revision published during a storm of revalidations is never answered with the old
 * bundle once the mutation has answered, and with Redis away the route sheds (503 + Retry-After),
 * then answers again once Redis is back.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import { mintAdminToken, mintNodeToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import { nodeApiPaths } from '@cp/node-protocol';
import { RevisionReads } from '@cp/sync';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { gqlOk } from '../support/graphql-client';
import { startPrivateRedis, type PrivateRedis } from '../support/redis-server';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { until } from '../support/until';

const AGENT = 'finance-agent';
const UPDATE = 'mutation($input: UpdateAgentInput!) { updateAgent(input: $input) { id revision } }';

describe('the node bundle route’s revision reads (ADR 0195)', () => {
  let redis: PrivateRedis;
  let db: TestDatabase;
  let config: AppConfig;
  let app: NestFastifyApplication;
  let url: string;
  let token: string;
  let revision = 1;

  const revalidate = (etag: string, timeoutMs = 10_000) =>
    fetch(`${url}${nodeApiPaths.bundle}`, {
      headers: { authorization: `Bearer ${token}`, 'if-none-match': etag },
      signal: AbortSignal.timeout(timeoutMs),
    });
  const currentEtag = async () => {
    const res = await fetch(`${url}${nodeApiPaths.bundle}`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    await res.text();
    return res.headers.get('etag')!;
  };

  beforeAll(async () => {
    redis = await startPrivateRedis();
    db = await createTestDatabase('bundle_revision_reads');
    config = testConfig({
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: `test:revision-reads:${process.pid}:`,
      SYNC_OUTBOX_INTERVAL_MS: '200',
      RETIREMENT_SCHEDULE_ENABLED: 'false',
    });
    ({ app, url } = await bootApp(AppModule, config));
    await seedWhenEmpty(app.get(PrismaService));
    token = mintNodeToken(config, AGENT);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await db?.drop();
    await redis?.stop();
  });

  it('reads on a connection of its own, and a burst of revalidations of one agent shares GETs', async () => {
    const probe = new Redis(redis.url);
    try {
      expect(await probe.client('LIST')).toMatch(/ name=cp-bundle-reads /);
    } finally {
      probe.disconnect();
    }
    const etag = await currentEtag();
    const reads = app.get(RevisionReads);
    const burst = async () => {
      const answers = await Promise.all(Array.from({ length: 50 }, () => revalidate(etag)));
      expect(answers.map((r) => r.status)).toEqual(Array(50).fill(304));
      expect(answers.every((r) => r.headers.get('etag') === etag)).toBe(true);
    };
    // The first burst opens the client's connections (one request each, as they connect).
    await burst();
    const before = { ...reads.stats };
    await burst();
    expect(reads.stats.reads - before.reads).toBe(50);
    expect(reads.stats.gets - before.gets).toBeLessThan(50);
  });

  it('a revision published during a storm of revalidations: once the mutation has answered, nobody gets the old 304', async () => {
    const old = await currentEtag();
    let stop = false;
    const statuses: number[] = [];
    const storm = async () => {
      while (!stop) {
        const res = await revalidate(old);
        await res.text();
        statuses.push(res.status);
      }
    };
    const nodes = Array.from({ length: 10 }, storm);
    try {
      await until('the storm to be under way', () => statuses.length > 50, 10_000);
      const admin = mintAdminToken(config, 'alice', ['platform-admin']);
      const { updateAgent } = await gqlOk(url, admin, UPDATE, {
        input: { id: AGENT, expectedRevision: revision, name: 'Finance Agent, revised' },
      });
      revision = updateAgent.revision as number;
      // The mutation answers after the commit and the raise of the revision key: from here on,
      // every revalidation with the old ETag gets the new bundle.
      const after = await Promise.all(Array.from({ length: 20 }, () => revalidate(old)));
      for (const res of after) {
        expect(res.status).toBe(200);
        expect(res.headers.get('etag')).toMatch(new RegExp(`^"r${revision}-`));
        await res.text();
      }
    } finally {
      stop = true;
      await Promise.all(nodes);
    }
    expect(statuses).toContain(304);
  }, 60_000);

  it('with Redis away it sheds at once (503 + Retry-After, never another 5xx), and answers 304 again once Redis is back', async () => {
    const etag = await currentEtag();
    expect((await revalidate(etag)).status).toBe(304);
    await redis.stop();
    for (let i = 0; i < 5; i++) {
      const away = await revalidate(etag);
      expect(away.status).toBe(503);
      expect(Number(away.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await away.json()) as { error: { code: string; message: string } }).error).toMatchObject({
        code: 'OVERLOADED',
        message: expect.stringContaining('Redis'),
      });
    }
    // A burst while away: every answer a 503, none a hang or another status.
    const burst = await Promise.all(Array.from({ length: 20 }, () => revalidate(etag)));
    expect(burst.map((r) => r.status)).toEqual(Array(20).fill(503));
    await redis.start();
    await until('304 again once Redis is back', async () => (await revalidate(etag)).status === 304, 30_000);
    expect(app.get(RevisionReads).connected()).toBe(true);
  }, 60_000);
});
