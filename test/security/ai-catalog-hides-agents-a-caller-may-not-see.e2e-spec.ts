/**
 * Promise (issue 33, docs/catalog.md): an agent a caller may not see is absent from the AI Catalog,
 * and its absence looks exactly like an agent that does not exist: same body (but for the
 * randomized signature), same ETag, whatever identifier, host or team the caller probes with.
 * Code-path equality (not timed here): the control plane builds every caller's catalog from every
 * agent through the same steps (CatalogService.catalogFor → fleetCatalog), and query strings,
 * identifiers and paths below the well-known path are never read.
 */
import { randomBytes } from 'node:crypto';
import { Module } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { tokenSigner } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { PrismaService } from '@cp/db';
import { checkAiCatalog, type AiCatalog } from '@cp/node-protocol';
import { CatalogModule } from '../../apps/control-plane/src/catalog/catalog.module';
import { controlPlaneUnderTest } from '../support/control-plane-under-test';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { givenDb, type GivenDb } from '../support/given-db';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

@Module({ imports: [controlPlaneUnderTest(), CatalogModule] })
class ControlPlaneWithCatalog {}

const PATH = '/.well-known/ai-catalog.json';
const SECRET = { id: 'merger-desk', teamId: 'mergers' };

/** The document without its (randomized, per-content) signature. */
const unsigned = (text: string) => {
  const doc = JSON.parse(text) as AiCatalog;
  delete doc.metadata?.signature;
  return JSON.stringify(doc);
};

describe('the AI Catalog never reveals an agent a caller may not see', () => {
  let db: TestDatabase;
  let given: GivenDb;
  let config: AppConfig;
  let cp: NestFastifyApplication;
  let url: string;
  const token = (tenant: string, scopes: string[], audience?: string) =>
    tokenSigner(config).sign({
      use: 'a2a',
      subject: `probe@${tenant}`,
      audience: audience ?? config.CATALOG_JWT_AUDIENCE,
      issuer: config.A2A_JWT_ISSUER,
      expiresIn: 600,
      claims: { tenant, scope: scopes.join(' ') },
    });
  const get = async (path: string, auth?: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${url}${path}`, { headers: { ...headers, ...(auth ? { authorization: `Bearer ${auth}` } : {}) } });
    return { status: res.status, etag: res.headers.get('etag'), text: await res.text() };
  };
  const probes = () => [
    { who: 'anonymous', auth: undefined },
    { who: 'a tenant without the scope', auth: token('globex', []) },
    { who: 'the right scope, another tenant', auth: token('globex', ['merger.run']) },
    { who: 'the right tenant, no scope', auth: token('initech', []) },
  ];

  beforeAll(async () => {
    db = await createTestDatabase('sec_ai_catalog');
    config = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: `sec-catalog-${randomBytes(4).toString('hex')}:` });
    ({ app: cp, url } = await bootApp(ControlPlaneWithCatalog, config));
    given = givenDb(db.url);
    const open = await given.agent({ id: 'open-desk' });
    await given.manifest(open, { visibility: 'public' });
    await given.team({ id: SECRET.teamId });
    await given.agent({
      id: SECRET.id,
      teamId: SECRET.teamId,
      base: {
        supportedInterfaces: [{ url: 'http://mergers.internal:7000/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }],
      },
    });
    await given.manifest(SECRET, {
      id: 'value-target',
      visibility: 'extended',
      requiresScopes: ['merger.run'],
      tenants: ['initech'],
      skill: { name: 'Value a target', description: 'Values a merger target.', tags: ['merger'] },
    });
  }, 120_000);

  afterAll(async () => {
    await given?.close();
    await cp?.close();
    await db?.drop();
  });

  it('the entitled caller sees it; every other caller gets no trace of its id, team, host or tags', async () => {
    const entitled = await get(PATH, token('initech', ['merger.run']));
    expect(entitled.text).toContain(`:agent:${SECRET.id}`);
    for (const p of probes()) {
      const res = await get(PATH, p.auth);
      expect({ who: p.who, status: res.status, issues: checkAiCatalog(JSON.parse(res.text)) }).toEqual({
        who: p.who,
        status: 200,
        issues: [],
      });
      for (const trace of [SECRET.id, SECRET.teamId, 'mergers.internal', 'merger', 'value-target'])
        expect({ who: p.who, trace, found: res.text.includes(trace) }).toMatchObject({ found: false });
    }
  });

  it('probing by identifier, path or query answers exactly what it answers when the agent does not exist', async () => {
    const hostile = [PATH, `${PATH}?identifier=urn:air:capability-control-plane:agent:${SECRET.id}`, `${PATH}?team=${SECRET.teamId}`];
    const before = new Map<string, { status: number; etag: string | null; body: string }>();
    for (const p of probes())
      for (const path of hostile) {
        const r = await get(path, p.auth);
        before.set(`${p.who} ${path}`, { status: r.status, etag: r.etag, body: unsigned(r.text) });
      }
    const nested = await get(`/.well-known/ai-catalog/${SECRET.id}.json`);
    // The agent stops existing: every probe must see exactly what it saw before.
    const prisma = cp.get(PrismaService);
    await prisma.capabilityManifest.deleteMany({ where: { agentId: SECRET.id } });
    await prisma.agent.delete({ where: { id: SECRET.id } });
    for (const p of probes())
      for (const path of hostile) {
        const r = await get(path, p.auth);
        expect({ probe: `${p.who} ${path}`, status: r.status, etag: r.etag, body: unsigned(r.text) }).toEqual({
          probe: `${p.who} ${path}`,
          ...before.get(`${p.who} ${path}`),
        });
      }
    const gone = await get(`/.well-known/ai-catalog/${SECRET.id}.json`);
    expect({ status: gone.status, body: gone.text.replace(/"reqId":"[^"]*"/, '') }).toEqual({
      status: nested.status,
      body: nested.text.replace(/"reqId":"[^"]*"/, ''),
    });
  });

  it('a token that is not a catalog token is refused, never read as anonymous', async () => {
    for (const bad of ['garbage', token('initech', ['merger.run'], 'urn:a2a-agent:open-desk')]) {
      const res = await get(PATH, bad);
      expect(res.status).toBe(401);
      expect(res.text).not.toContain('open-desk');
    }
  });
});
