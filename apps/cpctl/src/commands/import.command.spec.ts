/**
 * `cpctl import --from-card` in-process (cli.run) against real HTTP servers on 127.0.0.1 (ADR
 * 0276): cards and AI Catalogs, signed and unsigned; a bad, malformed or unverifiable signature
 * refuses the import and writes nothing unless --no-verify; hostile answers (huge, deep, not JSON,
 * redirects, 10k skills) and bad URLs are clear errors, never a crash.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { signCard, signCatalog, type AiCatalog, type SignatureKey } from '@cp/node-protocol';
import { run } from '../cli';
import { ExitCode } from '../exit-codes';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function signingKey(kid: string): { key: SignatureKey; jwks: object } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { key: { kid, privateKey }, jwks: { keys: [{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' }] } };
}

const routes = new Map<string, { status?: number; body: string; headers?: Record<string, string> }>();
let origin = '';
let server: http.Server;
const root = mkdtempSync(join(tmpdir(), 'cpctl-import-'));
let n = 0;
const freshDir = () => join(root, `out-${++n}`);

async function cpctl(args: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await run([...args, '--json'], {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env,
  });
  return { code, out: JSON.parse(stdout) as Json, stderr };
}

const cardOf = (name: string, skills: string[], base = origin) => ({
  name,
  description: `${name} agent`,
  version: '1.0.0',
  supportedInterfaces: [{ url: `${base}/${name}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['application/json'],
  skills: skills.map((id) => ({ id, name: `Skill ${id}`, description: `does ${id}`, tags: ['t'] })),
});
const serve = (path: string, body: unknown, status = 200, headers?: Record<string, string>) =>
  routes.set(path, { status, body: typeof body === 'string' ? body : JSON.stringify(body), headers });
const importArgs = (path: string, dir: string, ...more: string[]) => [
  'import',
  '--from-card',
  `${origin}${path}`,
  dir,
  '--owner',
  'treasury-team',
  '--allow-private',
  ...more,
];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const r = routes.get(req.url ?? '');
    res.writeHead(r?.status ?? 404, { 'content-type': 'application/json', ...r?.headers });
    res.end(r?.body ?? '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(root, { recursive: true, force: true });
});

describe('cpctl import --from-card', () => {
  const signer = signingKey('upstream-key');
  const other = signingKey('someone-else');
  const jwksFile = join(root, 'jwks.json');
  beforeAll(() => writeFileSync(jwksFile, JSON.stringify(signer.jwks)));

  it('a signed card verifies against the named JWKS and is imported', async () => {
    serve('/signed/card.json', await signCard(cardOf('signed', ['reconcile-invoice']), signer.key));
    const dir = freshDir();
    const r = await cpctl(importArgs('/signed/card.json', dir, '--jwks', jwksFile));
    expect(r.code).toBe(ExitCode.Ok);
    expect(r.out.verified).toEqual([{ what: `${origin}/signed/card.json`, outcome: 'verified (key "upstream-key")' }]);
    const doc = YAML.parse(readFileSync(join(dir, 'reconcile-invoice.yaml'), 'utf8')) as Json;
    // Not at the default place: the card URL is kept for the node's probe.
    expect(doc.upstream).toEqual({ url: `${origin}/signed/a2a`, binding: 'jsonrpc', version: '1.0', card: `${origin}/signed/card.json` });
  });

  it('a tampered, foreign-signed or malformed signature refuses the import and writes nothing, unless --no-verify', async () => {
    const signed = await signCard(cardOf('tampered', ['a']), signer.key);
    serve('/tampered/card.json', { ...signed, description: 'changed after signing' });
    serve('/foreign/card.json', await signCard(cardOf('foreign', ['a']), other.key));
    serve('/malformed/card.json', { ...cardOf('malformed', ['a']), signatures: [{ protected: '!!', signature: 7 }] });
    const outcomes: Record<string, number> = {};
    for (const which of ['tampered', 'foreign', 'malformed']) {
      const dir = freshDir();
      const r = await cpctl(importArgs(`/${which}/card.json`, dir, '--jwks', jwksFile));
      outcomes[which] = r.code;
      expect(r.out.ok).toBe(false);
      expect(r.out.reason).toMatch(/nothing was written \(--no-verify imports it anyway\)/);
      expect(() => readdirSync(dir)).toThrow();
    }
    expect(outcomes).toEqual({
      tampered: ExitCode.CardSignatureInvalid,
      foreign: ExitCode.CardUnknownKey,
      malformed: ExitCode.CardMalformed,
    });
    const loud = await cpctl(importArgs('/tampered/card.json', freshDir(), '--no-verify'));
    expect(loud.code).toBe(ExitCode.Ok);
    expect(loud.out.verified[0].outcome).toBe('signed, NOT verified (--no-verify)');
  });

  it('a signed card without a JWKS to check it with is refused, saying how to proceed', async () => {
    const r = await cpctl(importArgs('/signed/card.json', freshDir()));
    expect(r.code).toBe(ExitCode.Usage);
    expect(r.out.reason).toMatch(/--jwks <url\|file> or CPCTL_JWKS\) to verify|name the JWKS/);
  });

  it('an AI Catalog imports every A2A card it lists (nested catalogs too), its signature verified', async () => {
    serve('/treasury/card.json', cardOf('treasury', ['cash-forecast', 'shared']));
    serve('/payables/card.json', await signCard(cardOf('payables', ['pay-invoice', 'shared']), signer.key));
    const entry = (name: string) => ({
      identifier: `urn:air:acme:agent:${name}`,
      displayName: name,
      mediaType: 'application/a2a-agent-card+json',
      url: `${origin}/${name}/card.json`,
    });
    const catalog = {
      specVersion: '1.0',
      host: { displayName: 'acme agents' },
      entries: [
        entry('treasury'),
        {
          identifier: 'urn:air:acme:team:payables',
          displayName: 'payables team',
          mediaType: 'application/ai-catalog+json',
          data: { specVersion: '1.0', entries: [entry('payables')] },
        },
      ],
    } as unknown as AiCatalog;
    serve('/.well-known/ai-catalog.json', await signCatalog(catalog, signer.key));
    const dir = freshDir();
    const r = await cpctl(importArgs('/.well-known/ai-catalog.json', dir, '--jwks', jwksFile));
    expect(r.code).toBe(ExitCode.Ok);
    expect(r.out.agents.map((a: Json) => [a.name, a.capabilities.map((c: Json) => c.id)])).toEqual([
      ['treasury', ['cash-forecast', 'shared']],
      ['payables', ['pay-invoice', 'shared-2']],
    ]);
    expect(r.out.verified.map((v: Json) => v.outcome)).toEqual([
      'verified (key "upstream-key")',
      'unsigned',
      'unsigned',
      'verified (key "upstream-key")',
    ]);
    expect(readdirSync(dir).sort()).toEqual(['cash-forecast.yaml', 'pay-invoice.yaml', 'shared-2.yaml', 'shared.yaml']);

    // The same catalog with its signature broken: refused whole.
    const signed = JSON.parse(routes.get('/.well-known/ai-catalog.json')!.body) as Json;
    serve('/bad-catalog.json', { ...signed, host: { displayName: 'someone else' } });
    const bad = await cpctl(importArgs('/bad-catalog.json', freshDir(), '--jwks', jwksFile));
    expect(bad.code).toBe(ExitCode.CardSignatureInvalid);
    // Not a catalog by the specification's MUST rules.
    serve('/invalid-catalog.json', { specVersion: 'one', entries: [] });
    expect((await cpctl(importArgs('/invalid-catalog.json', freshDir()))).code).toBe(ExitCode.CatalogInvalid);
  });

  it('keeps existing files unless --replace', async () => {
    serve('/keep/card.json', cardOf('keep', ['mine']));
    const dir = freshDir();
    expect((await cpctl(importArgs('/keep/card.json', dir))).code).toBe(ExitCode.Ok);
    const again = await cpctl(importArgs('/keep/card.json', dir));
    expect(again.code).toBe(ExitCode.Usage);
    expect(again.out.error.message).toMatch(/already holds mine\.yaml: pass --replace/);
    expect((await cpctl(importArgs('/keep/card.json', dir, '--replace'))).code).toBe(ExitCode.Ok);
  });

  it('hostile answers: huge, deep, not JSON, a redirect, 10,000 skills, no usable interface', async () => {
    serve('/huge', { ...cardOf('huge', ['a']), pad: 'x'.repeat(2 * 1024 * 1024) });
    serve('/deep', '['.repeat(10_000) + ']'.repeat(10_000));
    serve('/text', 'hello');
    serve('/redirect', '', 302, { location: 'http://169.254.169.254/latest/meta-data/' });
    serve(
      '/many',
      cardOf(
        'many',
        Array.from({ length: 10_000 }, (_, i) => `skill-${i}`),
      ),
    );
    serve('/grpc-only', {
      ...cardOf('grpc', ['a']),
      supportedInterfaces: [{ url: `${origin}/g`, protocolBinding: 'GRPC', protocolVersion: '1.0' }],
    });
    serve('/missing', '{}', 404);
    const messages: Record<string, string> = {};
    for (const path of ['/huge', '/deep', '/text', '/redirect', '/many', '/grpc-only', '/missing']) {
      const r = await cpctl(importArgs(path, freshDir()));
      expect(r.code).not.toBe(ExitCode.Ok);
      expect(r.out.ok).toBe(false);
      messages[path] = r.out.error.message;
    }
    expect(messages['/huge']).toMatch(/larger than 1048576 bytes/);
    expect(messages['/deep']).toMatch(/nested deeper than 64 levels/);
    expect(messages['/text']).toMatch(/not JSON/);
    expect(messages['/redirect']).toMatch(/answered 302 \(redirects are not followed/);
    expect(messages['/many']).toMatch(/lists 10000 skills; one import takes at most 500/);
    expect(messages['/grpc-only']).toMatch(/lists no JSON-RPC or HTTP\+JSON interface/);
    expect(messages['/missing']).toMatch(/answered HTTP 404/);
  });

  it('bad URLs and addresses are usage errors naming what is wrong; --owner is required', async () => {
    const cases: [string[], RegExp][] = [
      [['import', '--from-card', 'ftp://x.example.com/card', freshDir(), '--owner', 't'], /scheme "ftp" is not allowed/],
      [['import', '--from-card', 'https://u:p@x.example.com/', freshDir(), '--owner', 't'], /must not carry credentials/],
      [
        ['import', '--from-card', 'http://169.254.169.254/', freshDir(), '--owner', 't', '--allow-private'],
        /linkLocal, which is never fetched/,
      ],
      [['import', '--from-card', 'http://[::ffff:169.254.169.254]/', freshDir(), '--owner', 't', '--allow-private'], /never fetched/],
      [['import', '--from-card', 'http://metadata.google.internal/', freshDir(), '--owner', 't'], /cloud metadata/],
      [['import', '--from-card', `${origin}/keep/card.json`, freshDir()], /--owner <team> is required/],
      [['import', '--from-card', `${origin}/keep/card.json`, freshDir(), '--owner', 'Not A Slug'], /--owner <team> is required/],
    ];
    for (const [args, message] of cases) {
      const r = await cpctl(args);
      expect(r.code).toBe(ExitCode.Usage);
      expect(r.out.error.message).toMatch(message);
    }
  });
});
