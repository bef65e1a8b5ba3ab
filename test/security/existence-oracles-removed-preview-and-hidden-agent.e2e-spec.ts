/**
 * Issue 11 item 11: neither a removed preview nor another team's agent may be confirmed to exist.
 * - A tombstone (removed capability, "use X instead") is shown only to callers who could have used
 *   the capability: a preview removed straight from preview was only ever usable by opted-in
 *   tenants, so a tenant never opted in (or an anonymous caller) learns nothing about it.
 * - createAgent with an id taken by an agent the team admin cannot see answers exactly like an id
 *   taken by its own agent (CONFLICT, AGENT_ID_UNAVAILABLE, no holder named), while agent(id) keeps
 *   answering NOT_FOUND.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mintAdminToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { givenDb, type GivenAgent, type GivenDb } from '../support/given-db';
import { codeOf, gql, gqlOk } from '../support/graphql-client';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const ROUTER_INDEX = 'query($id: String!, $as: CallerInput) { routerIndex(agentId: $id, as: $as) { value } }';

describe('no existence oracle: removed previews and hidden agents', () => {
  let db: TestDatabase;
  let app: NestFastifyApplication;
  let url: string;
  let config: AppConfig;
  let given: GivenDb;
  let agent: GivenAgent;
  let platform: string;

  beforeAll(async () => {
    db = await createTestDatabase('sec_existence_oracles');
    config = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: `test:sec-oracles:${process.pid}:` });
    ({ app, url } = await bootApp(AppModule, config));
    given = givenDb(db.url);
    await given.team({ id: 'red' });
    await given.team({ id: 'blue' });
    agent = await given.agent({ id: 'blue-secret-agent', teamId: 'blue' });
    await given.tenant({ id: 'opted-in' });
    await given.tenant({ id: 'never-opted' });
    await given.optIn('opted-in', agent.id);
    // Previews, then removed straight from preview (as the lifecycle allows): never deprecated.
    await given.manifest(agent, { id: 'secret-preview', state: 'preview', visibility: 'extended', tenants: '*' });
    await given.manifest(agent, { id: 'public-preview', state: 'preview', visibility: 'public', tenants: '*' });
    await given.prisma.capabilityManifest.updateMany({
      where: { agentId: agent.id, capabilityId: { in: ['secret-preview', 'public-preview'] } },
      data: { state: 'removed', removedAt: new Date() },
    });
    // A public capability deprecated, then removed: its tombstone is for everyone, as before.
    await given.manifest(agent, { id: 'old-lookup', state: 'removed', visibility: 'public', deprecationReason: 'no longer offered' });
    platform = mintAdminToken(config, 'root', ['platform-admin']);
  });
  afterAll(async () => {
    await given?.close();
    await app?.close();
    await db?.drop();
  });

  const tombstones = async (as: { tenant: string; scopes?: string[] } | null) => {
    const data = await gqlOk(url, platform, ROUTER_INDEX, { id: agent.id, as: as && { scopes: [], ...as } });
    return (data.routerIndex.value.tombstones as { id: string }[]).map((t) => t.id).sort();
  };

  it('shows a removed preview tombstone only to a tenant that opted in', async () => {
    expect(await tombstones({ tenant: 'opted-in' })).toEqual(['old-lookup', 'public-preview', 'secret-preview']);
    expect(await tombstones({ tenant: 'never-opted' })).toEqual(['old-lookup']);
  });

  it('shows an anonymous caller the deprecated-then-removed tombstone but no removed preview', async () => {
    expect(await tombstones(null)).toEqual(['old-lookup']);
  });

  it('answers createAgent for an id held by a hidden agent exactly as for an id held by its own agent', async () => {
    await given.agent({ id: 'red-own-agent', teamId: 'red' });
    const redAdmin = mintAdminToken(config, 'rita', ['team-admin'], ['red']);
    const create = 'mutation($input: CreateAgentInput!) { createAgent(input: $input) { id } }';
    const input = (id: string) => ({
      id,
      teamId: 'red',
      name: 'Red',
      description: 'A red agent.',
      version: '0.1.0',
      supportedInterfaces: [{ url: 'https://red.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['application/json'],
    });
    const hidden = await gql(url, redAdmin, create, { input: input(agent.id) });
    const own = await gql(url, redAdmin, create, { input: input('red-own-agent') });
    expect(codeOf(hidden)).toBe('CONFLICT');
    expect(hidden.errors![0].extensions).toEqual({ code: 'CONFLICT', reason: 'AGENT_ID_UNAVAILABLE', id: agent.id });
    expect(hidden.errors![0].message).toBe(`agent id "${agent.id}" is not available: choose another id`);
    // Same shape, same wording: only the id differs.
    expect(JSON.stringify(own.errors![0]).replaceAll('red-own-agent', 'X')).toBe(
      JSON.stringify(hidden.errors![0]).replaceAll(agent.id, 'X'),
    );
    expect(JSON.stringify(hidden).replaceAll(agent.id, 'X')).not.toMatch(/blue|exists/);
    // And reading it still says NOT_FOUND, as for an id nobody holds.
    const read = await gql(url, redAdmin, 'query($id: String!) { agent(id: $id) { id } }', { id: agent.id });
    const missing = await gql(url, redAdmin, 'query($id: String!) { agent(id: $id) { id } }', { id: 'nobody-agent' });
    expect(codeOf(read)).toBe('NOT_FOUND');
    expect(JSON.stringify(read.errors![0]).replaceAll(agent.id, 'X')).toBe(
      JSON.stringify(missing.errors![0]).replaceAll('nobody-agent', 'X'),
    );
    // Nothing was created or changed.
    expect(await given.revisionOf(agent.id)).toBe(agent.revision);
  });
});
