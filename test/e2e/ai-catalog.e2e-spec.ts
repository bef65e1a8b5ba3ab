/**
 * The AI Catalog end to end (issue 33): a control plane with a key ring in a file and the catalog
 * module, the finance agent node, every catalog checked against the specification's MUST rules,
 * the catalog signature checked against the JWKS, lifecycle transitions seen in the catalog, the
 * official @a2a-js/sdk client resolving a card found through the catalog, and cpctl.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Module } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import type { JSONWebKeySet } from 'jose';
import { mintA2AToken, mintNodeToken, tokenSigner } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { PrismaService, RegistrySnapshotRepository, seedWhenEmpty } from '@cp/db';
import {
  AI_CATALOG_MEDIA_TYPE,
  checkAiCatalog,
  nodeApiPaths,
  verifyCatalogSignature,
  type AiCatalog,
  type AiCatalogEntry,
} from '@cp/node-protocol';
import { NodeSync } from '@cp/node-sdk';
import { AgentNodeModule } from '../../apps/agent-node/src/agent-node.module';
import { CatalogModule } from '../../apps/control-plane/src/catalog/catalog.module';
import { controlPlaneUnderTest } from '../support/control-plane-under-test';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { cpctl } from '../support/cpctl-harness';
import { verifyCatalogIndependently } from '../support/independent-catalog-verifier';
import { freePort } from '../support/free-port';
import { givenDb, type GivenDb } from '../support/given-db';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { until } from '../support/until';

@Module({ imports: [controlPlaneUnderTest({ a2a: true }), CatalogModule] })
class ControlPlaneWithCatalog {}

const AGENT = 'finance-agent';
const PATH = '/.well-known/ai-catalog.json';

/** Every agent entry of a (possibly nested) catalog. */
export function agentEntries(catalog: AiCatalog): AiCatalogEntry[] {
  return catalog.entries.flatMap((e) => (e.mediaType === AI_CATALOG_MEDIA_TYPE && e.data ? agentEntries(e.data) : [e]));
}

