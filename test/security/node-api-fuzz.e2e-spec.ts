/**
 * Fuzzing the node API of a running control plane (real HTTP, PostgreSQL, Redis) with fast-check:
 * random and mutated JSON bodies for register, heartbeat, ack, usage, token exchange and card
 * signatures (huge
 * numbers, deep nesting, unicode and bidi text, other agents' ids, broken JSON text). Properties,
 * for every input: never a 5xx; a refusal answers in the node API's shape; no registry revision
 * changes; the victim agent's nodes and usage rows never change, and a refused request changes no
 * usage row at all; nothing of the victim agent that the input did not contain is in the answer.
 * Bounded: a fixed number of inputs per endpoint (the counts are printed and asserted).
 */
import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import fc from 'fast-check';
import { Client } from 'pg';
import { mintA2AToken, mintNodeToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { PrismaService, seedWhenEmpty } from '@cp/db';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { createAgent, createManifests } from '../support/given-db';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const VICTIM = 'finance-agent';
const VICTIM_NODE = 'victim-node:3002';
const VICTIM_HOST = 'victim-secret-host';
const ATTACKER = 'fuzz-agent';
const ATTACKER_NODE = 'fuzz-node:1';
const RUNS_PER_ENDPOINT = 250;
/** Strings of the victim that an answer to the attacker may contain only if the attacker sent them. */
const VICTIM_MARKERS = [VICTIM, VICTIM_HOST, VICTIM_NODE, 'reconcile-invoice', 'invoice-lookup', 'recon.run', 'tool:erp'];

type Endpoint = 'register' | 'heartbeat' | 'ack' | 'usage' | 'token-exchange' | 'card-signatures';
/** An entitlement class of the victim (its partner tenant with recon.run). */
const VICTIM_CLASS = '{"preview":false,"scopes":["recon.run"],"tenant":"acme-partner"}';

describe('node API fuzz: hostile bodies never break the control plane or touch another agent', () => {
  let db: TestDatabase;
  let config: AppConfig;
  let app: NestFastifyApplication;
  let url: string;
  let pg: Client;
  let attackerToken: string;
  let partnerToken: string;
  const tried: Record<Endpoint, number> = { register: 0, heartbeat: 0, ack: 0, usage: 0, 'token-exchange': 0, 'card-signatures': 0 };
  const statuses: Record<Endpoint, Record<number, number>> = {
    register: {},
    heartbeat: {},
    ack: {},
    usage: {},
    'token-exchange': {},
    'card-signatures': {},
  };

  /** One hash per guarded set of rows: all revisions, the victim's nodes, the victim's usage, all usage. */
  const state = async () =>
    (
      await pg.query(`SELECT
        (SELECT string_agg(id || ':' || revision, ',' ORDER BY id) FROM "Agent") AS revisions,
        (SELECT md5(coalesce(string_agg(n::text, ',' ORDER BY n.id), '')) FROM "Node" n WHERE n."agentId" = '${VICTIM}') AS "victimNodes",
        (SELECT md5(coalesce(string_agg(b::text, ',' ORDER BY b."capabilityId", b."tenantId", b."nodeId", b.day), '')) FROM "UsageBucket" b WHERE b."agentId" = '${VICTIM}') AS "victimUsage",
        (SELECT md5(coalesce(string_agg(b::text, ',' ORDER BY b."agentId", b."capabilityId", b."tenantId", b."nodeId", b.day), '')) FROM "UsageBucket" b) AS buckets,
        (SELECT md5(coalesce(string_agg(u.id || u."nodeId", ',' ORDER BY u.id), '')) FROM "UsageBatch" u) AS batches,
        (SELECT md5(coalesce(string_agg(c::text, ',' ORDER BY c."agentId", c."nodeId"), '')) FROM "NodeUsageCoverage" c) AS coverage`)
    ).rows[0] as Record<string, string>;

  beforeAll(async () => {
    db = await createTestDatabase('sec_node_fuzz');
    config = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: `test:sec-node-fuzz:${process.pid}:` });
    ({ app, url } = await bootApp(AppModule, config));
    await seedWhenEmpty(app.get(PrismaService));
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    await createAgent(pg, ATTACKER);
    await createManifests(pg, [{ agentId: ATTACKER, capabilityId: 'fuzz-cap', state: 'ga' }]);
    attackerToken = mintNodeToken(config, ATTACKER);
    partnerToken = mintA2AToken(config, 'orchestrator@acme-partner', 'acme-partner', ['recon.run']);
    const victimToken = mintNodeToken(config, VICTIM);
    for (const [agentToken, body] of [
      [victimToken, { nodeId: VICTIM_NODE, hostname: VICTIM_HOST }],
      [attackerToken, { nodeId: ATTACKER_NODE, hostname: 'fuzz-host' }],
    ] as const) {
      const res = await send('register', agentToken, JSON.stringify(body));
      expect(res.status).toBe(204);
    }
    const usage = await send('usage', victimToken, JSON.stringify(usageBody(VICTIM_NODE, 'invoice-lookup', 'acme-partner', 7)));
    expect(usage.status).toBe(202);
  }, 60_000);

  afterAll(async () => {
    // The figures the issue asks for: inputs tried per endpoint, and how they were answered.
    process.stdout.write(`node API fuzz: inputs per endpoint ${JSON.stringify(tried)}; statuses ${JSON.stringify(statuses)}\n`);
    await pg?.end();
    await app?.close();
    await db?.drop();
  });

  async function send(endpoint: Endpoint, token: string, body: string): Promise<{ status: number; text: string }> {
    const res = await fetch(`${url}/node/v1/${endpoint}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body,
    });
    return { status: res.status, text: await res.text() };
  }

  function usageBody(nodeId: string, capabilityId: string, tenant: string, count: number) {
    const now = Date.now();
    return {
      nodeId,
      batchId: randomUUID(),
      windowStart: new Date(now - 60_000).toISOString(),
      windowEnd: new Date(now).toISOString(),
      counts: [{ capabilityId, tenant, count, lastCallAt: new Date(now - 30_000).toISOString() }],
    };
  }

  // ---- generators ----
  const hostileString = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.constantFrom(
      '',
      ' ',
      '\u202eacme-partner',
      'acme-partner\u202e',
      'r\u0435concile-invoice',
      'invoice\u200b-lookup',
      '../../etc/passwd',
      '\'; DROP TABLE "Node"; --',
      '\u0000',
      '\ud800',
      'a'.repeat(300),
      'x'.repeat(5000),
      '__proto__',
      'constructor',
      '%00',
      '${jndi:ldap://x}',
    ),
    // other agents' and own ids
    fc.constantFrom(
      VICTIM,
      VICTIM_NODE,
      ATTACKER,
      ATTACKER_NODE,
      'reconcile-invoice',
      'invoice-lookup',
      'fuzz-cap',
      'erp',
      'acme-partner',
      'anonymous',
    ),
  );
  const hostileNumber = fc.oneof(
    fc.constantFrom(
      0,
      -1,
      1.5,
      Number.MAX_SAFE_INTEGER,
      Number.MAX_SAFE_INTEGER + 2,
      2 ** 63,
      -(2 ** 63),
      1e308,
      -1e308,
      5e-324,
      1_000_000_000,
      1_000_000_001,
    ),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  );
  const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
    hostileString,
    hostileNumber,
    fc.constantFrom(null, true, false, [], {}),
    fc.jsonValue({ maxDepth: 3 }),
  );
  const dateish = fc.oneof(
    fc.constantFrom('1970-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z', 'yesterday', '2026-02-30T00:00:00Z', new Date().toISOString()),
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    hostileValue,
  );

  /**
   * Bodies near a template: either exactly one field replaced by something hostile (so the
   * other checks pass and the hostile one is reached), or each field independently kept,
   * replaced or dropped, plus maybe an extra key.
   */
  function mutated(template: Record<string, unknown>, fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<unknown> {
    const keys = Object.keys(template);
    const oneField = fc.constantFrom(...keys).chain((key) => (fields[key] ?? hostileValue).map((value) => ({ ...template, [key]: value })));
    const entries = keys.map((key) =>
      fc.oneof(
        { weight: 3, arbitrary: fc.constant<[string, unknown] | null>([key, template[key]]) },
        { weight: 2, arbitrary: (fields[key] ?? hostileValue).map((v): [string, unknown] => [key, v]) },
        { weight: 1, arbitrary: fc.constant(null) },
      ),
    );
    const manyFields = fc
      .tuple(fc.tuple(...entries), fc.option(fc.tuple(hostileString, hostileValue), { freq: 5 }))
      .map(([kept, extra]) => {
        const body = Object.fromEntries(kept.filter((e): e is [string, unknown] => e !== null));
        if (extra) body[extra[0]] = extra[1];
        return body;
      });
    return fc.oneof(fc.constant(template), oneField, manyFields);
  }

  /** The JSON text to send: a body, sometimes broken (cut, a byte flipped) or wrapped in deep nesting. */
  function wire(body: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
    return fc.oneof(
      { weight: 12, arbitrary: body.map((b) => JSON.stringify(b) ?? 'null') },
      { weight: 1, arbitrary: fc.tuple(body, fc.nat(), fc.nat(255)).map(([b, at, byte]) => flip(JSON.stringify(b) ?? 'null', at, byte)) },
      { weight: 1, arbitrary: fc.tuple(body, fc.nat()).map(([b, at]) => cut(JSON.stringify(b) ?? 'null', at)) },
      { weight: 1, arbitrary: fc.integer({ min: 100, max: 20_000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)) },
      {
        weight: 1,
        arbitrary: fc
          .integer({ min: 100, max: 5_000 })
          .map((depth) => '{"nodeId":' + '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) + '}'),
      },
      { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
    );
  }
  const flip = (text: string, at: number, byte: number) => {
    const i = at % Math.max(1, text.length);
    return text.slice(0, i) + String.fromCharCode(byte) + text.slice(i + 1);
  };
  const cut = (text: string, at: number) => text.slice(0, at % Math.max(1, text.length));

  const nodeIds = fc.oneof(fc.constantFrom(VICTIM_NODE, ATTACKER_NODE, 'new-node', 'n'.repeat(129)), hostileString);
  const bodies: Record<Endpoint, fc.Arbitrary<unknown>> = {
    register: mutated({ nodeId: ATTACKER_NODE, hostname: 'fuzz-host' }, { nodeId: nodeIds }),
    heartbeat: mutated({ nodeId: ATTACKER_NODE }, { nodeId: nodeIds }),
    ack: fc.oneof(
      mutated({ nodeId: ATTACKER_NODE, revision: 1, servedHash: 'a'.repeat(64) }, { nodeId: nodeIds, revision: hostileNumber }),
      mutated({ nodeId: ATTACKER_NODE, revision: 1, error: 'refused' }, { nodeId: nodeIds, revision: hostileNumber }),
    ),
    usage: fc
      .record({
        count: fc.oneof(
          fc.constant(usageBody(ATTACKER_NODE, 'fuzz-cap', 'anonymous', 1).counts[0]),
          mutated(usageBody(ATTACKER_NODE, 'fuzz-cap', 'anonymous', 1).counts[0], {
            count: hostileNumber,
            lastCallAt: dateish,
            tenant: hostileString,
            capabilityId: hostileString,
          }),
        ),
        copies: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 30 }), fc.constant(2000)),
      })
      .chain(({ count, copies }) =>
        mutated(
          {
            ...usageBody(ATTACKER_NODE, 'fuzz-cap', 'anonymous', 1),
            batchId: randomUUID(),
            counts: Array.from({ length: copies }, () => count),
          },
          { nodeId: nodeIds, windowStart: dateish, windowEnd: dateish, batchId: fc.oneof(fc.uuid(), hostileValue), final: hostileValue },
        ),
      ),
    'token-exchange': mutated(
      { subjectToken: 'placeholder', tool: 'erp', capabilityId: 'reconcile-invoice' },
      { subjectToken: fc.oneof(fc.constant('partner'), hostileString), tool: hostileString, capabilityId: hostileString },
    ).map((b) =>
      b && typeof b === 'object' && (b as { subjectToken?: unknown }).subjectToken === 'placeholder'
        ? { ...b, subjectToken: 'partner' }
        : b,
    ),
    // The attacker's node asks for signatures of the victim's class, or of made-up ones (ADR 0132).
    'card-signatures': mutated(
      { revision: 1, classKey: VICTIM_CLASS },
      {
        revision: hostileNumber,
        classKey: fc.oneof(
          hostileString,
          fc
            .record({
              preview: hostileValue,
              scopes: fc.oneof(fc.array(hostileString, { maxLength: 4 }), hostileValue),
              tenant: hostileValue,
            })
            .map((k) => JSON.stringify(k)),
        ),
      },
    ),
  };

  const endpoints = Object.keys(bodies) as Endpoint[];
  it.each(endpoints)(
    'POST /node/v1/%s: never 5xx, never another agent touched or named, nothing written on a refusal',
    async (endpoint) => {
      await fc.assert(
        fc.asyncProperty(wire(bodies[endpoint]), async (raw) => {
          const text = raw.replace(/"partner"/g, JSON.stringify(partnerToken));
          const before = await state();
          const res = await send(endpoint, attackerToken, text);
          tried[endpoint] += 1;
          statuses[endpoint][res.status] = (statuses[endpoint][res.status] ?? 0) + 1;
          const after = await state();

          expect(res.status).toBeLessThan(500);
          if (res.status >= 400) {
            const parsed = JSON.parse(res.text) as { error?: { code?: unknown; message?: unknown } };
            expect(typeof parsed.error?.code).toBe('string');
            expect(typeof parsed.error?.message).toBe('string');
            expect({ buckets: after.buckets, batches: after.batches, coverage: after.coverage }).toEqual({
              buckets: before.buckets,
              batches: before.batches,
              coverage: before.coverage,
            });
          }
          expect({ revisions: after.revisions, victimNodes: after.victimNodes, victimUsage: after.victimUsage }).toEqual({
            revisions: before.revisions,
            victimNodes: before.victimNodes,
            victimUsage: before.victimUsage,
          });
          for (const marker of VICTIM_MARKERS) if (!text.includes(marker)) expect(res.text).not.toContain(marker);
        }),
        { numRuns: RUNS_PER_ENDPOINT },
      );
      expect(tried[endpoint]).toBeGreaterThanOrEqual(RUNS_PER_ENDPOINT);
    },
    120_000,
  );

  it('edge values in every field of every endpoint, from a node of the agent itself, are a 4xx and write nothing', async () => {
    const own = mintNodeToken(config, VICTIM);
    const templates: Record<Endpoint, Record<string, unknown>> = {
      register: { nodeId: VICTIM_NODE, hostname: VICTIM_HOST },
      heartbeat: { nodeId: VICTIM_NODE },
      ack: { nodeId: VICTIM_NODE, revision: 1, error: 'refused' },
      usage: usageBody(VICTIM_NODE, 'invoice-lookup', 'acme-partner', 1),
      'token-exchange': { subjectToken: partnerToken, tool: 'erp', capabilityId: 'reconcile-invoice' },
      'card-signatures': { revision: 1, classKey: VICTIM_CLASS },
    };
    const edges: unknown[] = ['\u0000', 'a\r\nb', '\u202e', 'x'.repeat(10_000), Number.MAX_SAFE_INTEGER, 2 ** 31, -1, 1e308, {}, [], null];
    let cases = 0;
    for (const endpoint of endpoints) {
      const template = templates[endpoint];
      for (const key of Object.keys(template)) {
        for (const edge of edges) {
          const body =
            endpoint === 'usage' && key !== 'counts' ? { ...template, batchId: randomUUID(), [key]: edge } : { ...template, [key]: edge };
          const variants =
            endpoint === 'usage'
              ? [
                  body,
                  {
                    ...template,
                    batchId: randomUUID(),
                    counts: [{ ...(template.counts as object[])[0], [key === 'counts' ? 'tenant' : key]: edge }],
                  },
                ]
              : [body];
          for (const variant of variants) {
            const before = await state();
            const res = await send(endpoint, own, JSON.stringify(variant));
            cases += 1;
            expect({ endpoint, key, edge: String(edge).slice(0, 20), status: res.status < 500 }).toEqual({
              endpoint,
              key,
              edge: String(edge).slice(0, 20),
              status: true,
            });
            if (res.status >= 400) {
              expect((JSON.parse(res.text) as { error?: { code?: unknown } }).error?.code).toEqual(expect.any(String));
              const after = await state();
              expect([after.buckets, after.batches, after.coverage, after.revisions]).toEqual([
                before.buckets,
                before.batches,
                before.coverage,
                before.revisions,
              ]);
            }
          }
        }
      }
    }
    process.stdout.write(`node API edge values: ${cases} cases\n`);
    expect(cases).toBeGreaterThan(100);
  }, 120_000);
});
