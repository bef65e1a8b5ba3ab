import { randomBytes } from 'node:crypto';
import { type TestingModule } from '@nestjs/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { mintAdminToken } from '@cp/auth';
import { type AppConfig } from '@cp/common';
import { RETIREMENT_QUEUE } from '@cp/jobs';
import { RetirementWorkerModule } from '../../apps/worker/src/retirement/retirement-worker.module';
import { FixedClock } from '@cp/jobs/testing';
import { createAgent, createManifests, createNode, DAY_MS } from '../support/given-db';
import { bootAppAndWorker, closeAppAndWorker } from '../support/app-and-worker';
import { testConfig } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const NOW = new Date('2027-04-01T03:00:00.000Z');
// GraphQL answers are asserted structurally; their static shape adds nothing here.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Gql = any;
const daysAgo = (d: number) => new Date(NOW.getTime() - d * DAY_MS);

describe('retirement in the admin GraphQL API', () => {
  let db: TestDatabase;
  let pg: Client;
  let config: AppConfig;
  let app: NestFastifyApplication;
  let worker: TestingModule;
  const clock = new FixedClock(NOW);
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    db = await createTestDatabase('retirement_graphql');
    config = testConfig({
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: `test-retire-gql-${randomBytes(4).toString('hex')}:`,
      RETIREMENT_SCHEDULE_ENABLED: 'false',
    });
    ({ app, worker } = await bootAppAndWorker(RetirementWorkerModule, config, clock));

    pg = new Client({ connectionString: db.url });
    await pg.connect();
    await createAgent(pg, 'legacy-agent', 'legacy-team');
    await createManifests(pg, [
      { agentId: 'legacy-agent', capabilityId: 'old-report', state: 'deprecated', deprecatedAt: daysAgo(40), teamId: 'legacy-team' },
      { agentId: 'legacy-agent', capabilityId: 'recent-report', state: 'deprecated', deprecatedAt: daysAgo(3), teamId: 'legacy-team' },
    ]);
    await createNode(pg, {
      id: 'legacy-node',
      agentId: 'legacy-agent',
      registeredAt: daysAgo(90),
      lastSeenAt: NOW,
      coverage: { from: daysAgo(90), until: NOW },
    });

    tokens.platform = mintAdminToken(config, 'pat', ['platform-admin']);
    tokens.viewer = mintAdminToken(config, 'vic', ['viewer']);
    tokens.legacyAdmin = mintAdminToken(config, 'lee', ['team-admin'], ['legacy-team']);
    tokens.otherAdmin = mintAdminToken(config, 'otto', ['team-admin'], ['some-other-team']);
  });
  afterAll(async () => {
    await closeAppAndWorker({ app, worker }, RETIREMENT_QUEUE);
    await pg?.end();
    await db?.drop();
  });

  async function gql(token: string, query: string, variables: Record<string, unknown> = {}) {
    const res = await app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: { query, variables },
    });
    return res.json<{ data?: Record<string, Gql>; errors?: { message: string; extensions: Record<string, unknown> }[] }>();
  }

  const PREVIEW = `query ($agentId: String!) { retirementPreview(agentId: $agentId) {
    agentId asOf windowStart retire { capabilityId because }
    skipped { capabilityId reasons { code message eligibleAt calls unknownUsage { nodeId from until } } } } }`;

  it('previews what the next run would retire and why (team-admin of the agent, viewer)', async () => {
    for (const token of [tokens.legacyAdmin, tokens.viewer]) {
      const { data, errors } = await gql(token, PREVIEW, { agentId: 'legacy-agent' });
      expect(errors).toBeUndefined();
      expect(data!.retirementPreview).toEqual({
        agentId: 'legacy-agent',
        asOf: NOW.toISOString(),
        windowStart: daysAgo(30).toISOString(),
        retire: [{ capabilityId: 'old-report', because: expect.stringMatching(/^deprecated since .* and no calls since/) }],
        skipped: [
          {
            capabilityId: 'recent-report',
            reasons: [
              {
                code: 'DEPRECATED_TOO_RECENTLY',
                message: expect.stringContaining('less than 30 days ago'),
                eligibleAt: daysAgo(-27).toISOString(),
                calls: null,
                unknownUsage: null,
              },
            ],
          },
        ],
      });
    }
  });

  it('names the node whose usage is unknown', async () => {
    await pg.query(`UPDATE "NodeUsageCoverage" SET "coveredUntil" = $1 WHERE "nodeId" = 'legacy-node'`, [daysAgo(2).toISOString()]);
    const { data } = await gql(tokens.platform, PREVIEW, { agentId: 'legacy-agent' });
    expect(data!.retirementPreview.retire).toEqual([]);
    expect(data!.retirementPreview.skipped[0].reasons).toEqual([
      {
        code: 'USAGE_UNKNOWN',
        message: `usage unknown for node legacy-node from ${daysAgo(2).toISOString()} to ${NOW.toISOString()}`,
        eligibleAt: null,
        calls: null,
        unknownUsage: [{ nodeId: 'legacy-node', from: daysAgo(2).toISOString(), until: NOW.toISOString() }],
      },
    ]);
    await pg.query(`UPDATE "NodeUsageCoverage" SET "coveredUntil" = $1 WHERE "nodeId" = 'legacy-node'`, [NOW.toISOString()]);
  });

  it('answers NOT_FOUND for an unknown agent and for an agent of another team (no probing)', async () => {
    const unknown = await gql(tokens.platform, PREVIEW, { agentId: 'nope' });
    const hidden = await gql(tokens.otherAdmin, PREVIEW, { agentId: 'legacy-agent' });
    expect(unknown.errors![0].extensions.code).toBe('NOT_FOUND');
    expect(hidden.errors![0].extensions.code).toBe('NOT_FOUND');
    expect(hidden.errors![0].message).toBe(unknown.errors![0].message.replace('nope', 'legacy-agent'));
  });

  it('runs now (platform-admin): queued, run by the worker, and visible in retirementRuns with its results', async () => {
    const denied = await gql(tokens.viewer, 'mutation { runRetirementNow { id } }');
    expect(denied.errors![0].extensions.code).toBe('FORBIDDEN');
    const { data, errors } = await gql(tokens.platform, 'mutation { runRetirementNow { id status trigger requestedBy } }');
    expect(errors).toBeUndefined();
    expect(data!.runRetirementNow).toMatchObject({ status: 'queued', trigger: 'manual', requestedBy: 'pat' });
    const id = data!.runRetirementNow.id;

    const RUNS = `{ retirementRuns(limit: 5) { id status asOf startedAt finishedAt retiredCount skippedCount
      retired { agentId capabilityId revision removedAt } skipped { agentId capabilityId reasons { code message } } errors { agentId message } } }`;
    let run: Gql = undefined;
    for (let i = 0; i < 100 && run?.status !== 'succeeded'; i++) {
      run = (await gql(tokens.platform, RUNS)).data!.retirementRuns.find((r: { id: string }) => r.id === id);
      if (run?.status !== 'succeeded') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(run).toMatchObject({
      status: 'succeeded',
      asOf: NOW.toISOString(),
      retiredCount: 1,
      skippedCount: 1,
      retired: [{ agentId: 'legacy-agent', capabilityId: 'old-report', revision: 2, removedAt: NOW.toISOString() }],
      skipped: [
        {
          agentId: 'legacy-agent',
          capabilityId: 'recent-report',
          reasons: [{ code: 'DEPRECATED_TOO_RECENTLY', message: expect.any(String) }],
        },
      ],
      errors: [],
    });
    expect((await pg.query(`SELECT state FROM "CapabilityManifest" WHERE "capabilityId" = 'old-report'`)).rows[0].state).toBe('removed');
    const viewerRuns = await gql(tokens.viewer, '{ retirementRuns { id } }');
    expect(viewerRuns.data!.retirementRuns.map((r: { id: string }) => r.id)).toContain(id);
  });

  it('keeps run records from team admins and refuses a bad limit', async () => {
    expect((await gql(tokens.legacyAdmin, '{ retirementRuns { id } }')).errors![0].extensions.code).toBe('FORBIDDEN');
    const bad = await gql(tokens.platform, '{ retirementRuns(limit: 0) { id } }');
    expect(bad.errors![0].extensions.code).toBe('BAD_USER_INPUT');
    expect(JSON.stringify(bad.errors![0])).toContain('must be at least 1');
  });
});
