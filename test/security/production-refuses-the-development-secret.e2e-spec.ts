/**
 * Issue 11 item 5: production fails closed. The public development JWT_SECRET signs tool tokens
 * whatever JWT_ALGORITHMS lists, so it is refused in production whatever the algorithms, and on
 * any interface that is not loopback whatever NODE_ENV says; an unset NODE_ENV on a non-loopback
 * interface means production. `npm start` (loopback, no environment) keeps working.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { generateKeyPairSync } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '@cp/common';

const STRONG = 'a-real-deployment-secret-0123456789-abcdef';

describe('production refuses the development secret (issue 11 item 5)', () => {
  let dir: string;
  let jwks: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sec-config-'));
    jwks = join(dir, 'jwks.json');
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await writeFile(jwks, JSON.stringify({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'k1', use: 'sig' }] }));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const refusal = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    return 'ACCEPTED';
  };

  it('refuses the default secret in an RS256-only production deployment (it would still sign tool tokens)', () => {
    expect(refusal({ NODE_ENV: 'production', JWT_ALGORITHMS: 'RS256', JWT_JWKS_FILE: jwks })).toMatch(/JWT_SECRET: .*development/);
    expect(refusal({ NODE_ENV: 'production', JWT_ALGORITHMS: 'RS256', JWT_JWKS_FILE: jwks, JWT_SECRET: STRONG })).toBe('ACCEPTED');
  });

  it.each(['0.0.0.0', '::', '10.1.2.3', 'agent-node.internal'])(
    'refuses the default secret on the non-loopback interface %s whatever NODE_ENV says',
    (host) => {
      for (const env of [{}, { NODE_ENV: 'development' }, { NODE_ENV: 'test' }] as Record<string, string>[]) {
        expect(refusal({ ...env, HOST: host })).toMatch(/JWT_SECRET: .*HOST/);
      }
    },
  );

  it('treats a missing NODE_ENV on a non-loopback interface as production, not development', () => {
    const config = loadConfig({ HOST: '0.0.0.0', JWT_SECRET: STRONG });
    expect(config.NODE_ENV).toBe('production');
    expect(loadConfig({ HOST: '0.0.0.0', JWT_SECRET: STRONG, NODE_ENV: 'development' }).NODE_ENV).toBe('development');
  });

  it.each(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'])('keeps the no-environment developer start working on %s', (host) => {
    const config = loadConfig({ HOST: host });
    expect(config.NODE_ENV).toBe('development');
    expect(config.JWT_SECRET.length).toBeGreaterThanOrEqual(32);
  });

  it('keeps `npm start` with no environment at all working (loopback, development)', () => {
    const config = loadConfig({});
    expect(config.HOST).toBe('127.0.0.1');
    expect(config.NODE_ENV).toBe('development');
  });
});
