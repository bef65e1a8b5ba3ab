import { Global, Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { Client } from 'pg';
import { RetirementSkipCode } from '@cp/capabilities';
import { AppConfigModule, AppConfigToken } from '@cp/common';
import { DbModule, REVISION_LISTENERS } from '@cp/db';
import { Clock, ClockModule, RetirementCoreModule, RetirementPlanner, RetirementService } from '@cp/jobs';
import { FixedClock } from '@cp/jobs/testing';
import { addUsage, createAgent, createManifests, createNode, DAY_MS } from '../support/given-db';
import { testConfig } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const NOW = new Date('2027-02-01T03:00:00.000Z');
const daysAgo = (d: number) => new Date(NOW.getTime() - d * DAY_MS);
const announced: string[] = [];

@Global()
@Module({
  providers: [
    {
      provide: REVISION_LISTENERS,
      useValue: [{ revisionCommitted: async (agentId: string, revision: number) => void announced.push(`${agentId}@${revision}`) }],
    },
  ],
  exports: [REVISION_LISTENERS],
})
class HeardRevisionsModule {}

describe('retirement run (rule against the real database)', () => {
  let db: TestDatabase;
  let pg: Client;
  let moduleRef: TestingModule;
  let service: RetirementService;
  let planner: RetirementPlanner;
  const clock = new FixedClock(NOW);
  /** A node that reported every window up to a minute ago. */
  const healthyNode = (id: string, agentId: string) => ({
    id,
    agentId,
    registeredAt: daysAgo(120),
    lastSeenAt: NOW,
    coverage: { from: daysAgo(120), until: new Date(NOW.getTime() - 60_000) },
  });

  beforeAll(async () => {
    db = await createTestDatabase('retirement_run');
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    // One agent per situation, so one run shows every case side by side.
    for (const agent of ['a-eligible', 'a-called', 'a-recent', 'a-lagging', 'a-silent-node', 'a-redeployed', 'a-no-nodes'])
      await createAgent(pg, agent);
    await createManifests(pg, [
      { agentId: 'a-eligible', capabilityId: 'old-1', state: 'deprecated', deprecatedAt: daysAgo(45) },
      { agentId: 'a-eligible', capabilityId: 'old-2', state: 'deprecated', deprecatedAt: daysAgo(30) },
      { agentId: 'a-eligible', capabilityId: 'current', state: 'ga' },
      { agentId: 'a-eligible', capabilityId: 'gone', state: 'removed', deprecatedAt: daysAgo(200), removedAt: daysAgo(100) },
      { agentId: 'a-called', capabilityId: 'still-used', state: 'deprecated', deprecatedAt: daysAgo(60) },
      { agentId: 'a-recent', capabilityId: 'fresh', state: 'deprecated', deprecatedAt: daysAgo(29) },
      { agentId: 'a-lagging', capabilityId: 'old', state: 'deprecated', deprecatedAt: daysAgo(60) },
      { agentId: 'a-silent-node', capabilityId: 'old', state: 'deprecated', deprecatedAt: daysAgo(60) },
      { agentId: 'a-redeployed', capabilityId: 'old', state: 'deprecated', deprecatedAt: daysAgo(60) },
      { agentId: 'a-no-nodes', capabilityId: 'old', state: 'deprecated', deprecatedAt: daysAgo(60) },
    ]);
    await createNode(pg, healthyNode('n-eligible', 'a-eligible'));
    await createNode(pg, healthyNode('n-called', 'a-called'));
    await createNode(pg, healthyNode('n-recent', 'a-recent'));
    await createNode(pg, healthyNode('n-lagging-ok', 'a-lagging'));
    // Last reported 3 days ago, still alive: its last 3 days are unknown.
    await createNode(pg, {
      id: 'n-lagging',
      agentId: 'a-lagging',
      registeredAt: daysAgo(90),
      lastSeenAt: NOW,
      coverage: { from: daysAgo(90), until: daysAgo(3) },
    });
    // Registered 5 days ago, never reported usage.
    await createNode(pg, healthyNode('n-silent-ok', 'a-silent-node'));
    await createNode(pg, { id: 'n-silent', agentId: 'a-silent-node', registeredAt: daysAgo(5), lastSeenAt: daysAgo(1) });
    // The old node shut down cleanly 20 days ago (final batch); its replacement reported since.
    await createNode(pg, {
      id: 'n-old',
      agentId: 'a-redeployed',
      registeredAt: daysAgo(100),
      lastSeenAt: daysAgo(20),
      coverage: { from: daysAgo(100), until: daysAgo(20), closed: true },
    });
    await createNode(pg, {
      id: 'n-new',
      agentId: 'a-redeployed',
      registeredAt: daysAgo(20),
      lastSeenAt: NOW,
      coverage: { from: new Date(daysAgo(20).getTime() + 2000), until: NOW },
    });
    await addUsage(pg, [
      { agentId: 'a-eligible', capabilityId: 'old-1', nodeId: 'n-eligible', lastCallAt: daysAgo(31), count: 40 },
      { agentId: 'a-eligible', capabilityId: 'old-2', nodeId: 'n-eligible', lastCallAt: new Date(daysAgo(30).getTime() - 1000), count: 2 },
      { agentId: 'a-called', capabilityId: 'still-used', nodeId: 'n-called', lastCallAt: daysAgo(2), count: 7 },
      { agentId: 'a-called', capabilityId: 'still-used', nodeId: 'n-called', tenantId: 'globex', lastCallAt: daysAgo(12), count: 1 },
    ]);

    moduleRef = await Test.createTestingModule({
      imports: [AppConfigModule, DbModule, ClockModule, HeardRevisionsModule, RetirementCoreModule],
    })
      .overrideProvider(AppConfigToken)
      .useValue(testConfig({ DATABASE_URL: db.url }))
      .overrideProvider(Clock)
      .useValue(clock)
      .compile();
    moduleRef.useLogger(false);
    service = moduleRef.get(RetirementService);
    planner = moduleRef.get(RetirementPlanner);
  });
  afterAll(async () => {
    await pg.end();
    await moduleRef.close();
    await db.drop();
  });

  const states = async () =>
    Object.fromEntries(
      (await pg.query(`SELECT "agentId" || '/' || "capabilityId" AS k, state FROM "CapabilityManifest" ORDER BY 1`)).rows.map((r) => [
        r.k,
        r.state,
      ]),
    );
  const retirementAudit = async () =>
    (
      await pg.query(
        `SELECT "agentId", "targetId", actor, action, revision, before, after FROM "AuditEvent" WHERE actor = 'system:retirement' ORDER BY "agentId", "targetId"`,
      )
    ).rows;

  it('previews what the next run would retire and why, and why the rest stays', async () => {
    const eligible = await planner.preview('a-eligible', clock.now());
    expect(eligible.plan.retire.map((d) => d.capabilityId)).toEqual(['old-1', 'old-2']);
    expect(eligible.plan.retire[0].because).toMatch(
      /^deprecated since .* and no calls since 2027-01-02T03:00:00.000Z on any of 1 node\(s\), usage known$/,
    );

    const reasonsOf = async (agentId: string) =>
      (await planner.preview(agentId, clock.now())).plan.skip.map((d) => ({
        id: d.capabilityId,
        reasons: d.reasons.map((r) => r.message),
      }));
    expect(await reasonsOf('a-called')).toEqual([
      { id: 'still-used', reasons: [`still called: 8 call(s) since ${daysAgo(30).toISOString()}, last at ${daysAgo(2).toISOString()}`] },
    ]);
    expect(await reasonsOf('a-recent')).toEqual([
      {
        id: 'fresh',
        reasons: [`deprecated at ${daysAgo(29).toISOString()}, less than 30 days ago (eligible from ${daysAgo(-1).toISOString()})`],
      },
    ]);
    expect(await reasonsOf('a-lagging')).toEqual([
      { id: 'old', reasons: [`usage unknown for node n-lagging from ${daysAgo(3).toISOString()} to ${NOW.toISOString()}`] },
    ]);
    expect(await reasonsOf('a-silent-node')).toEqual([
      { id: 'old', reasons: [`usage unknown for node n-silent from ${daysAgo(5).toISOString()} to ${NOW.toISOString()}`] },
    ]);
    expect((await planner.preview('a-lagging', clock.now())).plan.skip[0].reasons[0].code).toBe(RetirementSkipCode.UsageUnknown);
    await expect(planner.preview('no-such-agent', clock.now())).rejects.toMatchObject({
      code: 'AGENT_NOT_FOUND',
      message: 'agent "no-such-agent" not found',
    });
  });

  it('retires exactly the eligible capabilities: removed, removedAt, one audit event each, revision bumped once per agent', async () => {
    const revisionsBefore = Object.fromEntries((await pg.query(`SELECT id, revision FROM "Agent"`)).rows.map((r) => [r.id, r.revision]));
    const run = await service.run({ trigger: 'manual', requestedBy: 'alice' });

    expect(run).toMatchObject({
      status: 'succeeded',
      trigger: 'manual',
      requestedBy: 'alice',
      asOf: NOW,
      retiredCount: 4,
      skippedCount: 4,
      errors: [],
    });
    expect(run!.retired.map((r) => `${r.agentId}/${r.capabilityId}`)).toEqual([
      'a-eligible/old-1',
      'a-eligible/old-2',
      'a-no-nodes/old',
      'a-redeployed/old',
    ]);
    expect(run!.skipped.map((s) => `${s.agentId}/${s.capabilityId}:${s.reasons.map((r) => r.code).join(',')}`)).toEqual([
      'a-called/still-used:STILL_CALLED',
      'a-lagging/old:USAGE_UNKNOWN',
      'a-recent/fresh:DEPRECATED_TOO_RECENTLY',
      'a-silent-node/old:USAGE_UNKNOWN',
    ]);
    expect(await states()).toEqual({
      'a-called/still-used': 'deprecated',
      'a-eligible/current': 'ga',
      'a-eligible/gone': 'removed',
      'a-eligible/old-1': 'removed',
      'a-eligible/old-2': 'removed',
      'a-lagging/old': 'deprecated',
      'a-no-nodes/old': 'removed',
      'a-recent/fresh': 'deprecated',
      'a-redeployed/old': 'removed',
      'a-silent-node/old': 'deprecated',
    });
    const removedAt = (
      await pg.query(`SELECT "removedAt" FROM "CapabilityManifest" WHERE "agentId" = 'a-eligible' AND "capabilityId" = 'old-1'`)
    ).rows[0].removedAt;
    expect(removedAt).toEqual(NOW);

    const audit = await retirementAudit();
    expect(audit.map((a) => `${a.agentId}/${a.targetId}`)).toEqual([
      'a-eligible/old-1',
      'a-eligible/old-2',
      'a-no-nodes/old',
      'a-redeployed/old',
    ]);
    expect(audit[0]).toMatchObject({
      action: 'capability.retire',
      revision: revisionsBefore['a-eligible'] + 1,
      before: { state: 'deprecated', deprecatedAt: daysAgo(45).toISOString() },
      after: { state: 'removed', removedAt: NOW.toISOString(), runId: run!.id },
    });
    const revisionsAfter = Object.fromEntries((await pg.query(`SELECT id, revision FROM "Agent"`)).rows.map((r) => [r.id, r.revision]));
    for (const agent of Object.keys(revisionsBefore)) {
      const bumped = ['a-eligible', 'a-no-nodes', 'a-redeployed'].includes(agent) ? 1 : 0;
      expect([agent, revisionsAfter[agent]]).toEqual([agent, revisionsBefore[agent] + bumped]);
    }
    const outbox = (
      await pg.query(`SELECT "agentId", revision, actor FROM "RegistryRevision" WHERE actor = 'system:retirement' ORDER BY "agentId"`)
    ).rows;
    expect(outbox).toEqual([
      { agentId: 'a-eligible', revision: revisionsBefore['a-eligible'] + 1, actor: 'system:retirement' },
      { agentId: 'a-no-nodes', revision: revisionsBefore['a-no-nodes'] + 1, actor: 'system:retirement' },
      { agentId: 'a-redeployed', revision: revisionsBefore['a-redeployed'] + 1, actor: 'system:retirement' },
    ]);
    // Told to the revision listeners (the sync publisher in the worker), so nodes converge.
    expect(announced).toEqual(outbox.map((o) => `${o.agentId}@${o.revision}`));
  });

  it('a second run retires nothing more: no audit event, no revision, and the run is recorded', async () => {
    const auditBefore = (await retirementAudit()).length;
    const revisions = (await pg.query(`SELECT sum(revision)::int AS s FROM "Agent"`)).rows[0].s;
    const run = await service.run({ trigger: 'schedule' });
    expect(run).toMatchObject({ status: 'succeeded', retiredCount: 0, skippedCount: 4 });
    expect((await retirementAudit()).length).toBe(auditBefore);
    expect((await pg.query(`SELECT sum(revision)::int AS s FROM "Agent"`)).rows[0].s).toBe(revisions);
    const runs = await service.latestRuns(10);
    expect(runs.map((r) => [r.trigger, r.retiredCount])).toEqual(
      expect.arrayContaining([
        ['manual', 4],
        ['schedule', 0],
      ]),
    );
  });

  it('retires what became eligible once the clock moves on and the nodes report', async () => {
    clock.set(new Date(NOW.getTime() + 2 * DAY_MS));
    await pg.query(`UPDATE "NodeUsageCoverage" SET "coveredUntil" = $1 WHERE "agentId" IN ('a-recent', 'a-lagging')`, [
      clock.now().toISOString(),
    ]);
    const run = await service.run({ trigger: 'schedule' });
    expect(run!.retired.map((r) => `${r.agentId}/${r.capabilityId}`)).toEqual(['a-lagging/old', 'a-recent/fresh']);
    expect(run!.skipped.map((s) => s.agentId)).toEqual(['a-called', 'a-silent-node']);
  });

  it('does nothing for a finished run redelivered by the queue', async () => {
    const [last] = await service.latestRuns(1);
    expect(await service.run({ trigger: 'schedule', runId: last.id })).toBeNull();
  });
});
