/**
 * Repeated documents run compiled (graphql-jit, ADR 196). Two apps on one database: the default
 * (a document's first run through graphql-js, later runs compiled) and GRAPHQL_JIT=false (graphql-js
 * always). Every operation below is asked three times of the first and once of the second; the four
 * answers (status and body) must be the same, with the compiled path counted as taken. The sample:
 * the admin list with usage (prefetched and windowed), fragments, aliases, @skip/@include, team
 * scoping, an unauthenticated and a forbidden call, domain errors, partial results, a refused
 * mutation and ill-typed variables.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mintAdminToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { CompiledExecutor } from '../../apps/control-plane/src/graphql/compiled-executor';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { givenDb, type GivenAgent, type GivenDb } from '../support/given-db';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const LIST = `query($agentId: String!) { manifests(filter: {agentId: $agentId}, page: {first: 100}) {
  nodes { id state visibility skill { name } usage { calls lastCallAt } } pageInfo { hasNextPage endCursor } } }`;

type Answer = { status: number; body: unknown };

describe('compiled execution answers as graphql-js does (HTTP)', () => {
  let db: TestDatabase;
  let jit: NestFastifyApplication;
  let plain: NestFastifyApplication;
  let jitUrl: string;
  let plainUrl: string;
  let config: AppConfig;
  let given: GivenDb;
  let red: GivenAgent;
  let blue: GivenAgent;
  const token = (roles: string[], teams: string[] = []) => mintAdminToken(config, 'someone', roles, teams);

  beforeAll(async () => {
    db = await createTestDatabase('admin_compiled');
    const base = { DATABASE_URL: db.url };
    config = testConfig({ ...base, REDIS_KEY_PREFIX: `test:admin-compiled:${process.pid}:jit:` });
    ({ app: jit, url: jitUrl } = await bootApp(AppModule, config));
    ({ app: plain, url: plainUrl } = await bootApp(
      AppModule,
      testConfig({ ...base, GRAPHQL_JIT: 'false', REDIS_KEY_PREFIX: `test:admin-compiled:${process.pid}:plain:` }),
    ));
    given = givenDb(db.url);
    red = await given.agent({ id: 'red-agent', teamId: (await given.team({ id: 'red' })).id });
    blue = await given.agent({ id: 'blue-agent', teamId: (await given.team({ id: 'blue' })).id });
    await given.manifests(red, 30);
    await given.manifests(blue, 3);
    const node = await given.node(red.id);
    for (let i = 0; i < 30; i += 4)
      await given.usage({
        agentId: red.id,
        capabilityId: `cap-${String(i).padStart(5, '0')}`,
        tenantId: 't',
        nodeId: node.id,
        day: '2026-11-0' + (1 + (i % 9)),
        count: i + 1,
      });
  });
  afterAll(async () => {
    await given?.close();
    await jit?.close();
    await plain?.close();
    await db?.drop();
  });

  const ask = async (url: string, bearer: string | undefined, query: string, variables: unknown): Promise<Answer> => {
    const res = await fetch(`${url.replace(/\/$/, '')}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
      body: JSON.stringify({ query, variables }),
    });
    // An internal error's errorId is random per answer; nothing else may differ.
    const text = (await res.text()).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<errorId>');
    return { status: res.status, body: JSON.parse(text) as unknown };
  };

  /** The same answer from graphql-js and from three runs on the jit app (the second and third compiled). */
  const sameEverywhere = async (bearer: string | undefined, query: string, variables: unknown = {}): Promise<Answer> => {
    const runs = jit.get(CompiledExecutor).runs;
    const compiledBefore = runs.compiled;
    const reference = await ask(plainUrl, bearer, query, variables);
    for (let i = 0; i < 3; i++) expect(await ask(jitUrl, bearer, query, variables)).toEqual(reference);
    return { ...reference, compiled: runs.compiled - compiledBefore } as Answer & { compiled: number };
  };
  const compiledRuns = (answer: Answer) => (answer as Answer & { compiled: number }).compiled;

  it('the admin list with usage: same page, same totals, the later runs compiled', async () => {
    const answer = await sameEverywhere(token(['viewer']), LIST, { agentId: red.id });
    const nodes = (answer.body as { data: { manifests: { nodes: { usage: { calls: number } }[] } } }).data.manifests.nodes;
    expect(nodes).toHaveLength(30);
    expect(nodes[4].usage.calls).toBe(5);
    expect(compiledRuns(answer)).toBe(2);
    // graphql-js on the plain app every time.
    expect(plain.get(CompiledExecutor).runs).toEqual({ compiled: 0, interpreted: 0 });
  });

  it('fragments, aliases, @skip/@include, __typename and a windowed usage (the field resolver with its guard)', async () => {
    const query = `query($agentId: String!, $withSkill: Boolean!, $first: Int) {
      a: manifests(filter: {agentId: $agentId}, page: {first: $first}) { nodes { ...M b: id skill @include(if: $withSkill) { name tags } } }
      b: manifests(filter: {agentId: $agentId}, page: {first: 2}) { __typename nodes { id state @skip(if: $withSkill) usage(window: {from: "2026-11-01", to: "2026-11-03"}) { calls lastCallAt } } }
    }
    fragment M on CapabilityManifest { id owner handler usage { calls } }`;
    for (const withSkill of [true, false]) {
      const answer = await sameEverywhere(token(['viewer']), query, { agentId: red.id, withSkill, first: 5 });
      expect(answer.status).toBe(200);
      expect(compiledRuns(answer)).toBe(withSkill ? 2 : 3);
    }
  });

  it('team scoping: a team admin sees its own team, and the other team reads as NOT_FOUND, compiled as interpreted', async () => {
    const redAdmin = token(['team-admin'], ['red']);
    const agents = await sameEverywhere(redAdmin, '{ agents { nodes { id } } }');
    expect(agents.body).toEqual({ data: { agents: { nodes: [{ id: 'red-agent' }] } } });
    const other = await sameEverywhere(redAdmin, 'query($id: String!) { agent(id: $id) { id name } }', { id: blue.id });
    expect((other.body as { errors: { extensions: { code: string } }[] }).errors[0].extensions.code).toBe('NOT_FOUND');
    const blueList = await sameEverywhere(redAdmin, LIST, { agentId: blue.id });
    expect(blueList.body).toEqual((await ask(plainUrl, redAdmin, LIST, { agentId: blue.id })).body);
    expect(compiledRuns(other)).toBe(2);
  });

  it('partial results: a failing root field is null with its error, the others answer', async () => {
    const answer = await sameEverywhere(
      token(['team-admin'], ['red']),
      'query($id: String!) { mine: agents { nodes { id revision } } theirs: agent(id: $id) { id } again: agent(id: "red-agent") { id } }',
      { id: blue.id },
    );
    const body = answer.body as { data: unknown; errors: { path: unknown[] }[] };
    // agent is non-null, so its error nulls the whole data, exactly as graphql-js does.
    expect(body.data).toBeNull();
    expect(body.errors.map((e) => e.path)).toEqual([['theirs']]);
  });

  it('without a token, with a viewer mutating, with a stale revision: the same refusals', async () => {
    expect((await sameEverywhere(undefined, LIST, { agentId: red.id })).body).toMatchObject({
      errors: [{ extensions: { code: 'UNAUTHENTICATED' } }],
    });
    const update = 'mutation($input: UpdateAgentInput!) { updateAgent(input: $input) { id revision } }';
    const viewer = await sameEverywhere(token(['viewer']), update, { input: { id: red.id, expectedRevision: red.revision, name: 'X' } });
    expect(viewer.body).toMatchObject({ errors: [{ extensions: { code: 'FORBIDDEN' } }] });
    const stale = await sameEverywhere(token(['platform-admin']), update, {
      input: { id: red.id, expectedRevision: red.revision + 7, name: 'X' },
    });
    expect(stale.body).toMatchObject({ errors: [{ extensions: { code: 'CONFLICT' } }] });
    // Mutations stay on graphql-js (their inputs are objects: see the next test).
    expect(compiledRuns(stale)).toBe(0);
    expect(await given.revisionOf(red.id)).toBe(red.revision);
  });

  it('a query with an input-object variable stays on graphql-js; an omitted variable inside a written object is coerced the same', async () => {
    // graphql-jit does not apply an input field's default to a variable's object (ADR 196).
    const byFilter = await sameEverywhere(
      token(['viewer']),
      'query($f: ManifestFilter!) { manifests(filter: $f, page: {first: 3}) { nodes { id } } }',
      { f: { agentId: red.id } },
    );
    expect(compiledRuns(byFilter)).toBe(0);
    expect((byFilter.body as { data: { manifests: { nodes: unknown[] } } }).data.manifests.nodes).toHaveLength(3);
    const omitted = await sameEverywhere(
      token(['viewer']),
      'query($agentId: String!, $first: Int) { manifests(filter: {agentId: $agentId}, page: {first: $first}) { nodes { id } } }',
      { agentId: red.id },
    );
    expect(compiledRuns(omitted)).toBe(2);
    expect((omitted.body as { data: { manifests: { nodes: unknown[] } } }).data.manifests.nodes).toHaveLength(30);
  });

  it('ill-typed variables and an unknown operation name are refused before execution, the same way', async () => {
    const bad = await sameEverywhere(token(['viewer']), LIST, { agentId: 42 });
    expect(bad.status).toBe(400);
    const unknown = await ask(jitUrl, token(['viewer']), `query A { agents { nodes { id } } }`, {});
    expect(unknown.status).toBe(200);
    const twoOps = 'query A { agents { nodes { id } } } query B { agents { nodes { name } } }';
    for (const operationName of ['A', 'B', 'C']) {
      const res = await Promise.all(
        [plainUrl, jitUrl, jitUrl, jitUrl].map((url) =>
          fetch(`${url}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token(['viewer'])}` },
            body: JSON.stringify({ query: twoOps, operationName }),
          }).then(async (r) => ({ status: r.status, body: await r.json() })),
        ),
      );
      for (const answer of res.slice(1)) expect(answer).toEqual(res[0]);
    }
  });
});