describe('the AI Catalog', () => {
  let db: TestDatabase;
  let given: GivenDb;
  let dir: string;
  let cpConfig: AppConfig;
  let cp: NestFastifyApplication;
  let cpUrl: string;
  let node: NestFastifyApplication;
  let nodeUrl: string;
  let jwks: JSONWebKeySet;
  const catalogToken = (tenant: string, scopes: string[]) =>
    tokenSigner(cpConfig).sign({
      use: 'a2a',
      subject: `caller@${tenant}`,
      audience: cpConfig.CATALOG_JWT_AUDIENCE,
      issuer: cpConfig.A2A_JWT_ISSUER,
      expiresIn: 600,
      claims: { tenant, scope: scopes.join(' ') },
    });
  const get = async (url: string, token?: string, headers: Record<string, string> = {}) => {
    const res = await fetch(url, { headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) as AiCatalog };
  };
  const forecast = { id: 'forecast-agent', teamId: 'planning' };
  const bump = (agentId: string) => cp.get(PrismaService).agent.update({ where: { id: agentId }, data: { revision: { increment: 1 } } });

  beforeAll(async () => {
    db = await createTestDatabase('ai_catalog');
    dir = await mkdtemp(join(tmpdir(), 'ai-catalog-'));
    const keyFile = join(dir, 'keys', 'signing-keys.json');
    mkdirSync(join(dir, 'keys'));
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(
      keyFile,
      JSON.stringify({ keys: [{ kid: 'catalog-key', state: 'active', privateJwk: privateKey.export({ format: 'jwk' }) }] }),
    );
    const prefix = `e2e-catalog-${randomBytes(4).toString('hex')}:`;
    cpConfig = testConfig({
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: prefix,
      SIGNING_KEYS_FILE: keyFile,
      CATALOG_PUBLISHER: 'example-finance',
    });
    ({ app: cp, url: cpUrl } = await bootApp(ControlPlaneWithCatalog, cpConfig));
    const port = await freePort();
    nodeUrl = `http://127.0.0.1:${port}`;
    await seedWhenEmpty(cp.get(PrismaService), { agentNodeUrl: nodeUrl });
    given = givenDb(db.url);
    await given.team({ id: forecast.teamId });
    await given.agent({
      id: forecast.id,
      teamId: forecast.teamId,
      base: {
        name: 'Forecasts',
        supportedInterfaces: [{ url: 'http://forecast.internal:4100/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }],
      },
    });
    await given.manifest(forecast, { id: 'forecast-cash', state: 'preview', visibility: 'public' });
    await given.optIn('acme-partner', forecast.id);
    const nodeConfig = testConfig({
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: prefix,
      CONTROL_PLANE_URL: cpUrl,
      AGENT_ID: AGENT,
      NODE_ID: 'catalog-node-1',
      NODE_TOKEN: mintNodeToken(cpConfig, AGENT),
      NODE_CACHE_DIR: join(dir, 'node'),
      NODE_POLL_INTERVAL_MS: '200',
      USAGE_FLUSH_INTERVAL_MS: '3600000',
      CATALOG_PUBLISHER: 'example-finance',
    });
    node = (await bootApp(AgentNodeModule, nodeConfig, { port })).app;
    await until('the node serves a bundle', () => node.get(NodeSync).current() !== undefined, 60_000);
    jwks = (await (await fetch(`${cpUrl}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
  }, 180_000);

  afterAll(async () => {
    await given?.close();
    await node?.close();
    await cp?.close();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the control plane serves a conformant, signed catalog grouped by host and team, with the finance agent for anyone', async () => {
    const res = await get(`${cpUrl}${PATH}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/ai-catalog\+json/);
    const catalog = res.json();
    expect(checkAiCatalog(catalog)).toEqual([]);
    expect(catalog.specVersion).toBe('1.0');
    expect(catalog.host?.displayName).toBeTruthy();
    expect(await verifyCatalogSignature(res.text, jwks)).toEqual({ ok: true, kid: 'catalog-key' });
    const ids = catalog.entries.map((e) => e.identifier);
    expect(ids).toEqual(
      expect.arrayContaining([
        `urn:air:example-finance:host:127.0.0.1-${new URL(nodeUrl).port}`,
        'urn:air:example-finance:team:finance-agents-team',
      ]),
    );
    const finance = agentEntries(catalog).find((e) => e.identifier === `urn:air:example-finance:agent:${AGENT}`)!;
    expect(finance).toMatchObject({ mediaType: 'application/a2a-agent-card+json', url: `${nodeUrl}/.well-known/agent-card.json` });
    expect(finance.updatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(finance.tags?.length).toBeGreaterThan(0);
    expect(finance.metadata?.extendedCardUrl).toBeUndefined();
  });

  it('answers 304 to its strong ETag, and the same ETag and bytes to the same caller', async () => {
    const first = await get(`${cpUrl}${PATH}`);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect((await get(`${cpUrl}${PATH}`, undefined, { 'if-none-match': etag })).status).toBe(304);
    const again = await get(`${cpUrl}${PATH}`);
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.text).toBe(first.text);
  });

  it('an entitled caller also sees the extended card it may read and the previews its tenant opted in to', async () => {
    const catalog = (await get(`${cpUrl}${PATH}`, catalogToken('acme-partner', ['recon.run']))).json();
    expect(checkAiCatalog(catalog)).toEqual([]);
    const entries = agentEntries(catalog);
    expect(entries.find((e) => e.identifier.endsWith(`:agent:${AGENT}`))?.metadata?.extendedCardUrl).toBe(
      `${nodeUrl}/a2a/rest/extendedAgentCard`,
    );
    expect(entries.find((e) => e.identifier.endsWith(':agent:forecast-agent'))?.metadata?.lifecycle).toMatchObject({ status: 'preview' });
    const other = agentEntries((await get(`${cpUrl}${PATH}`, catalogToken('globex', []))).json());
    expect(other.map((e) => e.identifier)).toEqual([`urn:air:example-finance:agent:${AGENT}`, `urn:air:example-finance:agent:${AGENT}`]);
  });

  it('follows a capability through preview → ga → deprecated → removed', async () => {
    const prisma = cp.get(PrismaService);
    const set = async (data: Record<string, unknown>) => {
      await prisma.capabilityManifest.update({
        where: { agentId_capabilityId: { agentId: forecast.id, capabilityId: 'forecast-cash' } },
        data,
      });
      await bump(forecast.id);
    };
    const anonymousForecast = async () =>
      agentEntries((await get(`${cpUrl}${PATH}`)).json()).find((e) => e.identifier.endsWith(':agent:forecast-agent'));
    expect(await anonymousForecast()).toBeUndefined();
    await set({ state: 'ga' });
    expect((await anonymousForecast())?.metadata?.lifecycle).toEqual({ status: 'active', capabilities: [] });
    await set({
      state: 'deprecated',
      deprecatedAt: new Date('2026-11-01T00:00:00Z'),
      sunsetAt: new Date('2027-03-01T00:00:00Z'),
      deprecationReason: 'folded into finance',
    });
    expect((await anonymousForecast())?.metadata?.lifecycle).toEqual({
      status: 'deprecated',
      deprecatedAt: '2026-11-01T00:00:00.000Z',
      sunsetAt: '2027-03-01T00:00:00.000Z',
      capabilities: [
        { id: 'forecast-cash', status: 'deprecated', deprecatedAt: '2026-11-01T00:00:00.000Z', sunsetAt: '2027-03-01T00:00:00.000Z' },
      ],
    });
    await set({ state: 'removed', removedAt: new Date() });
    expect(await anonymousForecast()).toBeUndefined();
    expect(JSON.stringify((await get(`${cpUrl}${PATH}`, catalogToken('acme-partner', ['recon.run']))).json())).not.toContain('forecast');
  });

  it('the agent node serves its own catalog per caller, with ETag and 304', async () => {
    const anon = await get(`${nodeUrl}${PATH}`);
    expect(anon.status).toBe(200);
    expect(anon.headers.get('content-type')).toMatch(/^application\/ai-catalog\+json/);
    const catalog = anon.json();
    expect(checkAiCatalog(catalog)).toEqual([]);
    expect(catalog.entries.map((e) => e.identifier)).toEqual([`urn:air:example-finance:agent:${AGENT}`]);
    expect((await get(`${nodeUrl}${PATH}`, undefined, { 'if-none-match': anon.headers.get('etag')! })).status).toBe(304);
    const partner = await get(
      `${nodeUrl}${PATH}`,
      mintA2AToken(cpConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run'], 600, AGENT),
    );
    expect(checkAiCatalog(partner.json())).toEqual([]);
    expect(partner.json().entries[0]?.metadata?.extendedCardUrl).toBe(`${nodeUrl}/a2a/rest/extendedAgentCard`);
    expect(partner.headers.get('etag')).not.toBe(anon.headers.get('etag'));
    expect((await get(`${nodeUrl}${PATH}`, 'not-a-token')).status).toBe(401);
  });

  it('the official A2A client resolves the finance agent card found through the catalog', async () => {
    const entry = agentEntries((await get(`${cpUrl}${PATH}`, catalogToken('acme-partner', ['recon.run']))).json()).find((e) =>
      e.identifier.endsWith(`:agent:${AGENT}`),
    )!;
    expect(entry.metadata?.extendedCardUrl).toBeDefined();
    // The catalog names the card; the partner's own a2a token (for this agent) reads the extended card it links.
    const token = mintA2AToken(cpConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run'], 600, AGENT);
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${token}`);
      return fetch(input, { ...init, headers });
    };
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })] }),
    );
    const url = new URL(entry.url!);
    const client = await factory.createFromUrl(url.origin, url.pathname);
    const card = await client.getAgentCard();
    expect(card.name).toBe(entry.displayName);
    expect(card.skills.map((s) => s.id)).toContain('reconcile-invoice');
  });

  it('cpctl catalog verify checks the catalog and every linked card; export --ai-catalog writes the same document', async () => {
    const jwksUrl = `${cpUrl}/.well-known/jwks.json`;
    const ok = await cpctl(['--json', 'catalog', 'verify', cpUrl, '--jwks', jwksUrl]);
    expect(ok.code).toBe(0);
    const findings = ok.json<{ findings: { what: string; ok: boolean }[] }>().findings;
    expect(findings.some((f) => f.what.startsWith('card of') && f.ok)).toBe(true);
    const wrongKeys = join(dir, 'other-jwks.json');
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
    writeFileSync(wrongKeys, JSON.stringify({ keys: [{ ...other, kid: 'catalog-key', alg: 'ES256' }] }));
    expect((await cpctl(['catalog', 'verify', cpUrl, '--jwks', wrongKeys])).code).toBe(13);
    const file = join(dir, 'catalog.json');
    const exported = await cpctl(['--url', `${cpUrl}/graphql`, 'export', '--ai-catalog', file]);
    expect(exported.code).toBe(0);
    expect(await readFile(file, 'utf8')).toBe((await get(`${cpUrl}${PATH}`)).text);
  });

  describe('the agent node’s catalog, signed by the control plane (ADR 0315)', () => {
    const partnerCaller = { principal: 'orchestrator@acme-partner', tenant: 'acme-partner', scopes: ['recon.run'] };
    const partnerToken = () => mintA2AToken(cpConfig, partnerCaller.principal, partnerCaller.tenant, partnerCaller.scopes, 600, AGENT);
    const signedBody = async (token?: string) => {
      let text = '';
      // The first request of a class may go out unsigned while the node asks (at most its wait); the next ones are signed.
      await until(
        'the node serves the catalog signed',
        async () => {
          text = (await get(`${nodeUrl}${PATH}`, token)).text;
          return (JSON.parse(text) as AiCatalog).metadata?.signature !== undefined;
        },
        30_000,
      );
      return text;
    };
    const post = async (payload: unknown, agent = AGENT) => {
      const res = await fetch(`${cpUrl}${nodeApiPaths.cardSignatures}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${mintNodeToken(cpConfig, agent)}` },
        body: typeof payload === 'string' ? payload : JSON.stringify(payload),
      });
      const text = await res.text();
      let body: Record<string, any> = {}; // eslint-disable-line @typescript-eslint/no-explicit-any
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        // Not JSON: the status is what the case checks.
      }
      return { status: res.status, text, body };
    };

    it('anonymous and an entitled caller each get a catalog that verifies with an independent JCS against the JWKS', async () => {
      const anonymous = await get(`${nodeUrl}${PATH}`);
      expect(anonymous.json().metadata?.signature).toBeDefined();
      expect(await verifyCatalogIndependently(anonymous.text, jwks)).toEqual({ kid: 'catalog-key', alg: 'ES256' });
      expect(checkAiCatalog(anonymous.json())).toEqual([]);
      const partner = await signedBody(partnerToken());
      expect(await verifyCatalogIndependently(partner, jwks)).toEqual({ kid: 'catalog-key', alg: 'ES256' });
      expect(await verifyCatalogSignature(partner, jwks)).toEqual({ ok: true, kid: 'catalog-key' });
      const doc = JSON.parse(partner) as AiCatalog;
      expect(checkAiCatalog(doc)).toEqual([]);
      expect(doc.entries[0]?.metadata?.extendedCardUrl).toBe(`${nodeUrl}/a2a/rest/extendedAgentCard`);
      // Kept: the same bytes and ETag to every caller of the class, 304 on If-None-Match.
      const again = await get(
        `${nodeUrl}${PATH}`,
        mintA2AToken(cpConfig, 'another@acme-partner', 'acme-partner', ['recon.run'], 600, AGENT),
      );
      expect(again.text).toBe(partner);
      expect((await get(`${nodeUrl}${PATH}`, partnerToken(), { 'if-none-match': again.headers.get('etag')! })).status).toBe(304);
      // A caller who sees what anonymous callers see gets the bundle's signed document.
      const outsider = await get(`${nodeUrl}${PATH}`, mintA2AToken(cpConfig, 'someone@globex', 'globex', [], 600, AGENT));
      expect(outsider.text).toBe(anonymous.text);
      expect(node.get(NodeSync).current()!.catalogSigning).toMatchObject({ signed: 1 });
    }, 60_000);

    it('cpctl catalog verify passes on the agent node, anonymous and as an entitled caller', async () => {
      const jwksUrl = `${cpUrl}/.well-known/jwks.json`;
      const anonymous = await cpctl(['--json', 'catalog', 'verify', nodeUrl, '--jwks', jwksUrl]);
      expect(anonymous.code).toBe(0);
      const findings = anonymous.json<{ findings: { what: string; ok: boolean }[] }>().findings;
      expect(findings).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ what: expect.stringMatching(/^catalog /), ok: true }),
          expect.objectContaining({ what: expect.stringMatching(/^card of /), ok: true }),
        ]),
      );
      await signedBody(partnerToken());
      expect((await cpctl(['catalog', 'verify', nodeUrl, '--jwks', jwksUrl], { CPCTL_TOKEN: partnerToken() })).code).toBe(0);
    });

    it('POST card-signatures {catalog: true}: the class’s signature for the token’s agent only; strict, bounded bodies', async () => {
      const active = node.get(NodeSync).current()!;
      const classKey = active.classKey(partnerCaller);
      const ok = await post({ revision: active.revision, classKey, catalog: true });
      expect(ok.status).toBe(200);
      expect(ok.body.catalogSignature).toBe((JSON.parse(await signedBody(partnerToken())) as AiCatalog).metadata?.signature);
      // Without the flag (a node that predates ADR 0315): the answer it knows, no catalog member.
      const cardsOnly = await post({ revision: active.revision, classKey });
      expect({ status: cardsOnly.status, catalog: cardsOnly.body.catalogSignature }).toEqual({ status: 200, catalog: undefined });
      // A node token of another agent names this agent's class: refused, nothing of this agent in the answer.
      const stamp = (await cp.get(RegistrySnapshotRepository).stamp(forecast.id))!;
      const other = await post({ revision: stamp.revision, classKey, catalog: true }, forecast.id);
      expect({ status: other.status, code: other.body.error?.code }).toEqual({ status: 404, code: 'CLASS_NOT_FOUND' });
      expect(other.body.error.message).toContain('agent "forecast-agent"');
      expect(other.text).not.toMatch(/catalogSignature|finance/);
      const made = await post({
        revision: active.revision,
        classKey: '{"preview":false,"scopes":["payroll.run"],"tenant":"x"}',
        catalog: true,
      });
      expect({ status: made.status, code: made.body.error?.code }).toEqual({ status: 404, code: 'CLASS_NOT_FOUND' });
      for (const catalog of [false, 'yes', 1]) {
        const bad = await post({ revision: active.revision, classKey, catalog });
        expect({ catalog, status: bad.status, code: bad.body.error?.code }).toEqual({ catalog, status: 400, code: 'INVALID_REQUEST' });
        expect(bad.text).toContain('catalog');
      }
      // Fastify refuses it before the route runs (this module has not the node API's global filter: the status is the point).
      const huge = await post({ revision: active.revision, classKey: 'x'.repeat(cpConfig.MAX_BODY_BYTES + 10), catalog: true });
      expect(huge.status).toBe(413);
    });
  });
});
