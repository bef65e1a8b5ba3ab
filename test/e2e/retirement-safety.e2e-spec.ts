import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { type TestingModule } from '@nestjs/testing';
import { getQueueToken } from '@nestjs/bullmq';
import { QueueEvents, type Queue } from 'bullmq';
import { Client } from 'pg';
import { type AppConfig } from '@cp/common';
import {
  bullConnection,
  bullPrefix,
  RETIREMENT_JOB,
  RETIREMENT_QUEUE,
  RETIREMENT_SCHEDULER_ID,
  RetirementService,
  type RetirementJobData,
} from '@cp/jobs';
import { RetirementWorkerModule } from '../../apps/worker/src/retirement/retirement-worker.module';
import { FixedClock } from '@cp/jobs/testing';
import { createAgent, createManifests, createNode, DAY_MS } from '../support/given-db';
import { bootWorkerJobs } from '../support/app-and-worker';
import { testConfig } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const ROOT = path.join(__dirname, '..', '..');
const NOW = new Date('2027-03-01T03:00:00.000Z');
const daysAgo = (d: number) => new Date(NOW.getTime() - d * DAY_MS);

describe('retirement is exactly once (two workers, a crash) and scheduled (BullMQ, real Redis)', () => {
  let db: TestDatabase;
  let pg: Client;
  let config: AppConfig;
  const workers: TestingModule[] = [];
  const clock = new FixedClock(NOW);

  /** A worker process's module: its own Prisma pool and its own BullMQ worker on the suite's prefix. */
  async function startWorker(overrides: Record<string, string> = {}): Promise<TestingModule> {
    const ref = await bootWorkerJobs(
      RetirementWorkerModule,
      {
        ...config,
        ...testConfig({
          DATABASE_URL: db.url,
          REDIS_KEY_PREFIX: config.REDIS_KEY_PREFIX,
          RETIREMENT_SCHEDULE_ENABLED: 'false',
          ...overrides,
        }),
      },
      clock,
    );
    workers.push(ref);
    return ref;
  }

  /** `agents` agents with `per` capabilities each that are due for retirement, served by a fully reporting node. */
  async function dueCapabilities(prefix: string, agents: number, per: number): Promise<string[]> {
    const ids: string[] = [];
    for (let a = 1; a <= agents; a++) {
      const agentId = `${prefix}-${a}`;
      await createAgent(pg, agentId);
      await createNode(pg, {
        id: `${agentId}-node`,
        agentId,
        registeredAt: daysAgo(100),
        lastSeenAt: NOW,
        coverage: { from: daysAgo(100), until: NOW },
      });
      const caps = Array.from({ length: per }, (_, i) => `cap-${String(i).padStart(3, '0')}`);
      await createManifests(
        pg,
        caps.map((capabilityId) => ({ agentId, capabilityId, state: 'deprecated' as const, deprecatedAt: daysAgo(40) })),
      );
      ids.push(...caps.map((c) => `${agentId}/${c}`));
    }
    return ids;
  }

  async function retirementFacts(prefix: string) {
    const audit = (
      await pg.query(
        `SELECT "agentId" || '/' || "targetId" AS id, count(*)::int AS n FROM "AuditEvent" WHERE actor = 'system:retirement' AND "agentId" LIKE $1 GROUP BY 1 ORDER BY 1`,
        [`${prefix}-%`],
      )
    ).rows;
    const removed = (
      await pg.query(
        `SELECT "agentId" || '/' || "capabilityId" AS id FROM "CapabilityManifest" WHERE state = 'removed' AND "agentId" LIKE $1 ORDER BY 1`,
        [`${prefix}-%`],
      )
    ).rows.map((r) => r.id);
    const revisions = (
      await pg.query(
        `SELECT "agentId", count(*)::int AS n FROM "RegistryRevision" WHERE actor = 'system:retirement' AND "agentId" LIKE $1 GROUP BY 1 ORDER BY 1`,
        [`${prefix}-%`],
      )
    ).rows;
    return { audit, removed, revisions };
  }

  function expectExactlyOnce(facts: Awaited<ReturnType<typeof retirementFacts>>, ids: string[], agents: number) {
    expect(facts.removed).toEqual([...ids].sort());
    expect(facts.audit).toEqual([...ids].sort().map((id) => ({ id, n: 1 })));
    // One retirement revision per agent: a run that found nothing left rolled back its change.
    expect(facts.revisions.map((r: { n: number }) => r.n)).toEqual(Array(agents).fill(1));
  }

  beforeAll(async () => {
    db = await createTestDatabase('retirement_safety');
    config = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: `test-retire-${randomBytes(4).toString('hex')}:` });
    pg = new Client({ connectionString: db.url });
    await pg.connect();
  });
  afterAll(async () => {
    const queue = workers[0]?.get<Queue>(getQueueToken(RETIREMENT_QUEUE));
    await queue?.obliterate({ force: true });
    for (const ref of workers) await ref.close();
    await pg.end();
    await db.drop();
  });

  it('two runs at once (two processes, own pools) retire each capability once, with one audit event', async () => {
    const ids = await dueCapabilities('race', 8, 25);
    const [w1, w2] = [await startWorker(), await startWorker()];
    // Hold the agents' rows so that BOTH runs have planned (everything eligible) before either
    // retires anything: the second then meets capabilities the first already removed.
    const blocker = new Client({ connectionString: db.url });
    await blocker.connect();
    await blocker.query(`BEGIN; SELECT id FROM "Agent" WHERE id LIKE 'race-%' FOR UPDATE`);
    const pending = Promise.all([
      w1.get(RetirementService).run({ trigger: 'manual' }),
      w2.get(RetirementService).run({ trigger: 'manual' }),
    ]);
    const waiting = async () =>
      (
        await pg.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND query LIKE '%UPDATE "Agent"%'`,
          [db.name],
        )
      ).rows[0].n;
    for (let i = 0; i < 200 && (await waiting()) < 2; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(await waiting()).toBe(2);
    await blocker.query('COMMIT');
    await blocker.end();
    const runs = await pending;
    expect(runs.map((r) => r!.status)).toEqual(['succeeded', 'succeeded']);
    // Between them the runs retired everything once: no capability in both lists.
    const retired = runs.flatMap((r) => r!.retired.map((c) => `${c.agentId}/${c.capabilityId}`));
    expect(retired.sort()).toEqual([...ids].sort());
    expectExactlyOnce(await retirementFacts('race'), ids, 8);
  });

  it('two BullMQ workers processing two queued runs at once retire each capability once', async () => {
    const ids = await dueCapabilities('queued', 6, 30);
    const [w1] = workers;
    const queue = w1.get<Queue<RetirementJobData>>(getQueueToken(RETIREMENT_QUEUE));
    const events = new QueueEvents(RETIREMENT_QUEUE, { connection: bullConnection(config), prefix: bullPrefix(config) });
    try {
      await events.waitUntilReady();
      const service = w1.get(RetirementService);
      const records = [await service.queue('alice'), await service.queue('bob')];
      const jobs = await Promise.all(
        records.map((r) =>
          queue.add(RETIREMENT_JOB, { trigger: 'manual', runId: r.id, requestedBy: r.requestedBy ?? undefined }, { jobId: r.id }),
        ),
      );
      const results = await Promise.all(jobs.map((job) => job.waitUntilFinished(events, 20_000)));
      expect(results.map((r) => r.runId).sort()).toEqual(records.map((r) => r.id).sort());
      const finished = await Promise.all(records.map((r) => service.findRun(r.id)));
      expect(finished.map((r) => r!.status)).toEqual(['succeeded', 'succeeded']);
      expect(finished.reduce((n, r) => n + r!.retiredCount, 0)).toBe(ids.length);
      expectExactlyOnce(await retirementFacts('queued'), ids, 6);
    } finally {
      await events.close();
    }
  });

  it('a run killed mid-way (SIGKILL after the first agent committed), then rerun, still retires each capability once', async () => {
    const ids = await dueCapabilities('crash', 3, 20);
    const runId = randomUUID();
    const child = spawnSync(process.execPath, ['--import', 'tsx', 'libs/jobs/src/testing/crash-mid-run.ts', NOW.toISOString(), runId], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'silent', NODE_ENV: 'test' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    // In-process (node --import tsx, not the tsx CLI, which would wrap it in a second process).
    expect({ signal: child.signal, stderr: child.stderr.slice(0, 2000) }).toEqual({ signal: 'SIGKILL', stderr: '' });
    expect(child.stdout).toMatch(/^committed crash-1@2\n$/);
    // The crash left the first agent done, the others untouched, and the run "running".
    const mid = await retirementFacts('crash');
    expect(mid.removed).toEqual(ids.filter((id) => id.startsWith('crash-1/')));
    expect(mid.audit).toHaveLength(20);
    const service = workers[0].get(RetirementService);
    expect((await service.findRun(runId))!.status).toBe('running');

    // The queue redelivers the stalled job: the same run id runs again.
    const rerun = await service.run({ trigger: 'manual', runId });
    expect(rerun).toMatchObject({ id: runId, status: 'succeeded', retiredCount: 40 });
    expectExactlyOnce(await retirementFacts('crash'), ids, 3);
  });

  it('schedules the repeatable job (one scheduler, upserted by id) and runs it on schedule', async () => {
    const scheduled = await startWorker({ RETIREMENT_SCHEDULE_ENABLED: 'true', RETIREMENT_CRON: '0 3 * * *' });
    const queue = scheduled.get<Queue>(getQueueToken(RETIREMENT_QUEUE));
    expect(await queue.getJobSchedulers()).toEqual([
      expect.objectContaining({ key: RETIREMENT_SCHEDULER_ID, pattern: '0 3 * * *', tz: 'UTC', name: RETIREMENT_JOB }),
    ]);

    // Another worker booting with a different cron replaces it, it does not add a second one.
    await startWorker({ RETIREMENT_SCHEDULE_ENABLED: 'true', RETIREMENT_CRON: '* * * * * *' });
    const schedulers = await queue.getJobSchedulers();
    expect(schedulers).toHaveLength(1);
    expect(schedulers[0]).toMatchObject({ key: RETIREMENT_SCHEDULER_ID, pattern: '* * * * * *' });

    const service = scheduled.get(RetirementService);
    const deadline = Date.now() + 15_000;
    let ran = false;
    while (!ran && Date.now() < deadline) {
      ran = (await service.latestRuns(20)).some((r) => r.trigger === 'schedule' && r.status === 'succeeded');
      if (!ran) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(ran).toBe(true);
    await queue.removeJobScheduler(RETIREMENT_SCHEDULER_ID);
  });
});
