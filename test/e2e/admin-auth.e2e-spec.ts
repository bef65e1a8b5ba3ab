import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import jwt from 'jsonwebtoken';
import { mintAdminToken, mintNodeToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { codeOf, gql } from '../support/graphql-client';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const ME = '{ me { subject roles teams } }';

describe('admin API authentication (HTTP, passport admin-jwt)', () => {
  let db: TestDatabase;
  let app: NestFastifyApplication;
  let url: string;
  let config: AppConfig;

  beforeAll(async () => {
    db = await createTestDatabase('admin_auth');
    config = testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: `test:admin-auth:${process.pid}:`, MAX_BODY_BYTES: '4096' });
    ({ app, url } = await bootApp(AppModule, config));
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  const sign = (claims: object, options: jwt.SignOptions = {}, key: jwt.Secret = config.JWT_SECRET) =>
    jwt.sign({ token_use: 'admin', roles: ['viewer'], teams: [], ...claims }, key, {
      algorithm: 'HS256',
      subject: 'alice',
      issuer: config.JWT_ISSUER,
      audience: config.JWT_AUDIENCE,
      expiresIn: 60,
      ...options,
    });

  it('answers the principal of a valid token, identity taken from the token only', async () => {
    const res = await gql(url, mintAdminToken(config, 'ci-bot', ['team-admin'], ['finance']), ME);
    expect(res.errors).toBeUndefined();
    expect(res.data).toEqual({ me: { subject: 'ci-bot', roles: ['team-admin'], teams: ['finance'] } });
  });

  it.each([
    ['no token', undefined, 'TOKEN_MISSING'],
    ['garbage', 'not-a-jwt', 'TOKEN_MALFORMED'],
    ['an expired token', () => sign({}, { expiresIn: -60 }), 'TOKEN_EXPIRED'],
    ['the wrong audience', () => sign({}, { audience: 'someone-else' }), 'TOKEN_WRONG_AUDIENCE'],
    ['the wrong issuer', () => sign({}, { issuer: 'evil' }), 'TOKEN_WRONG_ISSUER'],
    ['a bad signature', () => sign({}, {}, `${'x'.repeat(40)}`), 'TOKEN_BAD_SIGNATURE'],
    ['alg none', () => sign({}, { algorithm: 'none' }, ''), 'TOKEN_ALGORITHM_NOT_ALLOWED'],
    ['a node token used as admin', () => mintNodeToken(config, 'finance-agent'), 'TOKEN_WRONG_USE'],
    ['an unknown role', () => sign({ roles: ['root'] }), 'TOKEN_BAD_CLAIMS'],
  ])('refuses %s with UNAUTHENTICATED and the reason', async (_name, token, reason) => {
    const res = await gql(url, typeof token === 'function' ? token() : token, ME);
    expect(codeOf(res)).toBe('UNAUTHENTICATED');
    expect(res.errors![0].extensions.reason).toBe(reason);
    expect(res.errors![0].message).not.toMatch(/secret|stack/i);
    expect(res.data).toBeNull();
  });

  it('remembers a verified token (ADR 0342) but refuses one differing in any byte, and a token past its exp', async () => {
    const token = sign({ roles: ['team-admin'], teams: ['finance'] }, { expiresIn: 1 });
    for (let i = 0; i < 3; i++)
      expect((await gql(url, token, ME)).data).toEqual({ me: { subject: 'alice', roles: ['team-admin'], teams: ['finance'] } });
    // The same claims, another signature: a miss, verified in full, refused.
    const [head, body, signature] = token.split('.');
    const tampered = `${head}.${body}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    expect((await gql(url, tampered, ME)).errors![0].extensions.reason).toBe('TOKEN_BAD_SIGNATURE');
    // Another payload under the remembered signature (a claim changed): refused.
    const forged = `${head}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), roles: ['platform-admin'] })).toString('base64url')}.${signature}`;
    expect(codeOf(await gql(url, forged, ME))).toBe('UNAUTHENTICATED');
    // Remembered only until its exp: past it and the verifier's 5 s of clock tolerance, refused as expired.
    await new Promise((resolve) => setTimeout(resolve, 6_200));
    const late = await gql(url, token, ME);
    expect(codeOf(late)).toBe('UNAUTHENTICATED');
    expect(late.errors![0].extensions.reason).toBe('TOKEN_EXPIRED');
  }, 20_000);

  it('refuses an oversized body with 413 and a clear message', async () => {
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${mintAdminToken(config, 'a', ['viewer'])}` },
      body: JSON.stringify({ query: ME, variables: { pad: 'x'.repeat(8192) } }),
    });
    expect(res.status).toBe(413);
    const body = (await res.json()) as { message: string; code?: string };
    expect(body.message).toMatch(/4096 bytes/);
  });
});
