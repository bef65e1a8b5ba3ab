/**
 * Fuzzing the running control plane's GraphQL endpoint (fast-check): random and mutated
 * documents and variables (deep nesting, huge alias lists, malformed syntax, wrong variable
 * types, huge strings, unicode), sent without a token, with bad tokens and with tokens that may
 * read but not change the finance agent. Properties, for every input:
 *   - never a 5xx, and never INTERNAL_SERVER_ERROR inside an answer (execution errors answer 200);
 *   - the registry is unchanged (agents and revisions, manifests, tenants, scopes, opt-ins,
 *     revision and audit rows compared before and after the run);
 *   - no answer to a caller without a valid token, or to another team's admin, contains a string
 *     only the finance agent's extended card holds.
 * The run is bounded (NUM_RUNS inputs, seeded so a failure replays) and prints how many inputs it tried.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import fc from 'fast-check';
import { getIntrospectionQuery } from 'graphql';
import { mintAdminToken, mintNodeToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { givenDb, type GivenDb } from '../support/given-db';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const NUM_RUNS = 400;
const SEED = 11_2026;

/** Text only the extended-only capability holds (reconcile-invoice of the finance example). */
const EXTENDED_ONLY = ['reconcile-invoice', 'Reconcile an invoice', 'Matches an invoice to its purchase order'];

const SEEDS = [
  '{ agents { nodes { id name description teamId revision } } }',
  '{ agent(id: "finance-agent") { id revision } }',
  '{ manifests(filter: {agentId: "finance-agent"}) { nodes { id state visibility skill { name description tags } usage { calls } } } }',
  '{ manifest(agentId: "finance-agent", id: "reconcile-invoice") { id skill { name description } } }',
  'query($id: String!) { agent(id: $id) { id } }',
  // NUL (GraphQL escape) in a lookup and a filter: PostgreSQL refuses it; the API must answer BAD_USER_INPUT.
  '{ agent(id: "finance-agent\\u0000") { id } }',
  '{ manifests(filter: {agentId: "a\\u0000b"}, page: {first: 10}) { nodes { id } } }',
  'query($as: CallerInput) { routerIndex(agentId: "finance-agent", as: $as) { value } }',
  'query($as: CallerInput!) { extendedCard(agentId: "finance-agent", as: $as) { body } }',
  '{ publicCard(agentId: "finance-agent") { body } }',
  '{ explainVisibility(agentId: "finance-agent", capabilityId: "reconcile-invoice") { rule reason } }',
  '{ teams { nodes { id } } tenants { nodes { id } } scopes { nodes { name } } }',
  '{ me { subject roles teams } }',
  'mutation { updateAgent(input: {id: "finance-agent", expectedRevision: 1, description: "pwned"}) { revision } }',
  'mutation($input: CreateAgentInput!) { createAgent(input: $input) { id } }',
  'mutation { createTenant(input: {id: "evil", name: "Evil"}) { id } }',
  'mutation { deleteTenant(id: "acme-partner") }',
  'mutation { optInToPreviews(tenantId: "globex", agentId: "finance-agent") { tenantId } }',
  getIntrospectionQuery(),
];

const unicode = fc.string({ unit: 'grapheme', maxLength: 40 });
const weird = fc.constantFrom(
  '\u202e',
  '\u200b',
  '\u0000',
  // The GraphQL escape: a NUL that parses and would reach PostgreSQL (which refuses it).
  '\\u0000',
  '\ud83d\ude00',
  'е',
  '"',
  '\\',
  '{',
  '}',
  '(',
  ')',
  '$',
  '...',
  '#',
  '\n',
  '@include(if: true)',
);

/** One edit of a document: insert, delete, replace or duplicate a span. */
const mutate = (doc: string) =>
  fc
    .tuple(fc.nat({ max: doc.length }), fc.nat({ max: 40 }), fc.oneof(unicode, weird), fc.integer({ min: 0, max: 3 }))
    .map(([at, len, text, op]) => {
      if (op === 0) return doc.slice(0, at) + text + doc.slice(at);
      if (op === 1) return doc.slice(0, at) + doc.slice(at + len);
      if (op === 2) return doc.slice(0, at) + text + doc.slice(at + len);
      return doc.slice(0, at + len) + doc.slice(at, at + len) + doc.slice(at + len);
    });

