/**
 * Registry scale (issue 18): 1,000 agents × 100 manifests (100,000), 10 of each agent's deprecated
 * 60 days ago and never called since (10,000 due for retirement), one node per agent reporting.
 * Run: node test/support/ts-app-runner.cjs test/bench/registry-scale.bench.ts (or `npm run bench
 * registry-scale`; bench-runner: ts-app-runner, since it boots Nest in-process and tsx emits no
 * decorator metadata). PostgreSQL and Redis on the machine; makes and drops its own database, uses
 * its own Redis key prefix.
 *
 * The control plane's AppModule runs in this process (its RegistryWriter announces through the
 * real publisher), and each measure runs interleaved with a bare baseline doing the same work:
 *  1. projection rebuild after a change: product = RegistryWriter.change (revision, outbox row,
 *     audit) and then what every change costs after its commit: the agent's node bundle rebuilt
 *     from PostgreSQL (every projection of every entitlement class), cached in Redis, announced.
 *     Baseline = one pg transaction bumping the revision and writing the outbox row, one SELECT of
 *     the agent's manifests, JSON.stringify + sha256 of them, one Redis HSET and one PUBLISH.
 *  2. admin list latency: the GraphQL `manifests(filter: {agentId}, page: {first: 100})` with usage
 *     over HTTP, sequential requests; baseline = a bare node:http server in this process answering
 *     the same page with the same two SQL statements through pg and JSON.stringify.
 *  3. retirement run: RetirementService.run over the whole registry (1,000 agents to change, each
 *     change announced, i.e. its bundle rebuilt); baseline = one plain UPDATE retiring the same rows.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import { Client, Pool } from 'pg';
import { mintAdminToken } from '@cp/auth';
import { loadConfig } from '@cp/common';
import { migrate, RegistryWriter } from '@cp/db';
import { RetirementService } from '@cp/jobs';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from '../support/boot';
import { createAgents, createManifestGrid, createNodes, DAY_MS } from '../support/given-sql';

const AGENTS = 1_000;
const PER_AGENT = 100;
const DUE_PER_AGENT = 10;
const CHANGES = 150;
const LIST_REQUESTS = 150;
const RETIREMENT_ROUNDS = 2;
const ADMIN_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';
const agentId = (a: number) => `agent-${String(a).padStart(4, '0')}`;

const PAGE_SQL = `SELECT m."agentId", m."capabilityId", m.state, m.visibility, m.skill
  FROM "CapabilityManifest" m JOIN "Agent" a ON a.id = m."agentId"
 WHERE m."agentId" = $1 ORDER BY m."agentId", m."capabilityId" LIMIT 101`;
const USAGE_SQL = `SELECT "capabilityId", SUM(count)::bigint AS calls, MAX("lastCallAt") AS "lastCallAt"
  FROM "UsageBucket" WHERE "agentId" = $1 AND "capabilityId" = ANY($2::text[]) GROUP BY "capabilityId"`;
const QUERY = `query($agentId: String!) { manifests(filter: {agentId: $agentId}, page: {first: 100}) {
  nodes { id state visibility skill { name } usage { calls lastCallAt } } pageInfo { hasNextPage endCursor } } }`;

async function seed(pg: Client, now: Date): Promise<void> {
  const at = now.toISOString();
  const agents = Array.from({ length: AGENTS }, (_, a) => agentId(a + 1));
  await createAgents(pg, agents, 'bench-team');
  await createManifestGrid(pg, {
    agentIds: agents,
    perAgent: PER_AGENT,
    idWidth: 3,
    skill: {
      name: 'capability {i}',
      description: 'a benchmark capability number {i}',
      tags: ['bench'],
      examples: [],
      inputModes: ['text/plain'],
      outputModes: ['application/json'],
    },
    handler: 'h.{i}',
    deprecated: DUE_PER_AGENT,
    deprecatedAt: new Date(now.getTime() - 60 * DAY_MS),
    teamId: 'bench-team',
  });
  const since = new Date(now.getTime() - 100 * DAY_MS);
  await createNodes(
    pg,
    agents.map((agent) => ({
      id: `${agent}-n1`,
      agentId: agent,
      registeredAt: since,
      lastSeenAt: now,
      coverage: { from: since, until: new Date(now.getTime() - 60_000) },
    })),
  );
  // Usage on the live capabilities (the list shows it); none on the deprecated ones in the window.
  // Left in SQL: 270,000 rows (90 × 3 per agent) cross-joined in the database, where addUsage would ship them as parameter arrays.
  await pg.query(
    `INSERT INTO "UsageBucket" ("agentId", "capabilityId", "tenantId", "nodeId", day, count, "lastCallAt")
     SELECT m."agentId", m."capabilityId", 'tenant-a', m."agentId" || '-n1', ($1::timestamp - make_interval(days => d))::date, 2,
            $1::timestamp - make_interval(days => d)
       FROM "CapabilityManifest" m, generate_series(1, 3) d
      WHERE m.state = 'ga'`,
    [at],
  );
  await pg.query('VACUUM ANALYZE');
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));

function row(label: string, product: number[], baseline: number[]): string {
  const [p50, p99, b50, b99] = [pct(product, 50), pct(product, 99), pct(baseline, 50), pct(baseline, 99)];
  return `| ${label} | ${ms(b50)} / ${ms(b99)} ms | ${ms(p50)} / ${ms(p99)} ms | ${(p50 / b50).toFixed(1)}× / ${(p99 / b99).toFixed(1)}× |`;
}

async function main(): Promise<void> {
  const name = `cp_bench_registry_scale_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = ADMIN_URL.replace(/\/postgres$/, `/${name}`);
  const pg = new Client({ connectionString: url });
  const pool = new Pool({ connectionString: url, max: 4 });
  const prefix = `bench:registry-scale:${process.pid}:`;
  const redis = new Redis('redis://127.0.0.1:6379');
  let app: NestFastifyApplication | undefined;
  let bare: Server | undefined;
  try {
    await migrate(url);
    await pg.connect();
    const now = new Date();
    let t = performance.now();
    await seed(pg, now);
    console.log(
      `seeded ${AGENTS} agents × ${PER_AGENT} manifests (${AGENTS * DUE_PER_AGENT} due for retirement) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );

    const config = loadConfig({
      DATABASE_URL: url,
      REDIS_KEY_PREFIX: prefix,
      LOG_LEVEL: 'silent',
      NODE_ENV: 'test',
      RETIREMENT_SCHEDULE_ENABLED: 'false',
      SYNC_REANNOUNCE_INTERVAL_MS: '0',
    });
    let url2: string;
    ({ app, url: url2 } = await bootApp(AppModule, config));
    const writer = app.get(RegistryWriter);
    const token = mintAdminToken(config, 'bench', ['platform-admin']);

    // 1. projection rebuild after a change
    let version = 0;
    const productChange = (agent: string) =>
      writer.change({ agentId: agent, actor: 'bench', summary: 'rename' }, async (tx) => {
        await tx.agent.update({ where: { id: agent }, data: { name: `renamed ${++version}` } });
        return { result: null, audit: [] };
      });
    const baselineChange = async (agent: string) => {
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        const { rows } = await c.query<{ revision: number }>(
          `UPDATE "Agent" SET revision = revision + 1, name = $2 WHERE id = $1 RETURNING revision`,
          [agent, `bare ${++version}`],
        );
        await c.query(`INSERT INTO "RegistryRevision" ("agentId", revision, actor, summary) VALUES ($1, $2, 'bench', 'bare')`, [
          agent,
          rows[0].revision,
        ]);
        await c.query('COMMIT');
        const manifests = await c.query(`SELECT * FROM "CapabilityManifest" WHERE "agentId" = $1 ORDER BY "capabilityId"`, [agent]);
        const body = JSON.stringify({ revision: rows[0].revision, manifests: manifests.rows });
        const hash = createHash('sha256').update(body).digest('hex');
        const key = `${prefix}bare:{${agent}}:bundle:${rows[0].revision}`;
        await redis.multi().hset(key, 'body', body, 'etag', hash).expire(key, 600).exec();
        await redis.publish(`${prefix}bare:{${agent}}:revisions`, String(rows[0].revision));
      } finally {
        c.release();
      }
    };
    const changeProduct: number[] = [];
    const changeBaseline: number[] = [];
    for (let i = -10; i < CHANGES; i++) {
      const agent = agentId(1 + Math.floor(Math.random() * AGENTS));
      t = performance.now();
      await baselineChange(agent);
      const b = performance.now() - t;
      t = performance.now();
      await productChange(agent);
      const p = performance.now() - t;
      if (i >= 0) {
        changeBaseline.push(b);
        changeProduct.push(p);
      }
    }

    // 2. admin list latency
    bare = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        void (async () => {
          const agent = new URL(req.url ?? '/', 'http://x').searchParams.get('agent')!;
          const page = await pool.query(PAGE_SQL, [agent]);
          const rows = page.rows.slice(0, 100);
          const usage = await pool.query(USAGE_SQL, [agent, rows.map((r) => r.capabilityId)]);
          const byId = new Map(usage.rows.map((u) => [u.capabilityId, u]));
          const body = JSON.stringify({
            nodes: rows.map((r) => ({
              id: r.capabilityId,
              state: r.state,
              visibility: r.visibility,
              skill: { name: r.skill.name },
              usage: { calls: Number(byId.get(r.capabilityId)?.calls ?? 0), lastCallAt: byId.get(r.capabilityId)?.lastCallAt ?? null },
            })),
            pageInfo: { hasNextPage: page.rows.length > 100, endCursor: rows.at(-1)?.capabilityId ?? null },
          });
          res.writeHead(200, { 'content-type': 'application/json' }).end(body);
        })();
      });
    });
    await new Promise<void>((resolve) => bare!.listen(0, '127.0.0.1', resolve));
    const bareUrl = `http://127.0.0.1:${(bare.address() as { port: number }).port}`;
    const listProduct: number[] = [];
    const listBaseline: number[] = [];
    for (let i = -10; i < LIST_REQUESTS; i++) {
      const agent = agentId(1 + Math.floor(Math.random() * AGENTS));
      t = performance.now();
      const b = await fetch(`${bareUrl}/?agent=${agent}`);
      const bareBody = (await b.json()) as { nodes: unknown[] };
      const bMs = performance.now() - t;
      t = performance.now();
      const res = await fetch(`${url2}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: QUERY, variables: { agentId: agent } }),
      });
      const body = (await res.json()) as { data?: { manifests: { nodes: unknown[] } } };
      const pMs = performance.now() - t;
      if (body.data?.manifests.nodes.length !== 100 || bareBody.nodes.length !== 100)
        throw new Error(`list answered ${JSON.stringify(body).slice(0, 300)}`);
      if (i >= 0) {
        listBaseline.push(bMs);
        listProduct.push(pMs);
      }
    }

    // 3. retirement run
    const service = app.get(RetirementService);
    const reset = async () => {
      await pg.query(`UPDATE "CapabilityManifest" SET state = 'deprecated', "removedAt" = NULL WHERE state = 'removed'`);
      await pg.query(`DELETE FROM "AuditEvent" WHERE actor = 'system:retirement'`);
      await pg.query('VACUUM ANALYZE "CapabilityManifest"');
    };
    const since = new Date(Date.now() - 30 * 86_400_000);
    const retireProduct: number[] = [];
    const retireBaseline: number[] = [];
    let retired = 0;
    for (let round = 0; round < RETIREMENT_ROUNDS; round++) {
      await reset();
      t = performance.now();
      const bareRes = await pg.query(
        `UPDATE "CapabilityManifest" m SET state = 'removed', "removedAt" = now(), "updatedAt" = now()
          WHERE m.state = 'deprecated' AND m."deprecatedAt" <= $1::timestamp
            AND NOT EXISTS (SELECT 1 FROM "UsageBucket" b WHERE b."agentId" = m."agentId" AND b."capabilityId" = m."capabilityId"
                             AND b.day >= $2::date AND b.count > 0)`,
        [since.toISOString(), since.toISOString().slice(0, 10)],
      );
      retireBaseline.push(performance.now() - t);
      await reset();
      t = performance.now();
      const run = await service.run({ trigger: 'manual' });
      retireProduct.push(performance.now() - t);
      retired = run!.retiredCount;
      if (run!.status !== 'succeeded' || retired !== bareRes.rowCount)
        throw new Error(`run ${run!.status}: ${retired} retired, baseline ${bareRes.rowCount}`);
    }

    console.log(
      `\n1,000 agents × 100 manifests; ${CHANGES} changes and ${LIST_REQUESTS} list requests per side, interleaved; ${RETIREMENT_ROUNDS} retirement rounds of ${retired} retirements`,
    );
    console.log('| measure | baseline p50 / p99 | product p50 / p99 | ratio product / baseline |');
    console.log('|---|---:|---:|---:|');
    console.log(row('projection rebuild after a change (commit → bundle rebuilt, cached, announced)', changeProduct, changeBaseline));
    console.log(row('admin list, one agent’s first 100 with usage (sequential, HTTP)', listProduct, listBaseline));
    const [rp, rb] = [Math.min(...retireProduct), Math.min(...retireBaseline)];
    console.log(
      `| retirement run, ${retired} capabilities over ${AGENTS} agents (best of ${RETIREMENT_ROUNDS}) | ${ms(rb)} ms | ${ms(rp)} ms | ${(rp / rb).toFixed(1)}× |`,
    );
  } finally {
    await app?.close();
    await new Promise((resolve) => (bare ? bare.close(resolve) : resolve(undefined)));
    const keys = await redis.keys(`${prefix}*`);
    for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
    redis.disconnect();
    await pool.end().catch(() => undefined);
    await pg.end().catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
