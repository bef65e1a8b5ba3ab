import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mintAdminToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { givenDb, type GivenAgent, type GivenDb } from '../support/given-db';
import { codeOf, gql, gqlOk } from '../support/graphql-client';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const AGENT = 'query($id: String!) { agent(id: $id) { id teamId name revision } }';
const AGENTS = '{ agents { nodes { id } pageInfo { hasNextPage endCursor } } }';
const UPDATE = 'mutation($input: UpdateAgentInput!) { updateAgent(input: $input) { id name revision } }';

describe('admin API access rules (HTTP)', () => {
  let db: TestDatabase;
  let app: NestFastifyApplication;
  let url: string;
  let config: AppConfig;
  let given: GivenDb;
  let red: GivenAgent;
  let blue: GivenAgent;
  const token = (roles: string[], teams: string[] = [], subject = 'someone') => mintAdminToken(config, subject, roles, teams);

  beforeAll(async () => {
    db = await createTestDatabase('admin_access');
    config = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: `test:admin-access:${process.pid}:` });
    ({ app, url } = await bootApp(AppModule, config));
    given = givenDb(db.url);
    red = await given.agent({ id: 'red-agent', teamId: (await given.team({ id: 'red' })).id });
    blue = await given.agent({ id: 'blue-agent', teamId: (await given.team({ id: 'blue' })).id });
  });
  afterAll(async () => {
    await given?.close();
    await app?.close();
    await db?.drop();
  });

  it('two team admins only see their own team, and the other team reads as NOT_FOUND, not FORBIDDEN', async () => {
    const redAdmin = token(['team-admin'], ['red']);
    const blueAdmin = token(['team-admin'], ['blue']);
    expect((await gqlOk(url, redAdmin, AGENTS)).agents.nodes).toEqual([{ id: 'red-agent' }]);
    expect((await gqlOk(url, blueAdmin, AGENTS)).agents.nodes).toEqual([{ id: 'blue-agent' }]);

    const forbidden = await gql(url, redAdmin, AGENT, { id: blue.id });
    const missing = await gql(url, redAdmin, AGENT, { id: 'no-such-agent' });
    expect(codeOf(forbidden)).toBe('NOT_FOUND');
    expect(forbidden.errors![0].message).toBe('agent "blue-agent" not found');
    expect(missing.errors![0].message).toBe('agent "no-such-agent" not found');
    expect(forbidden.errors![0].extensions).toEqual({ ...missing.errors![0].extensions, id: 'blue-agent' });

    const write = await gql(url, redAdmin, UPDATE, { input: { id: blue.id, expectedRevision: blue.revision, name: 'Hijacked' } });
    expect(codeOf(write)).toBe('NOT_FOUND');
    expect(await given.revisionOf(blue.id)).toBe(blue.revision);
    // Their manifests and projections are as invisible as their agents.
    expect(codeOf(await gql(url, redAdmin, 'query($id: String!) { publicCard(agentId: $id) { etag } }', { id: blue.id }))).toBe(
      'NOT_FOUND',
    );
  });

  it("lists only the manifests of the caller's teams, with their usage, whatever the filter names (ADR 0340)", async () => {
    await given.manifest(red, { id: 'red-cap' });
    await given.manifest(blue, { id: 'blue-cap' });
    // On blue's agent but owned by red: red reads it (owner team), and blue reads it (agent team).
    await given.manifest(blue, { id: 'blue-agent-red-owned', owner: 'red' });
    const node = await given.node(blue.id);
    await given.usage({ agentId: blue.id, capabilityId: 'blue-cap', tenantId: 't', nodeId: node.id, day: '2026-11-01', count: 7 });
    const LIST = 'query($f: ManifestFilter) { manifests(filter: $f) { nodes { agentId id usage { calls } } } }';
    const listed = async (jwt: string, f: object = {}) =>
      (await gqlOk(url, jwt, LIST, { f })).manifests.nodes.map((n: { agentId: string; id: string; usage: { calls: number } }) => [
        n.agentId,
        n.id,
        n.usage.calls,
      ]);
    const redAdmin = token(['team-admin'], ['red']);
    expect(await listed(redAdmin)).toEqual([
      ['blue-agent', 'blue-agent-red-owned', 0],
      ['red-agent', 'red-cap', 0],
    ]);
    expect(await listed(redAdmin, { agentId: blue.id })).toEqual([['blue-agent', 'blue-agent-red-owned', 0]]);
    expect(await listed(redAdmin, { owner: 'blue' })).toEqual([]);
    expect(await listed(redAdmin, { agentId: blue.id, state: 'ga', visibility: 'extended' })).toEqual([
      ['blue-agent', 'blue-agent-red-owned', 0],
    ]);
    expect(await listed(token(['team-admin'], ['blue']), { agentId: blue.id })).toEqual([
      ['blue-agent', 'blue-agent-red-owned', 0],
      ['blue-agent', 'blue-cap', 7],
    ]);
    // A team admin of no team, or of a team that does not exist, sees nothing; a filter value is data, not SQL.
    expect(await listed(token(['team-admin'], []))).toEqual([]);
    expect(await listed(token(['team-admin'], ["red' OR 1=1 --"]))).toEqual([]);
    expect(await listed(redAdmin, { agentId: "blue-agent' OR '1'='1", tag: 'x\'); DROP TABLE "Agent"; --' })).toEqual([]);
    expect((await gqlOk(url, token(['viewer']), LIST, { f: {} })).manifests.nodes).toHaveLength(3);
  });

  it('a platform admin and a viewer see every team', async () => {
    for (const roles of [['platform-admin'], ['viewer']]) {
      expect((await gqlOk(url, token(roles), AGENTS)).agents.nodes.map((n: { id: string }) => n.id)).toEqual(['blue-agent', 'red-agent']);
    }
  });

  it('a viewer reads but cannot mutate (FORBIDDEN, nothing written)', async () => {
    const viewer = token(['viewer'], ['red']);
    expect((await gqlOk(url, viewer, AGENT, { id: red.id })).agent.name).toBe('Finance Agent');
    const res = await gql(url, viewer, UPDATE, { input: { id: red.id, expectedRevision: red.revision, name: 'Viewer was here' } });
    expect(codeOf(res)).toBe('FORBIDDEN');
    expect(await given.revisionOf(red.id)).toBe(red.revision);
    const tenant = await gql(url, token(['team-admin'], ['red']), 'mutation { createTenant(input: {id: "t-1", name: "T"}) { id } }');
    expect(codeOf(tenant)).toBe('FORBIDDEN');
  });

  it('updates with the current revision, then refuses a stale expectedRevision with CONFLICT and writes nothing', async () => {
    const admin = token(['team-admin'], ['red'], 'alice');
    const current = await given.revisionOf(red.id);
    const updated = (
      await gqlOk(url, admin, UPDATE, {
        input: { id: red.id, expectedRevision: current, name: 'Red Agent', protocol: { extendedAgentCard: false, streaming: true } },
      })
    ).updateAgent;
    expect(updated).toEqual({ id: red.id, name: 'Red Agent', revision: current + 1 });

    // A protocol setting nodes cannot honour (0.3 without 1.0) is refused with the reason, and nothing is written.
    const versions = await gql(url, admin, UPDATE, {
      input: { id: red.id, expectedRevision: current + 1, protocol: { versions: ['0.3'] } },
    });
    expect(codeOf(versions)).toBe('BAD_USER_INPUT');
    expect(JSON.stringify(versions.errors![0].extensions)).toMatch(/must include \\"1\.0\\"/);
    expect(await given.revisionOf(red.id)).toBe(current + 1);

    const stale = await gql(url, admin, UPDATE, { input: { id: red.id, expectedRevision: current, name: 'Lost update' } });
    expect(codeOf(stale)).toBe('CONFLICT');
    expect(stale.errors![0].extensions).toMatchObject({ currentRevision: current + 1, expectedRevision: current });
    const after = (await gqlOk(url, admin, AGENT, { id: red.id })).agent;
    expect(after).toMatchObject({ name: 'Red Agent', revision: current + 1 });
    const audit = await gqlOk(
      url,
      admin,
      'query($id: String) { auditEvents(filter: {agentId: $id}) { nodes { action actor revision } } }',
      { id: red.id },
    );
    expect(audit.auditEvents.nodes).toEqual([{ action: 'agent.update', actor: 'alice', revision: current + 1 }]);
  });

  it('creates an agent at revision 1 in a team the caller administers, with every invalid field reported', async () => {
    const admin = token(['team-admin'], ['red']);
    const create =
      'mutation($input: CreateAgentInput!) { createAgent(input: $input) { id teamId revision protocol { extendedAgentCard } extensions { uri required } } }';
    const input = {
      id: 'red-two',
      teamId: 'red',
      name: 'Red two',
      description: 'Second red agent.',
      version: '0.1.0',
      supportedInterfaces: [{ url: 'https://red.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['application/json'],
      extensions: [{ uri: 'https://example.com/ext/trace', required: false, params: { level: 1 } }],
    };
    expect((await gqlOk(url, admin, create, { input })).createAgent).toEqual({
      id: 'red-two',
      teamId: 'red',
      revision: 1,
      protocol: { extendedAgentCard: true },
      extensions: [{ uri: 'https://example.com/ext/trace', required: false }],
    });
    expect(codeOf(await gql(url, admin, create, { input }))).toBe('CONFLICT');
    expect(codeOf(await gql(url, admin, create, { input: { ...input, id: 'blue-two', teamId: 'blue' } }))).toBe('NOT_FOUND');

    const bad = await gql(url, admin, create, {
      input: {
        ...input,
        id: 'red-three',
        version: 'one',
        supportedInterfaces: [{ url: 'ftp://x', protocolBinding: 'SOAP', protocolVersion: '1' }],
      },
    });
    expect(codeOf(bad)).toBe('BAD_USER_INPUT');
    const paths = (bad.errors![0].extensions.validationErrors as { path: string }[]).map((e) => e.path).sort();
    expect(paths).toEqual([
      '$.supportedInterfaces[0].protocolBinding',
      '$.supportedInterfaces[0].protocolVersion',
      '$.supportedInterfaces[0].url',
      '$.version',
    ]);
    expect(codeOf(await gql(url, admin, AGENT, { id: 'red-three' }))).toBe('NOT_FOUND');
  });

  it('paginates with opaque cursors and refuses a forged one', async () => {
    const admin = token(['platform-admin']);
    const first = (await gqlOk(url, admin, '{ agents(page: {first: 1}) { nodes { id } pageInfo { hasNextPage endCursor } } }')).agents;
    expect(first.pageInfo.hasNextPage).toBe(true);
    const next = (
      await gqlOk(url, admin, 'query($after: String) { agents(page: {first: 1, after: $after}) { nodes { id } } }', {
        after: first.pageInfo.endCursor,
      })
    ).agents;
    expect(next.nodes[0].id > first.nodes[0].id).toBe(true);
    const forged = await gql(url, admin, '{ agents(page: {after: "garbage!"}) { nodes { id } } }');
    expect(codeOf(forged)).toBe('BAD_USER_INPUT');
    expect(codeOf(await gql(url, admin, '{ agents(page: {first: 1000}) { nodes { id } } }'))).toBe('BAD_USER_INPUT');
  });
});
