import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mintAdminToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { givenDb, type GivenDb } from '../support/given-db';
import { codeOf, gql, gqlOk } from '../support/graphql-client';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const CREATE = 'mutation($input: TeamInput!) { createTeam(input: $input) { id name } }';
const RENAME = 'mutation($input: TeamInput!) { renameTeam(input: $input) { id name } }';
const TEAMS = '{ teams { nodes { id name } } }';

describe('admin API: teams', () => {
  let db: TestDatabase;
  let app: NestFastifyApplication;
  let url: string;
  let config: AppConfig;
  let given: GivenDb;
  const token = (roles: string[], teams: string[] = []) => mintAdminToken(config, 'carol', roles, teams);

  beforeAll(async () => {
    db = await createTestDatabase('admin_teams');
    config = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: `test:admin-teams:${process.pid}:` });
    ({ app, url } = await bootApp(AppModule, config));
    given = givenDb(db.url);
  });
  afterAll(async () => {
    await given?.close();
    await app?.close();
    await db?.drop();
  });

  it('lets a platform admin onboard a team that can then own an agent, with an audit event', async () => {
    const admin = token(['platform-admin']);
    expect((await gqlOk(url, admin, CREATE, { input: { id: 'payments', name: 'Payments' } })).createTeam).toEqual({
      id: 'payments',
      name: 'Payments',
    });
    expect((await gqlOk(url, admin, RENAME, { input: { id: 'payments', name: 'Payments & Billing' } })).renameTeam.name).toBe(
      'Payments & Billing',
    );
    const audit = await gqlOk(url, admin, '{ auditEvents(filter: {targetType: "team"}) { nodes { action actor targetId } } }');
    expect(audit.auditEvents.nodes).toEqual(
      expect.arrayContaining([
        { action: 'team.create', actor: 'carol', targetId: 'payments' },
        { action: 'team.update', actor: 'carol', targetId: 'payments' },
      ]),
    );
    const agent = await given.agent({ id: 'payments-agent', teamId: 'payments' });
    expect(agent.id).toBe('payments-agent');
  });

  it('refuses a bad slug and a duplicate, naming what is wrong, and writes nothing', async () => {
    const admin = token(['platform-admin']);
    const bad = await gql(url, admin, CREATE, { input: { id: 'Not A Slug', name: '' } });
    expect(codeOf(bad)).toBe('BAD_USER_INPUT');
    const paths = (bad.errors![0].extensions.validationErrors as { path: string }[]).map((e) => e.path).sort();
    expect(paths).toEqual(['$.id', '$.name']);
    const dup = await gql(url, admin, CREATE, { input: { id: 'payments', name: 'Again' } });
    expect(codeOf(dup)).toBe('CONFLICT');
    expect((await gqlOk(url, admin, TEAMS)).teams.nodes.map((t: { id: string }) => t.id)).toEqual(['payments']);
  });

  it('shows a team admin only its own teams; others read as NOT_FOUND; only platform admins change teams', async () => {
    await gqlOk(url, token(['platform-admin']), CREATE, { input: { id: 'risk', name: 'Risk' } });
    const riskAdmin = token(['team-admin'], ['risk']);
    expect((await gqlOk(url, riskAdmin, TEAMS)).teams.nodes).toEqual([{ id: 'risk', name: 'Risk' }]);
    expect(codeOf(await gql(url, riskAdmin, 'query { team(id: "payments") { id } }'))).toBe('NOT_FOUND');
    expect(codeOf(await gql(url, riskAdmin, RENAME, { input: { id: 'risk', name: 'Mine now' } }))).toBe('FORBIDDEN');
    expect(codeOf(await gql(url, token(['viewer']), CREATE, { input: { id: 'x-team', name: 'X' } }))).toBe('FORBIDDEN');
    expect((await gqlOk(url, token(['viewer']), TEAMS)).teams.nodes.map((t: { id: string }) => t.id)).toEqual(['payments', 'risk']);
  });
});