const document = fc.oneof(
  fc.constantFrom(...SEEDS),
  fc
    .constantFrom(...SEEDS)
    .chain((doc) =>
      fc
        .array(fc.constant(null), { minLength: 1, maxLength: 4 })
        .chain((edits) => edits.reduce<fc.Arbitrary<string>>((acc) => acc.chain(mutate), fc.constant(doc))),
    ),
  // deep nesting
  fc.integer({ min: 5, max: 3000 }).map((n) => `{ ${'agents { nodes { '.repeat(n)}id${' } }'.repeat(n)} }`),
  fc.integer({ min: 5, max: 3000 }).map((n) => `${'{'.repeat(n)}${'}'.repeat(n)}`),
  // huge alias lists, named as introspection or not
  fc
    .tuple(fc.integer({ min: 10, max: 6000 }), fc.boolean(), fc.constantFrom('__typename', 'me { subject }', 'agents { nodes { id } }'))
    .map(
      ([n, named, field]) =>
        `${named ? 'query IntrospectionQuery ' : ''}{ ${Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ')} }`,
    ),
  // fragment bombs
  fc
    .integer({ min: 2, max: 12 })
    .map(
      (n) =>
        `{ ...F0 } ${Array.from({ length: n }, (_, i) => `fragment F${i} on Query { ${i + 1 < n ? `...F${i + 1} `.repeat(4) : 'agents { nodes { id } }'} }`).join(' ')}`,
    ),
  // huge strings and unicode in arguments
  fc
    .tuple(fc.integer({ min: 1, max: 300_000 }), unicode)
    .map(([n, u]) => `{ agent(id: "${u.replace(/["\\]/g, '')}${'x'.repeat(n)}") { id } }`),
  // anything at all
  fc.string({ unit: 'binary', maxLength: 200 }),
);

const variables = fc.oneof(
  fc.constant({}),
  fc.record({ id: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.object(), fc.array(fc.string())) }),
  fc.record({ id: fc.constantFrom('finance-agent\u0000', '\u0000x') }),
  fc.record({ as: fc.oneof(fc.constant({ tenant: 'acme-partner', scopes: ['recon.run'] }), fc.object(), fc.string(), fc.constant(null)) }),
  fc.record({ input: fc.oneof(fc.object(), fc.constant({ id: 'evil-agent', teamId: 'finance' }), fc.string()) }),
  fc.anything(),
);

type Who = 'none' | 'garbage' | 'node-token' | 'other-team-admin' | 'viewer';
const who = fc.constantFrom<Who>('none', 'garbage', 'node-token', 'other-team-admin', 'viewer');

describe('GraphQL fuzz: never a 5xx, never a changed registry, never a leaked extended-only string', () => {
  let db: TestDatabase;
  let app: NestFastifyApplication;
  let url: string;
  let config: AppConfig;
  let given: GivenDb;
  let tokens: Record<Who, string | undefined>;

  beforeAll(async () => {
    db = await createTestDatabase('sec_graphql_fuzz');
    config = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: `test:sec-fuzz:${process.pid}:` });
    ({ app, url } = await bootApp(AppModule, config));
    given = givenDb(db.url);
    await given.financeExample();
    tokens = {
      none: undefined,
      garbage: 'x.y.z',
      'node-token': mintNodeToken(config, 'finance-agent'),
      'other-team-admin': mintAdminToken(config, 'mallory', ['team-admin'], ['no-such-team']),
      viewer: mintAdminToken(config, 'vera', ['viewer']),
    };
  });
  afterAll(async () => {
    await given?.close();
    await app?.close();
    await db?.drop();
  });

  const registry = async () => {
    const p = given.prisma;
    return JSON.stringify({
      agents: await p.agent.findMany({ orderBy: { id: 'asc' } }),
      manifests: await p.capabilityManifest.findMany({ orderBy: [{ agentId: 'asc' }, { capabilityId: 'asc' }] }),
      tenants: await p.tenant.findMany({ orderBy: { id: 'asc' } }),
      scopes: await p.scope.findMany({ orderBy: { name: 'asc' } }),
      optIns: await p.previewOptIn.findMany({ orderBy: [{ tenantId: 'asc' }, { agentId: 'asc' }] }),
      teams: await p.team.findMany({ orderBy: { id: 'asc' } }),
      revisions: await p.registryRevision.count(),
      audit: await p.auditEvent.count(),
    });
  };

  it(`${NUM_RUNS} random and mutated documents`, async () => {
    const before = await registry();
    let tried = 0;
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(document, variables, who, fc.boolean(), async (query, vars, caller, rawBody) => {
        tried += 1;
        const token = tokens[caller];
        const res = await fetch(`${url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
          // Sometimes the raw document as the body: not JSON at all.
          body: rawBody && caller === 'none' ? query : JSON.stringify({ query, variables: vars }),
        });
        const text = await res.text();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status >= 500) throw new Error(`HTTP ${res.status} for ${JSON.stringify(query).slice(0, 300)}: ${text.slice(0, 500)}`);
        // A server fault inside a GraphQL answer travels with HTTP 200: it is refused as well.
        if (text.includes('INTERNAL_SERVER_ERROR'))
          throw new Error(
            `server fault for ${JSON.stringify(query).slice(0, 300)} ${JSON.stringify(vars).slice(0, 300)}: ${text.slice(0, 500)}`,
          );
        if (caller !== 'viewer')
          for (const secret of EXTENDED_ONLY) if (text.includes(secret)) throw new Error(`leaked "${secret}" to ${caller}`);
      }),
      { numRuns: NUM_RUNS, seed: SEED, endOnFailure: true },
    );
    expect(await registry()).toBe(before);
    expect(tried).toBe(NUM_RUNS);
    console.log(`graphql fuzz: ${tried} inputs tried; HTTP statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
  }, 120_000);
});
