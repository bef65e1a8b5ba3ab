/**
 * Learning from clarifications, measured through the real path (issue 31 §3). Run after
 * `npm run build` (the control plane is dist/apps/control-plane):
 *   npx tsx test/bench/routing-learning.bench.ts
 *
 * The built control plane on a private redis-server and a fresh database; the back-office agent of
 * test/fixtures/routing-eval seeded directly in the database (its public card already shows tags
 * of extended skills, so no admin mutation would create it: a registry from before the rule, ADR
 * 0335); one real NodeSync that registers, fetches and applies every revision the control plane
 * announces. Then:
 *   1. the node's router (the lexical classifier over the synced bundle's registry) routes the
 *      tuning half; every clear message it asked about whose label was among the ≤ 3 offered is a
 *      clarification the caller answers with that label, reported the way a node reports it
 *      (HttpClarificationSink → POST /node/v1/clarifications, the node's token);
 *   2. an admin lists them (`routingClarifications`) and promotes each as an example
 *      (`promoteRoutingClarification`, one GraphQL mutation each, in the tuning file's order);
 *   3. before, after 10, after 50 and after all promotions, once the node serves that revision, the
 *      held-out sets are routed from the node's synced bundle and scored.
 * The in-process replay (test/support/routing-eval/learning.ts: the same edit applied to the
 * fixture's manifests) is scored beside it at each step; the two must agree.
 *
 * Latency: each promotion alternates with a baseline round trip through the same control plane
 * (admin: `dismissRoutingClarification` of an extra clarification, one minimal write; automatic:
 * one report that promotes nothing); p50, p90 and their ratio are printed.
 *
 * BENCH_AUTO_AFTER=N: automatic promotion instead (ADR 0336): the control plane runs with
 * CLARIFICATION_AUTO_PROMOTE_AFTER=N, no admin promotes anything, and the caller answers each
 * clarification N times (N reports by the node); its N-th answer is promoted by the control plane.
 *
 * The labelled messages carry no caller: as in every routing figure, each is routed with every
 * capability of the bundle open to it (routingTestIndex), so the figures measure the evidence the
 * promotions add, not entitlement.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import { mintAdminToken, mintNodeToken } from '@cp/auth';
import { CLARIFY, LexicalClassifier, type RegistrySnapshot } from '@cp/capabilities';
import { loadConfig } from '@cp/common';
import { HttpClarificationSink, type NodeSync } from '@cp/node-sdk';
import { PrismaClient } from '../../prisma/generated/client';
import { startBenchNode, startBuiltControlPlane } from '../support/bench-control-plane';
import { storeSnapshot } from '../support/given-db';
import { startPrivateRedis } from '../support/redis-server';
import { createTestDatabase } from '../support/test-database';
import { tuningClarifications, withPromoted, type ReplayedClarification } from '../support/routing-eval/learning';
import {
  evaluate,
  half,
  loadEvalSet,
  loadSecondHeldOut,
  loadThirdHeldOut,
  type EvalFigures,
  type EvalSet,
} from '../support/routing-eval/routing-eval';

const TENANT = 'bench-tenant';
const AUTO_AFTER = Number(process.env.BENCH_AUTO_AFTER ?? 0);
const progress = (message: string) => process.stderr.write(`[routing-learning bench] ${message}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (n: number, d: number) => `${((100 * n) / Math.max(d, 1)).toFixed(1)}%`;

async function graphql<T>(url: string, token: string, query: string, variables: Record<string, unknown>): Promise<T> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: T; errors?: unknown };
  if (!body.data || body.errors) throw new Error(`GraphQL refused: ${JSON.stringify(body.errors).slice(0, 600)}`);
  return body.data;
}

const LIST = `query($agentId: String!) { routingClarifications(agentId: $agentId, status: "pending") { id capabilityId text } }`;
const DISMISS = `mutation($id: ID!) { dismissRoutingClarification(id: $id) { id } }`;
const PROMOTE = `mutation($input: PromoteClarificationInput!) { promoteRoutingClarification(input: $input) { revision } }`;

async function main(): Promise<void> {
  const set = loadEvalSet();
  const agentId = set.snapshot.agentId;
  const redisServer = await startPrivateRedis();
  const db = await createTestDatabase('bench_routing_learning');
  const prefix = 'bench:learning:';
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: db.url, REDIS_URL: redisServer.url, REDIS_KEY_PREFIX: prefix });
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: db.url }) });
  const dir = mkdtempSync(join(tmpdir(), 'bench-learning-'));
  const children: ChildProcess[] = [];
  const loadBefore = readFileSync('/proc/loadavg', 'utf8').trim();
  let node: NodeSync | undefined;
  try {
    // The fixture's registry, as stored: its team, the scopes its manifests require, the agent at revision 1.
    await storeSnapshot(prisma, agentId, set.snapshot);

    const { url } = await startBuiltControlPlane(
      {
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        DATABASE_URL: db.url,
        REDIS_URL: redisServer.url,
        REDIS_KEY_PREFIX: prefix,
        CLARIFICATION_AUTO_PROMOTE_AFTER: String(AUTO_AFTER),
      },
      children,
    );
    const nodeToken = mintNodeToken(config, agentId);
    const admin = mintAdminToken(config, 'bench', ['team-admin'], [set.snapshot.manifests[0].owner]);
    node = await startBenchNode({
      controlPlaneUrl: url,
      nodeToken,
      agentId,
      nodeId: 'learning-node',
      cacheDir: join(dir, 'node'),
      redisUrl: redisServer.url,
      redisKeyPrefix: prefix,
    });
    const served = async (revision: number): Promise<RegistrySnapshot> => {
      for (let i = 0; i < 6000 && node!.current()?.revision !== revision; i++) await sleep(5);
      const bundle = node!.current()!.bundle;
      if (bundle.revision !== revision) throw new Error(`the node serves revision ${bundle.revision}, not ${revision}`);
      return bundle.snapshot;
    };

    // 1. What the node's router asks about on the tuning half, answered and reported as the node reports it.
    const classifier = new LexicalClassifier();
    const start = await served(1);
    const clarifications = tuningClarifications({ ...set, snapshot: start }, classifier);
    const clearTuning = half(set, 'tuning').suite.tests.filter((t) => t.expect !== CLARIFY).length;
    if (AUTO_AFTER === 1) throw new Error('BENCH_AUTO_AFTER must be 0 (admin promotes) or at least 2');
    const sink = new HttpClarificationSink(url, () => nodeToken, {
      warn: (fields, message) => {
        throw new Error(`${message}: ${JSON.stringify(fields)}`);
      },
    });
    for (const c of clarifications) sink.record({ text: c.text, capabilityId: c.capabilityId, tenant: TENANT });
    await sink.flush();
    const pending = (
      await graphql<{ routingClarifications: { id: string; capabilityId: string; text: string }[] }>(url, admin, LIST, { agentId })
    ).routingClarifications;
    const idOf = new Map(pending.map((r) => [`${r.capabilityId}\u0000${r.text}`, r.id]));
    if (pending.length !== clarifications.length || clarifications.some((c) => !idOf.has(`${c.capabilityId}\u0000${c.text}`)))
      throw new Error(`reported ${clarifications.length} clarifications, the control plane lists ${pending.length}`);
    progress(`${clarifications.length} clarifications reported (of ${clearTuning} clear tuning messages)`);

    // The latency baseline, alternated with the promotions in the same run: one more clarification
    // per promotion (its text marked, so it is a row of its own), never promoted. With an admin:
    // `dismissRoutingClarification` of it, the same GraphQL round trip, token check and agent write
    // check with one minimal write (the row's status). Automatic: one report of it by the node,
    // the same POST round trip below the promotion count (recorded, nothing promoted).
    const baselineText = (i: number) => `(latency baseline ${i}) ${clarifications[i].text}`;
    const baselineIds: string[] = [];
    if (AUTO_AFTER === 0) {
      for (const [i, c] of clarifications.entries()) sink.record({ text: baselineText(i), capabilityId: c.capabilityId, tenant: TENANT });
      await sink.flush();
      const listed = (
        await graphql<{ routingClarifications: { id: string; capabilityId: string; text: string }[] }>(url, admin, LIST, { agentId })
      ).routingClarifications;
      const byText = new Map(listed.map((r) => [r.text, r.id]));
      for (const i of clarifications.keys()) baselineIds.push(byText.get(baselineText(i)) ?? '');
      if (baselineIds.some((id) => id === '')) throw new Error('a latency-baseline clarification was not listed');
    }
    const baselineMs: number[] = [];
    const baseline = async (i: number) => {
      const t0 = performance.now();
      if (AUTO_AFTER > 0) {
        sink.record({ text: baselineText(i), capabilityId: clarifications[i].capabilityId, tenant: TENANT });
        await sink.flush();
      } else {
        await graphql(url, admin, DISMISS, { id: baselineIds[i] });
      }
      baselineMs.push(performance.now() - t0);
    };

    // 2 and 3. Promote in order; measure at each step from the bundle the node serves.
    const steps = [0, 10, 50, clarifications.length].filter((n, i, a) => n <= clarifications.length && a.indexOf(n) === i);
    const targets: [string, EvalSet][] = [
      ['held-out half', half(set, 'held-out')],
      ['second held-out set', loadSecondHeldOut()],
      ['third held-out set (blind)', loadThirdHeldOut()],
    ];
    const rows = new Map<string, { n: number; real: EvalFigures; inProcess: EvalFigures }[]>(targets.map(([name]) => [name, []]));
    let revision = 1;
    let promoted = 0;
    const promoteMs: number[] = [];
    const promote = async (c: ReplayedClarification) => {
      const t0 = performance.now();
      if (AUTO_AFTER > 0) {
        // The caller answers the same way N times in all (once above): the N-th report is promoted by the control plane.
        for (let i = 1; i < AUTO_AFTER; i++) sink.record({ text: c.text, capabilityId: c.capabilityId, tenant: TENANT });
        await sink.flush();
        promoteMs.push(performance.now() - t0);
        const now = (await prisma.agent.findUniqueOrThrow({ where: { id: agentId } })).revision;
        if (now !== revision + 1) throw new Error(`automatic promotion: revision ${now} after ${AUTO_AFTER} answers, not ${revision + 1}`);
        revision = now;
        return;
      }
      const done = await graphql<{ promoteRoutingClarification: { revision: number } }>(url, admin, PROMOTE, {
        input: { id: idOf.get(`${c.capabilityId}\u0000${c.text}`), as: 'EXAMPLE', expectedRevision: revision },
      });
      promoteMs.push(performance.now() - t0);
      revision = done.promoteRoutingClarification.revision;
    };
    for (const n of steps) {
      // Alternating rounds: the baseline before the promotion in even rounds, after it in odd ones.
      while (promoted < n) {
        const i = promoted++;
        if (i % 2 === 0) await baseline(i);
        await promote(clarifications[i]);
        if (i % 2 === 1) await baseline(i);
      }
      const snapshot = await served(revision);
      for (const [name, target] of targets)
        rows.get(name)!.push({
          n,
          real: evaluate({ ...target, snapshot }, classifier),
          inProcess: evaluate(withPromoted(target, clarifications, n), classifier),
        });
      progress(`${n} promoted: the node serves revision ${revision}`);
    }

    const how = AUTO_AFTER > 0 ? `promoted automatically after ${AUTO_AFTER} identical answers` : 'promoted through the admin API';
    console.log(`\n${clarifications.length} clarifications answered on the tuning half (of ${clearTuning} clear messages), ${how}`);
    console.log(
      '| set | promotions | routed right | resolved in one turn | wrong routes (all) | best guess right | in-process replay agrees |',
    );
    console.log('|---|--:|--:|--:|--:|--:|:-:|');
    for (const [name] of targets)
      for (const { n, real: f, inProcess } of rows.get(name)!) {
        const total = f.clear + f.ambiguous + f.outOfScope;
        const agrees =
          JSON.stringify(f) === JSON.stringify(inProcess) ? 'yes' : `no (${pct(inProcess.clearCorrect, inProcess.clear)} routed)`;
        console.log(
          `| ${name} | ${n} | ${pct(f.clearCorrect, f.clear)} | ${pct(f.oneTurn, f.clear)} | ${pct(f.wrongRoutes, total)} | ${pct(f.bestGuessRight, f.clear)} | ${agrees} |`,
        );
      }
    const quantile = (xs: number[], p: number) => {
      const sorted = [...xs].sort((a, b) => a - b);
      return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? NaN;
    };
    const [what, floor] =
      AUTO_AFTER > 0 ? ['the N-th report, promoted', 'one report, nothing promoted'] : ['promote mutation', 'dismiss mutation (baseline)'];
    for (const [name, xs] of [
      [what, promoteMs],
      [floor, baselineMs],
    ] as const)
      console.log(`${name}: p50 ${quantile(xs, 0.5).toFixed(0)} ms, p90 ${quantile(xs, 0.9).toFixed(0)} ms over ${xs.length}`);
    console.log(
      `ratio, p50: ${(quantile(promoteMs, 0.5) / quantile(baselineMs, 0.5)).toFixed(1)}×, p90: ${(quantile(promoteMs, 0.9) / quantile(baselineMs, 0.9)).toFixed(1)}×; final revision ${revision}`,
    );
    console.log(`load average before/after: ${loadBefore} / ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
  } finally {
    await node?.stop().catch(() => undefined);
    for (const c of children) c.kill('SIGKILL');
    await prisma.$disconnect();
    await redisServer.stop();
    rmSync(dir, { recursive: true, force: true });
    await db.drop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
