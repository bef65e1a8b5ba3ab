/**
 * Benchmark of a retirement run (issue 7): 100,000 manifests over 100 agents, 20,000 of them
 * deprecated 60 days ago with 45 days of usage history each; half of those were also called
 * inside the 30-day window (skipped), half not (retired: 10,000 per run).
 * Run: npx tsx test/bench/retirement.bench.ts   (needs PostgreSQL on 127.0.0.1:5432; makes and drops its own database)
 *
 * Interleaved in one process, on the same data reset between runs:
 *  - product: RetirementService.run (set-based load, the pure rule per agent, one registry change
 *    per agent = revision + outbox + one UPDATE ... RETURNING + one audit event per capability,
 *    the run record);
 *  - plan only: RetirementPlanner.planAll (the reads and the rule, no writes);
 *  - bare baseline: ONE plain UPDATE with NOT EXISTS over the usage buckets, no coverage check,
 *    no revision, no audit, no run record.
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { loadConfig } from '@cp/common';
import { migrate, PrismaService, RegistryWriter } from '@cp/db';
import { RetirementPlanner, RetirementRepository, RetirementRunsRepository, RetirementService } from '@cp/jobs';
import { FixedClock } from '@cp/jobs/testing';
import { createAgents, createManifestGrid, createNodes, DAY_MS } from '../support/given-sql';

const AGENTS = 100;
const PER_AGENT = 1_000;
const DEPRECATED_PER_AGENT = 200;
const HISTORY_DAYS = 45;
const ROUNDS = 5;
const ADMIN_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';

async function seed(pg: Client, now: Date): Promise<void> {
  const at = now.toISOString();
  const agents = Array.from({ length: AGENTS }, (_, a) => `agent-${String(a + 1).padStart(3, '0')}`);
  await createAgents(pg, agents, 'bench-team');
  // Capability i of each agent: the first DEPRECATED_PER_AGENT are deprecated 60 days ago, the rest ga.
  await createManifestGrid(pg, {
    agentIds: agents,
    perAgent: PER_AGENT,
    idWidth: 4,
    skill: { name: 'cap {i}', description: 'a benchmark capability', tags: [] },
    handler: 'h.{i}',
    deprecated: DEPRECATED_PER_AGENT,
    deprecatedAt: new Date(now.getTime() - 60 * DAY_MS),
    teamId: 'bench-team',
  });
  // Two nodes per agent, both reporting every window for the last 100 days.
  const since = new Date(now.getTime() - 100 * DAY_MS);
  await createNodes(
    pg,
    agents.flatMap((agent) =>
      [1, 2].map((n) => ({
        id: `${agent}-n${n}`,
        agentId: agent,
        registeredAt: since,
        lastSeenAt: now,
        coverage: { from: since, until: new Date(now.getTime() - 60_000) },
      })),
    ),
  );
  // Usage history, left in SQL: 900,000 rows cross-joined in the database, where addUsage would ship them as parameter arrays.
  // Every deprecated capability was called daily from 75 to 31 days ago...
  await pg.query(
    `INSERT INTO "UsageBucket" ("agentId", "capabilityId", "tenantId", "nodeId", day, count, "lastCallAt")
     SELECT m."agentId", m."capabilityId", 'tenant-a', m."agentId" || '-n' || (1 + d % 2), ($1::timestamp - make_interval(days => d))::date, 3,
            $1::timestamp - make_interval(days => d)
       FROM "CapabilityManifest" m, generate_series(31, 30 + $2::int) d
      WHERE m.state = 'deprecated'`,
    [at, HISTORY_DAYS],
  );
  // ...and the even-numbered half is still called inside the window (so it is skipped).
  await pg.query(
    `INSERT INTO "UsageBucket" ("agentId", "capabilityId", "tenantId", "nodeId", day, count, "lastCallAt")
     SELECT m."agentId", m."capabilityId", 'tenant-a', m."agentId" || '-n1', ($1::timestamp - make_interval(days => d))::date, 1,
            $1::timestamp - make_interval(days => d)
       FROM "CapabilityManifest" m, generate_series(1, 25, 6) d
      WHERE m.state = 'deprecated' AND right(m."capabilityId", 1)::int % 2 = 0`,
    [at],
  );
  await pg.query('VACUUM ANALYZE');
}

async function reset(pg: Client): Promise<void> {
  await pg.query(`UPDATE "CapabilityManifest" SET state = 'deprecated', "removedAt" = NULL WHERE state = 'removed'`);
  await pg.query(`DELETE FROM "AuditEvent" WHERE actor = 'system:retirement'`);
  await pg.query('VACUUM ANALYZE "CapabilityManifest"');
}

async function baseline(pg: Client, now: Date): Promise<number> {
  const since = new Date(now.getTime() - 30 * 86_400_000);
  const res = await pg.query(
    `UPDATE "CapabilityManifest" m SET state = 'removed', "removedAt" = $1::timestamp, "updatedAt" = $1::timestamp
      WHERE m.state = 'deprecated' AND m."deprecatedAt" <= $2::timestamp
        AND NOT EXISTS (SELECT 1 FROM "UsageBucket" b
                         WHERE b."agentId" = m."agentId" AND b."capabilityId" = m."capabilityId"
                           AND b.day >= $3::date AND b."lastCallAt" >= $2::timestamp AND b.count > 0)`,
    [now.toISOString(), since.toISOString(), since.toISOString().slice(0, 10)],
  );
  return res.rowCount ?? 0;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function main(): Promise<void> {
  const name = `cp_bench_retirement_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = ADMIN_URL.replace(/\/postgres$/, `/${name}`);
  const pg = new Client({ connectionString: url });
  let prisma: PrismaService | undefined;
  try {
    await migrate(url);
    await pg.connect();
    const now = new Date();
    let t = performance.now();
    await seed(pg, now);
    const counts = (
      await pg.query(
        `SELECT (SELECT count(*) FROM "CapabilityManifest")::int AS manifests, (SELECT count(*) FROM "CapabilityManifest" WHERE state = 'deprecated')::int AS deprecated, (SELECT count(*) FROM "UsageBucket")::int AS buckets`,
      )
    ).rows[0];
    console.log(
      `seeded ${counts.manifests} manifests (${counts.deprecated} deprecated), ${counts.buckets} usage buckets, ${AGENTS * 2} nodes in ${fmt(performance.now() - t)}`,
    );

    const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' });
    prisma = new PrismaService(config);
    const repository = new RetirementRepository(prisma);
    const planner = new RetirementPlanner(repository, config);
    const service = new RetirementService(
      planner,
      repository,
      new RetirementRunsRepository(prisma),
      new RegistryWriter(prisma, []),
      new FixedClock(now),
    );

    const product: number[] = [];
    const plan: number[] = [];
    const bare: number[] = [];
    let retired = 0;
    let bareRetired = 0;
    let audit = 0;
    for (let round = 0; round <= ROUNDS; round++) {
      // Round 0 warms up (JIT, Prisma's first queries, PostgreSQL caches) and is not counted.
      await reset(pg);
      t = performance.now();
      bareRetired = await baseline(pg, now);
      const bareMs = performance.now() - t;
      await reset(pg);
      t = performance.now();
      const plans = await planner.planAll(now);
      const planMs = performance.now() - t;
      if (plans.reduce((n, p) => n + p.plan.retire.length, 0) !== bareRetired)
        throw new Error('plan and baseline disagree on what is eligible');
      t = performance.now();
      const run = await service.run({ trigger: 'manual' });
      const productMs = performance.now() - t;
      retired = run!.retiredCount;
      audit = (await pg.query(`SELECT count(*)::int AS n FROM "AuditEvent" WHERE actor = 'system:retirement'`)).rows[0].n;
      if (run!.status !== 'succeeded' || audit !== retired)
        throw new Error(`run ${run!.status}: ${retired} retired, ${audit} audit events`);
      if (round > 0) {
        bare.push(bareMs);
        plan.push(planMs);
        product.push(productMs);
      }
      console.log(`round ${round}${round === 0 ? ' (warm-up)' : ''}: baseline ${fmt(bareMs)}, plan ${fmt(planMs)}, run ${fmt(productMs)}`);
    }
    console.log(
      `\neach run retires ${retired} capabilities (${audit} audit events, ${AGENTS} revisions) and skips ${counts.deprecated - retired}; baseline retires ${bareRetired}`,
    );
    console.log('| measure | median | min | max | ratio to baseline (median) |');
    console.log('|---|---:|---:|---:|---:|');
    for (const [label, xs] of [
      ['bare baseline (one UPDATE, no bookkeeping)', bare],
      ['plan only (set-based reads + pure rule)', plan],
      ['retirement run (product)', product],
    ] as const) {
      console.log(
        `| ${label} | ${fmt(median(xs))} | ${fmt(Math.min(...xs))} | ${fmt(Math.max(...xs))} | ${(median(xs) / median(bare)).toFixed(2)}× |`,
      );
    }
  } finally {
    await prisma?.$disconnect();
    await pg.end().catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
