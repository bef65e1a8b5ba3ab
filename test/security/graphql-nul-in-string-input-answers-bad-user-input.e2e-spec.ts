/**
 * PostgreSQL text and jsonb cannot hold NUL (U+0000). A GraphQL string argument holding one, in a
 * query filter or a mutation input, inline or through a variable, in a String or inside a JSON
 * value, is the caller's mistake: BAD_USER_INPUT with HTTP 400 naming the argument path, nothing
 * written, no error id, no SQL text, nothing logged as an error. It used to reach PostgreSQL and
 * come back as INTERNAL_SERVER_ERROR (SQLSTATE 22021).
 */

import { financeAgentExample, toManifestDocument } from '@cp/capabilities';
import { mapKnownError } from '../../apps/control-plane/src/common/errors/error-formatter';
import type { GivenDb } from '../support/given-db';
import { gql, gqlOk, type GqlResponse } from '../support/graphql-client';
import { LogCapture } from '../support/log-capture';
import { financeAdminApp, type FinanceAdminApp } from '../support/finance-admin-app';

const NUL = '\u0000';
/** The same character as a GraphQL string escape, for inline literals. */
const NUL_ESCAPE = '\\u0000';

describe('a NUL character in a GraphQL string argument answers BAD_USER_INPUT naming its path', () => {
  let url: string;
  let given: GivenDb;
  let admin: string;
  const logs = new LogCapture();
  const example = financeAgentExample();
  const docs = example.manifests.map(toManifestDocument);
  const agentId = 'finance-agent';

  let stack: FinanceAdminApp;

  beforeAll(async () => {
    stack = await financeAdminApp('sec_graphql_nul', { agentId, logs, config: { LOG_LEVEL: 'info' } });
    ({ url, given, admin } = stack);
  });
  afterAll(async () => {
    await stack?.close();
  });

  /** Everything a refused request must leave as it was. */
  const snapshot = async () => ({
    revision: await given.revisionOf(agentId),
    agent: await given.prisma.agent.findUniqueOrThrow({ where: { id: agentId }, select: { description: true, updatedAt: true } }),
    manifests: await given.prisma.capabilityManifest.findMany({ where: { agentId }, orderBy: { capabilityId: 'asc' } }),
    revisions: await given.prisma.registryRevision.count({ where: { agentId } }),
    audit: await given.prisma.auditEvent.count(),
  });

  const expectRefused = async (res: GqlResponse, path: string) => {
    expect(res.status).toBe(400);
    expect(res.data ?? null).toBeNull();
    expect(res.errors).toHaveLength(1);
    const [error] = res.errors!;
    expect(error.extensions.code).toBe('BAD_USER_INPUT');
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/must not contain NUL/);
    expect(error.extensions.validationErrors).toEqual(expect.arrayContaining([{ path, message: expect.stringMatching(/NUL/) }]));
    const text = JSON.stringify(res.errors);
    expect(text).not.toMatch(/errorId|internal|22021|22P05|byte sequence|UTF8|prisma|SELECT|INSERT|UPDATE "/i);
    await new Promise((r) => setTimeout(r, 50));
    expect(logs.atLeast(50)).toEqual([]);
  };

  beforeEach(() => logs.clear());

  it.each([
    [
      'a query filter, inline',
      `{ manifests(filter: { agentId: "a${NUL_ESCAPE}b" }, page: { first: 10 }) { nodes { id } } }`,
      {},
      'manifests(filter.agentId)',
    ],
    [
      'a query filter, through an input variable',
      'query($f: ManifestFilter) { manifests(filter: $f, page: { first: 10 }) { nodes { id } } }',
      { f: { agentId: `a${NUL}b` } },
      '$f.agentId',
    ],
    [
      'a query filter, through a String variable',
      'query($a: String) { manifests(filter: { agentId: $a }, page: { first: 10 }) { nodes { id } } }',
      { a: `a${NUL}b` },
      '$a',
    ],
    [
      "a variable's default value",
      `query($a: String = "${NUL_ESCAPE}") { manifests(filter: { agentId: $a }, page: { first: 10 }) { nodes { id } } }`,
      {},
      '$a (default)',
    ],
    ['a lookup by id, inline', `{ agent(id: "finance-agent${NUL_ESCAPE}") { id } }`, {}, 'agent(id)'],
    [
      'a fragment',
      `{ ...F } fragment F on Query { agents(filter: { teamId: "x${NUL_ESCAPE}" }) { nodes { id } } }`,
      {},
      'agents(filter.teamId)',
    ],
  ])('in %s', async (_name, query, variables, path) => {
    const before = await snapshot();
    await expectRefused(await gql(url, admin, query, variables), path);
    expect(await snapshot()).toEqual(before);
  });

  it('in updateAgent input, inline and through a variable; the agent keeps its description', async () => {
    const before = await snapshot();
    await expectRefused(
      await gql(
        url,
        admin,
        `mutation { updateAgent(input: { id: "${agentId}", expectedRevision: ${before.revision}, description: "pwn${NUL_ESCAPE}ed" }) { revision } }`,
      ),
      'updateAgent(input.description)',
    );
    await expectRefused(
      await gql(url, admin, 'mutation($input: UpdateAgentInput!) { updateAgent(input: $input) { revision } }', {
        input: { id: agentId, expectedRevision: before.revision, description: `pwn${NUL}ed`, defaultInputModes: ['text/plain', NUL] },
      }),
      '$input.description',
    );
    expect(await snapshot()).toEqual(before);
  });

  it('in a manifest document (JSON) of createManifest and updateManifest, values and keys, inline and through a variable', async () => {
    const before = await snapshot();
    const mutation = (op: string) => `mutation($input: ManifestDocumentInput!) { ${op}(input: $input) { revision } }`;
    const fresh = { ...docs[0], id: 'nul-test', handler: 'nul.v1.test', skill: { ...docs[0].skill, description: `x${NUL}y` } };
    await expectRefused(
      await gql(url, admin, mutation('createManifest'), { input: { agentId, expectedRevision: before.revision, manifest: fresh } }),
      '$input.manifest.skill.description',
    );
    const taggedKey = { ...docs[0], skill: { ...docs[0].skill, tags: ['ok', `t${NUL}`] } };
    await expectRefused(
      await gql(url, admin, mutation('updateManifest'), { input: { agentId, expectedRevision: before.revision, manifest: taggedKey } }),
      '$input.manifest.skill.tags[1]',
    );
    const badKey = { ...docs[0], [`k${NUL}`]: 1 };
    const keyRes = await gql(url, admin, mutation('updateManifest'), {
      input: { agentId, expectedRevision: before.revision, manifest: badKey },
    });
    await expectRefused(keyRes, '$input.manifest');
    // Inline: the JSON scalar's literal.
    await expectRefused(
      await gql(
        url,
        admin,
        `mutation { updateManifest(input: { agentId: "${agentId}", expectedRevision: ${before.revision}, manifest: { id: "${docs[0].id}", skill: { description: "a${NUL_ESCAPE}" } } }) { revision } }`,
      ),
      'updateManifest(input.manifest.skill.description)',
    );
    expect(await snapshot()).toEqual(before);
    expect(await given.prisma.capabilityManifest.count({ where: { capabilityId: 'nul-test' } })).toBe(0);
  });

  it('names every offending path, and still answers ordinary strings (tabs, newlines, unicode) as before', async () => {
    const res = await gql(
      url,
      admin,
      'query($f: ManifestFilter, $t: String) { manifests(filter: $f) { nodes { id } } m2: manifests(filter: { tag: $t }) { nodes { id } } }',
      {
        f: { agentId: NUL, owner: NUL },
        t: NUL,
      },
    );
    expect(res.status).toBe(400);
    expect((res.errors![0].extensions.validationErrors as { path: string }[]).map((e) => e.path).sort()).toEqual([
      '$f.agentId',
      '$f.owner',
      '$t',
    ]);
    const ok = await gqlOk(url, admin, 'query($a: String) { manifests(filter: { agentId: $a }) { nodes { id } } }', {
      a: `finance-agent\t\n\u202e\u200b😀`,
    });
    expect(ok.manifests.nodes).toEqual([]);
  });

  it('safety net: what PostgreSQL answers for NUL through Prisma (text 22021, jsonb 22P05, raw SQL) maps to BAD_USER_INPUT without the SQL', async () => {
    const before = await snapshot();
    const attempts: [string, () => Promise<unknown>][] = [
      ['a text filter', () => given.prisma.agent.findMany({ where: { id: `a${NUL}b` } })],
      ['a text write', () => given.prisma.agent.update({ where: { id: agentId }, data: { description: `a${NUL}b` } })],
      ['a jsonb write', () => given.prisma.agent.update({ where: { id: agentId }, data: { securitySchemes: { k: `a${NUL}b` } } })],
      ['a raw query', () => given.prisma.$queryRaw`SELECT id FROM "Agent" WHERE id = ${`a${NUL}b`}`],
    ];
    for (const [name, attempt] of attempts) {
      const error: unknown = await attempt().then(
        () => new Error(`${name} was stored`),
        (e: unknown) => e,
      );
      const mapped = mapKnownError(error);
      expect({ name, code: mapped?.extensions.code }).toEqual({ name, code: 'BAD_USER_INPUT' });
      expect(JSON.stringify(mapped)).not.toMatch(/22021|22P05|byte sequence|SELECT|UPDATE|Agent"/);
      expect(mapped!.message).toMatch(/NUL/);
    }
    expect(await snapshot()).toEqual(before);
  });
});
