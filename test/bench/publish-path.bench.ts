/**
 * From a registry change to its PUBLISH (issue 30 goal 3, ADR 0365), three ways in alternating
 * rounds in one process, on the seeded finance agent:
 *  - prepared (the product): RegistryWriter.change reads the snapshot in its own transaction and
 *    the publisher builds and signs beside the COMMIT, then stores, raises and announces in one
 *    Redis call;
 *  - after commit (the path before ADR 0365, still the relay's): the same change with the
 *    publisher's `prepare` hidden, so after the commit it reads the held stamp, takes the lock,
 *    reads the snapshot in a second transaction, builds, signs, stores, computes the delta from
 *    Redis and announces;
 *  - floor: the same change with no listener (the transaction alone), then one PUBLISH.
 * Per change: ms from calling change() until a subscriber hears the announcement on the changes
 * channel (floor: the transaction's time plus its PUBLISH heard), and until change() returned.
 * Run: `npm run bench publish-path` (bench-runner: ts-app-runner: it boots Nest in-process, and
 * tsx emits no decorator metadata). Env: BENCH_CHANGES (40 per way), BENCH_WARMUP (5).
 * Its own database and private redis-server.
 */
import { performance } from 'node:perf_hooks';
import { Test } from '@nestjs/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import { AppConfigToken, createFastifyAdapter } from '@cp/common';
import { PrismaService, RegistryWriter, seedWhenEmpty } from '@cp/db';
import { parseChangeMessage, syncKeys } from '@cp/node-protocol';
import { RevisionPublisher } from '@cp/sync';
import { controlPlaneUnderTest } from '../support/control-plane-under-test';
import { testConfig } from '../support/config';
import { startPrivateRedis } from '../support/redis-server';
import { createTestDatabase } from '../support/test-database';

const AGENT = 'finance-agent';
const CHANGES = Number(process.env.BENCH_CHANGES ?? 40);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5);
type Way = 'prepared' | 'afterCommit' | 'floor';

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
};

async function main(): Promise<void> {
  const db = await createTestDatabase('bench_publish_path');
  const redis = await startPrivateRedis();
  const config = testConfig({ DATABASE_URL: db.url, REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'bench-publish:' });
  const ref = await Test.createTestingModule({ imports: [controlPlaneUnderTest({ sync: { outboxIntervalMs: 0 } })] })
    .overrideProvider(AppConfigToken)
    .useValue(config)
    .compile();
  const app = ref.createNestApplication<NestFastifyApplication>(createFastifyAdapter(config), { logger: false });
  await app.init();
  const listener = new Redis(redis.url);
  const commands = new Redis(redis.url);
  try {
    await seedWhenEmpty(app.get(PrismaService));
    const keys = syncKeys(config.REDIS_KEY_PREFIX, AGENT);
    const floorChannel = `${config.REDIS_KEY_PREFIX}floor`;
    const heard = new Map<string, () => void>();
    listener.on('message', (channel: string, message: string) => {
      const key = channel === floorChannel ? `floor:${message}` : `rev:${parseChangeMessage(message).stamp?.revision}`;
      heard.get(key)?.();
    });
    await listener.subscribe(keys.changes, floorChannel);
    const hear = (key: string) => new Promise<number>((resolve) => heard.set(key, () => resolve(performance.now())));
    const writer = app.get(RegistryWriter);
    const publisher: RevisionPublisher & Record<string, unknown> = app.get(RevisionPublisher);
    const prepare = publisher.prepare;
    const committed = publisher.revisionCommitted;
    let n = 0;
    const change = () =>
      writer.change({ agentId: AGENT, actor: 'bench', summary: 'describe the agent' }, async (tx) => {
        await tx.agent.update({ where: { id: AGENT }, data: { description: `Change number ${++n} of the bench.` } });
        return { result: undefined, audit: [] };
      });
    const round = async (way: Way): Promise<{ published: number; answered: number }> => {
      // Own properties shadow the prototype's methods: the writer sees the listener as it is asked to.
      publisher.prepare = way === 'prepared' ? prepare : (undefined as never);
      publisher.revisionCommitted = way === 'floor' ? async () => undefined : committed;
      const next = (await app.get(PrismaService).agent.findUniqueOrThrow({ where: { id: AGENT } })).revision + 1;
      const started = performance.now();
      if (way === 'floor') {
        await change();
        const sentAt = performance.now();
        const at = hear(`floor:${next}`);
        await commands.publish(floorChannel, String(next));
        const done = await at;
        // Untimed: announce it the ordinary way, so the next change has its base in Redis as after any other way.
        await committed.call(publisher, AGENT, next);
        return { published: done - started, answered: sentAt - started };
      }
      const at = hear(`rev:${next}`);
      await change();
      const answered = performance.now() - started;
      return { published: (await at) - started, answered };
    };
    const ways: Way[] = ['prepared', 'afterCommit', 'floor'];
    const results: Record<Way, { published: number[]; answered: number[] }> = {
      prepared: { published: [], answered: [] },
      afterCommit: { published: [], answered: [] },
      floor: { published: [], answered: [] },
    };
    for (let i = 0; i < WARMUP + CHANGES; i++) {
      // Alternating, and the order rotated, so no way always follows the same one.
      for (const way of ways.map((_, k) => ways[(k + i) % ways.length])) {
        const r = await round(way);
        if (i >= WARMUP) {
          results[way].published.push(r.published);
          results[way].answered.push(r.answered);
        }
      }
    }
    const floor = results.floor.published;
    console.log(`\nFrom change() to its announcement heard (ms; ${CHANGES} changes per way after ${WARMUP} warm-up, alternating)`);
    console.log('| way | to PUBLISH p50 | p99 | p50 / floor p50 | p99 / floor p99 | change() returned p50 |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const way of ways) {
      const { published, answered } = results[way];
      const p50 = quantile(published, 0.5);
      const p99 = quantile(published, 0.99);
      console.log(
        `| ${way} | ${p50.toFixed(1)} | ${p99.toFixed(1)} | ${(p50 / quantile(floor, 0.5)).toFixed(2)} | ${(p99 / quantile(floor, 0.99)).toFixed(2)} | ${quantile(answered, 0.5).toFixed(1)} |`,
      );
    }
    console.log(
      `publishes: ${JSON.stringify(publisher.stats)}; load average ${(await import('node:os'))
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    listener.disconnect();
    commands.disconnect();
    await app.close();
    await redis.stop();
    await db.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
