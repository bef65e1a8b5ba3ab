import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@cp/common';
import { keyRingFromConfig } from './from-config';
import { generateKeyRingEntry, KeyRing, KeyRingError, parseKeyRing } from './key-ring';

const dir = mkdtempSync(join(tmpdir(), 'key-ring-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const doc = (...keys: object[]) => JSON.stringify({ keys });
const ecPem = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

describe('KeyRing', () => {
  it('loads PEM and JWK keys, publishes active, next and retired as public ES256 keys only', () => {
    const next = generateKeyRingEntry('k2', 'next');
    const retiredPublic = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
    const ring = new KeyRing({
      kind: 'inline',
      variable: 'SIGNING_KEYS',
      json: doc({ kid: 'k0', state: 'retired', publicJwk: retiredPublic }, next, { kid: 'k1', state: 'active', privateKeyPem: ecPem() }),
    });
    expect(ring.active().kid).toBe('k1');
    const jwks = ring.jwks();
    expect(jwks.keys.map((k) => k.kid)).toEqual(['k1', 'k2', 'k0']);
    for (const k of jwks.keys) {
      expect(Object.keys(k).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
      expect(k).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    }
  });

  it.each([
    ['not JSON', '{', /not JSON/],
    ['no keys', doc(), /at least one key/],
    ['no active key', doc(generateKeyRingEntry('a', 'next')), /exactly one key must be "active" \(found 0\)/],
    ['two active keys', doc(generateKeyRingEntry('a'), generateKeyRingEntry('b')), /found 2/],
    ['a duplicate kid', doc(generateKeyRingEntry('a'), generateKeyRingEntry('a', 'next')), /kid "a" appears twice/],
    ['a hostile kid', doc({ ...generateKeyRingEntry('a'), kid: 'a"\r\nx' }), /keys\[0\]\.kid/],
    ['an unknown state', doc({ ...generateKeyRingEntry('a'), state: 'primary' }), /keys\[0\]\.state: one of active, next, retired/],
    [
      'an RSA key',
      doc({
        kid: 'r',
        state: 'active',
        privateKeyPem: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      }),
      /must be an EC P-256 key/,
    ],
    [
      'an active key without its private part',
      doc({ kid: 'p', state: 'active', publicJwk: generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }) }),
      /the active key "p" has no private key/,
    ],
    [
      'garbage PEM',
      doc({ kid: 'g', state: 'active', privateKeyPem: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----' }),
      /does not parse/,
    ],
    ['no key material', doc({ kid: 'n', state: 'active' }), /needs privateKeyPem, privateJwk, publicKeyPem or publicJwk/],
  ])('refuses %s, naming where', (_what, text, message) => {
    expect(() => parseKeyRing(text, 'SIGNING_KEYS')).toThrow(KeyRingError);
    expect(() => parseKeyRing(text, 'SIGNING_KEYS')).toThrow(message);
  });

  it('re-reads a changed file, and keeps the keys in use when the new file does not parse', () => {
    const file = join(dir, 'ring.json');
    writeFileSync(file, doc(generateKeyRingEntry('one')));
    const ring = new KeyRing({ kind: 'file', path: file, variable: 'SIGNING_KEYS_FILE' });
    expect(ring.reload()).toBe(false);
    writeFileSync(file, doc(generateKeyRingEntry('two'), { ...generateKeyRingEntry('one'), state: 'retired' }));
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    expect(ring.reload()).toBe(true);
    expect(ring.active().kid).toBe('two');
    writeFileSync(file, '{ broken');
    utimesSync(file, new Date(), new Date(Date.now() + 10_000));
    expect(() => ring.reload()).toThrow(/not JSON/);
    expect(ring.active().kid).toBe('two');
  });

  it('development: generates one key into the file (0600) and reuses it on the next start', () => {
    const path = join(dir, 'dev', 'signing-keys.json');
    const first = keyRingFromConfig(loadConfig({ NODE_ENV: 'development', SIGNING_DEV_KEY_FILE: path }));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const second = keyRingFromConfig(loadConfig({ NODE_ENV: 'development', SIGNING_DEV_KEY_FILE: path }));
    expect(second.active().kid).toBe(first.active().kid);
    expect(second.jwks()).toEqual(first.jwks());
    expect(JSON.parse(readFileSync(path, 'utf8')).keys).toHaveLength(1);
  });

  it('production refuses to start without real keys, whatever the development file holds', () => {
    const path = join(dir, 'dev', 'signing-keys.json');
    expect(() => keyRingFromConfig(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40), SIGNING_DEV_KEY_FILE: path }))).toThrow(
      /SIGNING_KEYS or SIGNING_KEYS_FILE must be set in production/,
    );
    // An unset NODE_ENV off loopback is production too (ADR 0068).
    expect(() => keyRingFromConfig(loadConfig({ HOST: '0.0.0.0', JWT_SECRET: 'x'.repeat(40) }))).toThrow(/must be set in production/);
    const ring = keyRingFromConfig(
      loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40), SIGNING_KEYS: doc(generateKeyRingEntry('prod')) }),
    );
    expect(ring.active().kid).toBe('prod');
  });
});
