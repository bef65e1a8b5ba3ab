/**
 * Signed projections end to end (issue 16): a control plane on a real database and Redis with a
 * key ring in a file, an agent node (the finance agent, in process) and a NodeSync in another OS
 * process, the official @a2a-js/sdk client, and cpctl as a child process.
 */
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { AgentCard, verifyAgentCardSignature, type AgentCard as SdkAgentCard } from '@a2a-js/sdk';
import { compactVerify, createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import jwt from 'jsonwebtoken';
import type { Redis } from 'ioredis';
import { mintA2AToken, mintNodeToken } from '@cp/auth';
import { buildNodeBundle, type NodeBundle } from '@cp/capabilities';
import { RedisToken, type AppConfig } from '@cp/common';
import { PrismaService, RegistrySnapshotRepository, RegistryWriter, seedWhenEmpty } from '@cp/db';
import { nodeBundleEtag, pinnedJwks, signNodeBundle, syncKeys, type SignatureKey } from '@cp/node-protocol';
import { NodeSync, verifyCardSignature } from '@cp/node-sdk';
import { BundleCache } from '@cp/sync';
import { AgentNodeModule } from '../../apps/agent-node/src/agent-node.module';
import { createErpTool } from '../../apps/agent-node/src/finance/erp-tool';
import { controlPlaneUnderTest } from '../support/control-plane-under-test';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { cpctl } from '../support/cpctl-harness';
import { freePort } from '../support/free-port';
import { spawnNodeProcess, type NodeProcess } from '../support/node-process';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { until } from '../support/until';

const AGENT = 'finance-agent';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// No outbox relay: a revision committed silently stays unannounced until the test plants its bundle.
const controlPlane = controlPlaneUnderTest({ a2a: true, sync: { outboxIntervalMs: 0 } });

/** The app on its own port (a node's card URLs name it before it listens). */
const boot = (module: unknown, config: AppConfig, port = 0) => bootApp(module, config, { port });

interface TestKey extends SignatureKey {
  privateKey: KeyObject;
  jwk: Json;
}
function newKey(kid: string): TestKey {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { kid, privateKey, jwk: privateKey.export({ format: 'jwk' }) };
}

describe('signed projections: cards, bundles and tool tokens under one rotating key ring', () => {
  const keyA = newKey('key-a');
  const keyB = newKey('key-b');
  const attacker = newKey('attacker');
  let db: TestDatabase;
  let dir: string;
  let keyFile: string;
  let cpConfig: AppConfig;
  let nodeConfig: AppConfig;
  let cp: NestFastifyApplication;
  let cpUrl: string;
  let node: NestFastifyApplication;
  let nodeUrl: string;
  let child: NodeProcess;
  let partnerToken: string;
  let jwksUrl: string;

  const writeKeyRing = (keys: { key: TestKey; state: string; publicOnly?: boolean }[]) => {
    const doc = {
      keys: keys.map(({ key, state, publicOnly }) =>
        publicOnly
          ? { kid: key.kid, state, publicJwk: { kty: 'EC', crv: 'P-256', x: key.jwk.x, y: key.jwk.y } }
          : { kid: key.kid, state, privateJwk: key.jwk },
      ),
    };
    writeFileSync(keyFile, JSON.stringify(doc), { mode: 0o600 });
  };
  const jwks = async () => (await (await fetch(jwksUrl)).json()) as JSONWebKeySet;
  const kids = async () => (await jwks()).keys.map((k) => k.kid);
  const sync = () => node.get(NodeSync);
  const prisma = () => cp.get(PrismaService);
  const writer = (listeners = true) => (listeners ? cp.get(RegistryWriter) : new RegistryWriter(prisma(), []));
  const rename = (description: string, announce = true) =>
    writer(announce).change({ agentId: AGENT, actor: 'test', summary: description }, async (tx) => {
      await tx.agent.update({ where: { id: AGENT }, data: { description } });
      return { result: description, audit: [] };
    });
  const publicCard = async () => (await (await fetch(`${nodeUrl}/.well-known/agent-card.json`)).json()) as Json;
  const kidOf = (card: Json) => decodeProtectedHeader(card.signatures[0]).kid;
  const rpc = async (method: string, token?: string) => {
    const res = await fetch(`${nodeUrl}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: {} }),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const clientFor = (token?: string) => {
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      if (token) headers.set('authorization', `Bearer ${token}`);
      return fetch(input, { ...init, headers });
    };
    return new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })] }),
    ).createFromUrl(nodeUrl);
  };
  /** The official SDK hook with keys from the pinned JWKS (never from the card's jku). */
  const bothNodes = async (
    what: string,
    ok: (s: { revision: number | null; lastRefusal: string | null; kid?: string | null }[]) => boolean,
    timeoutMs = 30_000,
  ) => {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    while (Date.now() < deadline) {
      const own = sync().status();
      const signature = sync().current()?.bundle.signature;
      const states = [
        {
          revision: own.revision,
          lastRefusal: own.lastRefusal,
          lastFetchError: own.lastFetchError,
          kid: signature ? decodeProtectedHeader(signature).kid : undefined,
        },
        await child.status(),
      ];
      last = states;
      if (ok(states)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for ${what}; nodes: ${JSON.stringify(last)}`);
  };
  const sdkVerifier = (keys: JSONWebKeySet) => verifyAgentCardSignature(async (kid) => keys.keys.find((k) => k.kid === kid)!);

  beforeAll(async () => {
    db = await createTestDatabase('signed_projections');
    dir = await mkdtemp(join(tmpdir(), 'signed-projections-'));
    keyFile = join(dir, 'keys', 'signing-keys.json');
    mkdirSync(join(dir, 'keys'));
    writeKeyRing([{ key: keyA, state: 'active' }]);
    const prefix = `e2e-sign-${randomBytes(4).toString('hex')}:`;
    cpConfig = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: prefix, SIGNING_KEYS_FILE: keyFile, SIGNING_KEYS_RELOAD_MS: '100' });
    ({ app: cp, url: cpUrl } = await boot(controlPlane, cpConfig));
    jwksUrl = `${cpUrl}/.well-known/jwks.json`;
    const port = await freePort();
    nodeUrl = `http://127.0.0.1:${port}`;
    await seedWhenEmpty(prisma(), { agentNodeUrl: nodeUrl });
    nodeConfig = testConfig({
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: prefix,
      CONTROL_PLANE_URL: cpUrl,
      AGENT_ID: AGENT,
      NODE_ID: 'signing-node-1',
      NODE_TOKEN: mintNodeToken(cpConfig, AGENT),
      NODE_CACHE_DIR: join(dir, 'node-1'),
      NODE_POLL_INTERVAL_MS: '200',
      USAGE_FLUSH_INTERVAL_MS: '3600000',
      SIGNING_JWKS_CACHE_SECONDS: '1',
      SIGNING_JWKS_COOLDOWN_MS: '100',
    });
    node = (await boot(AgentNodeModule, nodeConfig, port)).app;
    await until('the node serves revision 1', () => sync().current()?.revision === 1, 60_000);
    child = await spawnNodeProcess({
      controlPlaneUrl: cpUrl,
      nodeToken: mintNodeToken(cpConfig, AGENT),
      agentId: AGENT,
      nodeId: 'signing-node-2',
      cacheDir: join(dir, 'node-2'),
      redisUrl: cpConfig.REDIS_URL,
      redisKeyPrefix: prefix,
      pollIntervalMs: 200,
      heartbeatIntervalMs: 300,
      jwksCacheMaxAgeMs: 1000,
      jwksCooldownMs: 100,
    });
    await child.waitFor((s) => s.revision === 1, 60_000);
    partnerToken = mintA2AToken(cpConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run']);
  }, 180_000);

  afterAll(async () => {
    await child?.kill();
    await node?.close();
    await cp?.close();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('publishes the key ring as a JWKS: public keys only, ES256, no secret', async () => {
    const res = await fetch(jwksUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    const doc = (await res.json()) as JSONWebKeySet;
    expect(doc.keys).toEqual([{ kty: 'EC', crv: 'P-256', x: keyA.jwk.x, y: keyA.jwk.y, kid: 'key-a', alg: 'ES256', use: 'sig' }]);
    expect(JSON.stringify(doc)).not.toContain(keyA.jwk.d);
  });

  it('signs the public and the extended card; the official client verifies both through its hook', async () => {
    jest.spyOn(console, 'debug').mockImplementation(() => undefined); // the SDK logs each signature it tries
    const keys = await jwks();
    const card = await publicCard();
    expect(card.signatures.length).toBeGreaterThanOrEqual(1);
    expect(decodeProtectedHeader(card.signatures[0])).toEqual({ alg: 'ES256', kid: 'key-a', typ: 'JOSE' });
    expect(JSON.stringify(card.signatures)).not.toContain('jku');
    await expect(sdkVerifier(keys)(card as SdkAgentCard)).resolves.toBeUndefined();
    expect(await verifyCardSignature(card, keys)).toEqual({ ok: true, kid: 'key-a' });
    // The official client fetches the extended card (capabilities.extendedAgentCard) and runs the hook on it.
    // It hands the hook its internal AgentCard, which the SDK's canonicalizeAgentCard misreads
    // (a2a-js issue #663, PR #664: fields such as securitySchemes are lost); the hook is given the
    // wire JSON of that same card, which is what the fix does.
    const extended = await (
      await clientFor(partnerToken)
    ).getAgentCard(undefined, (c) => sdkVerifier(keys)(AgentCard.toJSON(c) as SdkAgentCard));
    expect(extended.skills.map((s) => s.id)).toEqual(['invoice-lookup', 'reconcile-invoice']);
    const wire = await rpc('GetExtendedAgentCard', partnerToken);
    expect(await verifyCardSignature(wire.body.result, keys)).toEqual({ ok: true, kid: 'key-a' });
  });

  it('a card altered by one byte fails; the same card re-serialised in another key order passes', async () => {
    const keys = await jwks();
    const text = await (await fetch(`${nodeUrl}/.well-known/agent-card.json`)).text();
    const altered = JSON.parse(text.replace('Looks up invoices', 'Looks up invoicez')) as Json;
    expect(await verifyCardSignature(altered, keys)).toMatchObject({ ok: false, code: 'BAD_SIGNATURE' });
    const silence = jest.spyOn(console, 'debug').mockImplementation(() => undefined);
    await expect(sdkVerifier(keys)(altered as SdkAgentCard)).rejects.toThrow(/No valid signatures/);
    silence.mockRestore();
    const reversed = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(reversed)
        : v && typeof v === 'object'
          ? Object.fromEntries(
              Object.entries(v)
                .reverse()
                .map(([k, x]) => [k, reversed(x)]),
            )
          : v;
    const reordered = JSON.stringify(reversed(JSON.parse(text)));
    expect(reordered).not.toBe(text);
    expect(await verifyCardSignature(reordered, keys)).toEqual({ ok: true, kid: 'key-a' });
    // The card carries the §8.4.1 signature first and the SDK-reading one second (ADR 0131): the
    // SDK reports (console.debug) that the first does not verify under its reading, then accepts
    // the second. Captured, and checked to be exactly that one expected failure.
    const sdkDebug = jest.spyOn(console, 'debug').mockImplementation(() => undefined);
    await expect(sdkVerifier(keys)(JSON.parse(reordered) as SdkAgentCard)).resolves.toBeUndefined();
    const card = JSON.parse(text) as Json;
    expect(sdkDebug.mock.calls.map((c) => (c[1] as Json | undefined)?.signature)).toEqual(
      card.signatures.length > 1 ? [card.signatures[0].signature] : [],
    );
    sdkDebug.mockRestore();
  });

  it("takes the card's URLs from the agent's configuration, never from the request's Host header", async () => {
    const hostile = await new Promise<string>((resolve, reject) => {
      // fetch refuses to override Host; a raw request sends what an attacker would.
      const req = require('node:http').request(
        `${nodeUrl}/.well-known/agent-card.json`,
        { headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' } },
        (res: NodeJS.ReadableStream) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve(body));
        },
      );
      req.on('error', reject);
      req.end();
    });
    const card = JSON.parse(hostile) as Json;
    expect(card.supportedInterfaces.map((i: Json) => i.url)).toEqual([`${nodeUrl}/a2a/jsonrpc`, `${nodeUrl}/a2a/rest`]);
    expect(hostile).not.toContain('evil.example');
    expect(await verifyCardSignature(card, await jwks())).toMatchObject({ ok: true });
  });

  it('mints tool tokens with ES256 and the kid; a tool verifies them with the JWKS and refuses the old HS256 kind', async () => {
    const res = await fetch(`${cpUrl}/node/v1/token-exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${nodeConfig.NODE_TOKEN}` },
      body: JSON.stringify({ subjectToken: partnerToken, tool: 'erp', capabilityId: 'reconcile-invoice' }),
    });
    expect(res.status).toBe(200);
    const { accessToken } = (await res.json()) as { accessToken: string };
    expect(decodeProtectedHeader(accessToken)).toMatchObject({ alg: 'ES256', kid: 'key-a' });
    await expect(compactVerify(accessToken, createLocalJWKSet(await jwks()))).resolves.toBeDefined();
    const erp = createErpTool(nodeConfig);
    const ctx = (token: string) => ({ token }) as never;
    await expect(erp({ invoiceNumber: 'INV-1' }, ctx(accessToken))).resolves.toMatchObject({ servedFor: { tenant: 'acme-partner' } });
    // The shared secret no longer makes tool tokens: one minted with it is refused by the tool.
    const claims = jwt.decode(accessToken) as Json;
    const { iat: _i, exp: _e, ...rest } = claims;
    const forged = jwt.sign({ ...rest }, cpConfig.JWT_SECRET, { algorithm: 'HS256', expiresIn: 60 });
    await expect(erp({ invoiceNumber: 'INV-1' }, ctx(forged))).rejects.toThrow(/algorithm/);
    // Nor does a key outside the ring, even naming the active kid.
    const outside = jwt.sign({ ...rest }, attacker.privateKey, { algorithm: 'ES256', keyid: 'key-a', expiresIn: 60 });
    await expect(erp({ invoiceNumber: 'INV-1' }, ctx(outside))).rejects.toThrow(/signature/);
  });

  describe('cpctl card verify', () => {
    let server: Server;
    let serverUrl: string;
    const served = new Map<string, string>();
    beforeAll(async () => {
      server = createServer((req, res) => {
        const body = served.get(req.url ?? '');
        res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' }).end(body ?? '');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      serverUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('answers one exit code per outcome', async () => {
      const text = await (await fetch(`${nodeUrl}/.well-known/agent-card.json`)).text();
      const otherJwks = join(dir, 'other-jwks.json');
      writeFileSync(otherJwks, JSON.stringify({ keys: [{ ...attacker.jwk, d: undefined, kid: 'key-a', alg: 'ES256' }] }));
      const { signatures: _s, ...unsigned } = JSON.parse(text) as Json;
      served.set('/tampered.json', text.replace('Finance Agent', 'Finance Agenz'));
      served.set('/unsigned.json', JSON.stringify(unsigned));
      served.set('/not-json.json', '<html>');
      const ok = await cpctl(['card', 'verify', nodeUrl, '--jwks', jwksUrl, '--json']);
      expect({ code: ok.code, out: ok.json() }).toMatchObject({ code: 0, out: { ok: true, kid: 'key-a', command: 'card verify' } });
      const human = await cpctl(['card', 'verify', `${nodeUrl}/.well-known/agent-card.json`], { CPCTL_JWKS: jwksUrl });
      expect(human.code).toBe(0);
      expect(human.stdout).toContain('signed by key "key-a"');
      expect((await cpctl(['card', 'verify', `${serverUrl}/tampered.json`, '--jwks', jwksUrl])).code).toBe(13);
      expect((await cpctl(['card', 'verify', nodeUrl, '--jwks', otherJwks])).code).toBe(13);
      const unknownKid = join(dir, 'unknown-kid-jwks.json');
      writeFileSync(unknownKid, JSON.stringify({ keys: [{ ...attacker.jwk, d: undefined, kid: 'other', alg: 'ES256' }] }));
      expect((await cpctl(['card', 'verify', nodeUrl, '--jwks', unknownKid])).code).toBe(14);
      expect((await cpctl(['card', 'verify', `${serverUrl}/unsigned.json`, '--jwks', jwksUrl])).code).toBe(12);
      expect((await cpctl(['card', 'verify', `${serverUrl}/not-json.json`, '--jwks', jwksUrl])).code).toBe(16);
      expect((await cpctl(['card', 'verify', nodeUrl, '--jwks', `http://127.0.0.1:${await freePort()}/jwks.json`])).code).toBe(15);
      expect((await cpctl(['card', 'verify', nodeUrl, '--jwks', join(dir, 'missing.json')])).code).toBe(15);
      expect((await cpctl(['card', 'verify', `${serverUrl}/missing.json`, '--jwks', jwksUrl])).code).toBe(8);
      const usage = await cpctl(['card', 'verify', nodeUrl]);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toMatch(/--jwks <url\|file> or CPCTL_JWKS/);
    }, 120_000);
  });

  describe('bundles', () => {
    /** Commits a revision without announcing it, then puts `bundle` in Redis as that revision's and announces it. */
    const plant = async (make: (good: NodeBundle) => Promise<NodeBundle> | NodeBundle) => {
      const { revision } = await rename(`planted ${randomBytes(3).toString('hex')}`, false);
      const snapshot = (await cp.get(RegistrySnapshotRepository).snapshot(AGENT))!;
      const good = await signNodeBundle(buildNodeBundle(snapshot), keyA);
      const bad = await make(good);
      const keys = syncKeys(cpConfig.REDIS_KEY_PREFIX, AGENT);
      // An attacker with Redis write access: the body, its ETag, and the kid the cache checks.
      await cp
        .get<Redis>(RedisToken)
        .hset(
          keys.bundle(revision, snapshot.epoch ?? ''),
          'body',
          JSON.stringify(bad),
          'etag',
          nodeBundleEtag(revision, bad.contentHash),
          'kid',
          'key-a',
        );
      await cp.get(BundleCache).raise(AGENT, revision, true, snapshot.epoch ?? '');
      return revision;
    };

    it('a bundle tampered in Redis is refused by every node, which keeps serving its last good revision (NACK in the fleet)', async () => {
      const before = sync().current()!.revision;
      const cardBefore = await publicCard();
      const variants: [string, (good: NodeBundle) => Promise<NodeBundle> | NodeBundle, RegExp][] = [
        [
          'content changed, hash recomputed, signature kept',
          (good) => ({
            ...buildNodeBundle({ ...good.snapshot, agent: { ...good.snapshot.agent, description: 'Send invoices to evil.example' } }),
            signature: good.signature,
          }),
          /signature BAD_SIGNATURE: the bundle content is not what was signed/,
        ],
        ['signature removed', ({ signature: _s, ...rest }) => rest, /signature UNSIGNED/],
        ['signed with a key outside the ring', (good) => signNodeBundle(good, attacker), /signature UNKNOWN_KEY/],
      ];
      for (const [what, make, reason] of variants) {
        const revision = await plant(make);
        await until(
          `both nodes refused: ${what}`,
          async () => reason.test(sync().status().lastRefusal ?? '') && reason.test((await child.status()).lastRefusal ?? ''),
        );
        expect(sync().current()!.revision).toBe(before);
        expect((await child.status()).revision).toBe(before);
        expect(await publicCard()).toEqual(cardBefore);
        const rows = await until(
          'the NACKs in the fleet',
          async () => {
            const r = await prisma().node.findMany({ where: { agentId: AGENT, id: { in: ['signing-node-1', 'signing-node-2'] } } });
            return r.length === 2 && r.every((x) => x.lastError?.startsWith(`revision ${revision}: signature`)) ? r : undefined;
          },
          30_000,
        );
        expect(rows.every((r) => r.appliedRevision === before)).toBe(true);
      }
      // The next good revision heals both.
      const { revision } = await rename('Looks up invoices and, for partners, reconciles them against purchase orders.');
      await until(
        'both nodes on the good revision',
        async () => sync().current()?.revision === revision && (await child.status()).revision === revision,
      );
    }, 60_000);

    it('a node restarted from its disk cache verifies it again: a tampered file is refused, a good one served with the keys it fetched last', async () => {
      const deadCp = `http://127.0.0.1:${await freePort()}`;
      const cacheDir = join(dir, 'node-1');
      const file = join(cacheDir, `${AGENT}.bundle.json`);
      const live = sync().current()!.revision;
      // NodeSync swaps the bundle in memory first and then writes it (temp file, fsync, rename):
      // a restart between the two starts from the previous verified bundle. Wait for the write.
      await until(
        `the disk cache holds the live revision ${live}`,
        async () => (JSON.parse(await readFile(file, 'utf8').catch(() => '{}')) as { revision?: number }).revision === live,
        30_000,
      );
      const options = {
        controlPlaneUrl: deadCp,
        nodeToken: 'unused',
        agentId: AGENT,
        nodeId: 'restarted',
        cacheDir,
        requestTimeoutMs: 300,
      };
      // The control plane is unreachable: the node verifies with the JWKS it kept on disk.
      const restarted = new NodeSync(options);
      await restarted.start();
      expect(restarted.current()?.revision).toBe(live);
      expect(restarted.status().source).toBe('disk');
      expect(restarted.status().lastRefusal).toBeNull();
      await restarted.stop();
      const bundle = JSON.parse(await readFile(file, 'utf8')) as NodeBundle;
      const tamperedDir = join(dir, 'tampered-disk');
      mkdirSync(tamperedDir);
      writeFileSync(join(tamperedDir, `${AGENT}.jwks.json`), await readFile(join(cacheDir, `${AGENT}.jwks.json`)));
      const forged = buildNodeBundle({ ...bundle.snapshot, agent: { ...bundle.snapshot.agent, name: 'Forged Agent' } });
      writeFileSync(join(tamperedDir, `${AGENT}.bundle.json`), JSON.stringify({ ...forged, signature: bundle.signature }));
      const victim = new NodeSync({ ...options, cacheDir: tamperedDir, nodeId: 'restarted-tampered' });
      await victim.start();
      expect(victim.current()).toBeUndefined();
      expect(victim.status().lastRefusal).toMatch(/signature BAD_SIGNATURE/);
      await victim.stop();
    }, 60_000);
  });

  it('rotation: add next, promote, retire, remove; nodes and clients verify throughout with zero refused requests', async () => {
    const clientKeys = pinnedJwks(jwksUrl, { cacheMaxAgeMs: 1000, cooldownMs: 100 });
    const failures: string[] = [];
    let requests = 0;
    let running = true;
    const traffic = (async () => {
      while (running) {
        requests++;
        const card = await fetch(`${nodeUrl}/.well-known/agent-card.json`);
        const body = (await card.json()) as Json;
        const verified = await verifyCardSignature(body, clientKeys);
        if (card.status !== 200 || !verified.ok) failures.push(`public card: ${card.status} ${JSON.stringify(verified)}`);
        const ext = await rpc('GetExtendedAgentCard', partnerToken);
        const extVerified = await verifyCardSignature(ext.body.result ?? {}, clientKeys);
        if (ext.status !== 200 || !extVerified.ok) failures.push(`extended card: ${ext.status} ${JSON.stringify(extVerified)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    try {
      // 1. Publish B as next: verifiers learn it before it signs anything.
      writeKeyRing([
        { key: keyA, state: 'active' },
        { key: keyB, state: 'next' },
      ]);
      await until('B in the JWKS', async () => (await kids()).join() === 'key-a,key-b', 30_000);
      await new Promise((r) => setTimeout(r, 1200)); // one JWKS cache lifetime of the verifiers
      expect(kidOf(await publicCard())).toBe('key-a');
      // 2. Promote B; A retires but stays published.
      writeKeyRing([
        { key: keyB, state: 'active' },
        { key: keyA, state: 'retired', publicOnly: true },
      ]);
      await bothNodes('both nodes serve bundles signed by B', (states) => states.every((x) => x.kid === 'key-b'), 60_000);
      expect(kidOf(await publicCard())).toBe('key-b');
      // A registry change under B reaches both nodes.
      const { revision } = await rename('Invoices, signed by the next key.');
      await bothNodes('both nodes on the change', (states) => states.every((x) => x.revision === revision));
      // A tool token now carries B, and the tool verifies it.
      const exchanged = await fetch(`${cpUrl}/node/v1/token-exchange`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${nodeConfig.NODE_TOKEN}` },
        body: JSON.stringify({ subjectToken: partnerToken, tool: 'erp', capabilityId: 'reconcile-invoice' }),
      });
      const { accessToken } = (await exchanged.json()) as { accessToken: string };
      expect(decodeProtectedHeader(accessToken).kid).toBe('key-b');
      await expect(createErpTool(nodeConfig)({ invoiceNumber: 'INV-7' }, { token: accessToken })).resolves.toBeDefined();
      // 3. Remove A once nothing it signed is in use.
      writeKeyRing([{ key: keyB, state: 'active' }]);
      await until('A gone from the JWKS', async () => (await kids()).join() === 'key-b', 30_000);
    } finally {
      running = false;
      await traffic;
    }
    expect({ requests: requests > 20, failures }).toEqual({ requests: true, failures: [] });

    // A bundle signed by the removed key is refused by both nodes, which keep serving.
    await new Promise((r) => setTimeout(r, 1200)); // the nodes' JWKS caches expire
    const serving = sync().current()!.revision;
    const { revision: planted } = await rename('signed by a removed key', false);
    const snapshot = (await cp.get(RegistrySnapshotRepository).snapshot(AGENT))!;
    const old = await signNodeBundle(buildNodeBundle(snapshot), keyA);
    const keys = syncKeys(cpConfig.REDIS_KEY_PREFIX, AGENT);
    await cp
      .get<Redis>(RedisToken)
      .hset(
        keys.bundle(planted, snapshot.epoch ?? ''),
        'body',
        JSON.stringify(old),
        'etag',
        nodeBundleEtag(planted, old.contentHash),
        'kid',
        'key-b',
      );
    await cp.get(BundleCache).raise(AGENT, planted, true, snapshot.epoch ?? '');
    await until('both nodes refused the removed key', async () =>
      [sync().status().lastRefusal, (await child.status()).lastRefusal].every((r) =>
        /signature UNKNOWN_KEY: the bundle is signed with key "key-a"/.test(r ?? ''),
      ),
    );
    expect(sync().current()!.revision).toBe(serving);
    expect((await child.status()).revision).toBe(serving);
  }, 300_000);
});
