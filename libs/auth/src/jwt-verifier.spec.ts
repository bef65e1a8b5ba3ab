import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import { AuthErrorCode } from './auth.errors';
import { JwtVerifier, type JwtVerifierOptions } from './jwt-verifier';

const SECRET = 'a-test-secret-that-is-long-enough-0123456789';
const base = { issuer: 'cp', audience: 'cp-api' };
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwksFile = join(mkdtempSync(join(tmpdir(), 'jwks-')), 'jwks.json');
writeFileSync(
  jwksFile,
  JSON.stringify({
    keys: [
      { ...rsa.publicKey.export({ format: 'jwk' }), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
      { ...ec.publicKey.export({ format: 'jwk' }), kid: 'ec-1', alg: 'ES256', use: 'sig' },
    ],
  }),
);

const adminClaims = { token_use: 'admin', roles: ['team-admin'], teams: ['finance'] };
const sign = (claims: object, key: jwt.Secret, options: jwt.SignOptions) =>
  jwt.sign(claims, key, { subject: 'alice', ...base, expiresIn: 60, ...options });
const verifier = (options: Partial<JwtVerifierOptions> = {}) =>
  new JwtVerifier({ algorithms: ['HS256', 'RS256', 'ES256'], secret: SECRET, jwksFile, ...base, ...options });
const codeOf = async (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (error: { code: string }) => error.code,
  );

describe('JwtVerifier', () => {
  it('accepts HS256, RS256 and ES256 tokens and maps admin claims', async () => {
    const v = verifier();
    for (const token of [
      sign(adminClaims, SECRET, { algorithm: 'HS256' }),
      sign(adminClaims, rsa.privateKey, { algorithm: 'RS256', keyid: 'rsa-1' }),
      sign(adminClaims, ec.privateKey, { algorithm: 'ES256', keyid: 'ec-1' }),
    ]) {
      await expect(v.verify(token, 'admin')).resolves.toEqual({
        kind: 'admin',
        subject: 'alice',
        roles: ['team-admin'],
        teams: ['finance'],
      });
    }
  });

  it('maps a2a scopes from the space-separated scope claim', async () => {
    const token = sign({ token_use: 'a2a', tenant: 'acme', scope: 'recon.run invoice.read recon.run' }, SECRET, { algorithm: 'HS256' });
    await expect(verifier().verify(token, 'a2a')).resolves.toEqual({
      kind: 'a2a',
      subject: 'alice',
      tenant: 'acme',
      scopes: ['invoice.read', 'recon.run'],
      expiresAt: expect.any(Number),
    });
  });

  it.each([
    ['missing token', undefined, AuthErrorCode.Missing],
    ['not a JWT', 'abc.def', AuthErrorCode.Malformed],
    ['expired', sign(adminClaims, SECRET, { algorithm: 'HS256', expiresIn: -60 }), AuthErrorCode.Expired],
    ['wrong issuer', sign(adminClaims, SECRET, { algorithm: 'HS256', issuer: 'evil' }), AuthErrorCode.WrongIssuer],
    ['wrong audience', sign(adminClaims, SECRET, { algorithm: 'HS256', audience: 'other' }), AuthErrorCode.WrongAudience],
    ['bad signature', sign(adminClaims, `${SECRET}x`, { algorithm: 'HS256' }), AuthErrorCode.BadSignature],
    ['wrong token use', sign({ ...adminClaims, token_use: 'a2a' }, SECRET, { algorithm: 'HS256' }), AuthErrorCode.WrongUse],
    ['unknown role', sign({ ...adminClaims, roles: ['root'] }, SECRET, { algorithm: 'HS256' }), AuthErrorCode.BadClaims],
    ['unknown kid', sign(adminClaims, rsa.privateKey, { algorithm: 'RS256', keyid: 'nope' }), AuthErrorCode.UnknownKey],
  ])('refuses %s', async (_name, token, code) => {
    expect(await codeOf(verifier().verify(token, 'admin'))).toBe(code);
  });

  it('refuses alg none', async () => {
    const unsigned = sign(adminClaims, '', { algorithm: 'none' });
    expect(await codeOf(verifier().verify(unsigned, 'admin'))).toBe(AuthErrorCode.AlgorithmNotAllowed);
  });

  it('refuses algorithm confusion: an HS256 token "signed" with the RSA public key', async () => {
    const publicPem = rsa.publicKey.export({ format: 'pem', type: 'spki' }) as string;
    const forged = jwt.sign(adminClaims, Buffer.from(publicPem), {
      algorithm: 'HS256',
      subject: 'mallory',
      ...base,
      expiresIn: 60,
      allowInsecureKeySizes: true,
    } as jwt.SignOptions);
    expect(await codeOf(verifier().verify(forged, 'admin'))).toBe(AuthErrorCode.BadSignature);
    expect(await codeOf(verifier({ algorithms: ['RS256'], secret: undefined }).verify(forged, 'admin'))).toBe(
      AuthErrorCode.AlgorithmNotAllowed,
    );
  });

  it('refuses an algorithm the deployment does not accept', async () => {
    const token = sign(adminClaims, SECRET, { algorithm: 'HS256' });
    expect(await codeOf(verifier({ algorithms: ['RS256'], secret: undefined }).verify(token, 'admin'))).toBe(
      AuthErrorCode.AlgorithmNotAllowed,
    );
  });

  it('fetches a JWKS URL and refetches on an unknown kid at most every 30 s', async () => {
    const fetches: string[] = [];
    const jwks = { keys: [{ ...rsa.publicKey.export({ format: 'jwk' }), kid: 'rsa-1', alg: 'RS256' }] };
    const v = new JwtVerifier({
      algorithms: ['RS256'],
      jwksUrl: 'https://idp.example/jwks',
      fetchJwks: async (url) => (fetches.push(url), jwks),
      ...base,
    });
    const token = sign(adminClaims, rsa.privateKey, { algorithm: 'RS256', keyid: 'rsa-1' });
    await expect(v.verify(token, 'admin')).resolves.toMatchObject({ subject: 'alice' });
    await expect(v.verify(token, 'admin')).resolves.toMatchObject({ subject: 'alice' });
    expect(await codeOf(v.verify(sign(adminClaims, rsa.privateKey, { algorithm: 'RS256', keyid: 'rotated' }), 'admin'))).toBe(
      AuthErrorCode.UnknownKey,
    );
    expect(fetches).toEqual(['https://idp.example/jwks']);
  });

  it('requires exp and iat, bounds the lifetime per kind (configurable) and refuses iat in the future', async () => {
    const now = Math.floor(Date.now() / 1000);
    const v = verifier();
    const hs = (claims: object, options: jwt.SignOptions = {}) =>
      jwt.sign({ ...adminClaims, ...claims }, SECRET, { algorithm: 'HS256', subject: 'alice', ...base, ...options });
    expect(await codeOf(v.verify(hs({ iat: now }), 'admin'))).toBe(AuthErrorCode.BadClaims);
    expect(await codeOf(v.verify(hs({ exp: now + 60 }, { noTimestamp: true }), 'admin'))).toBe(AuthErrorCode.BadClaims);
    expect(await codeOf(v.verify(hs({ iat: now, exp: now + 12 * 3600 }), 'admin'))).toBe('ok');
    expect(await codeOf(v.verify(hs({ iat: now, exp: now + 12 * 3600 + 1 }), 'admin'))).toBe(AuthErrorCode.LifetimeTooLong);
    expect(await codeOf(verifier({ maxLifetimeSeconds: { admin: 60 } }).verify(hs({ iat: now, exp: now + 61 }), 'admin'))).toBe(
      AuthErrorCode.LifetimeTooLong,
    );
    expect(await codeOf(v.verify(hs({ iat: now + 60, exp: now + 120 }), 'admin'))).toBe(AuthErrorCode.NotYetValid);
  });

  it('refuses any crit header and never echoes header text in its messages', async () => {
    const v = verifier();
    const crit = jwt.sign(adminClaims, SECRET, {
      algorithm: 'HS256',
      subject: 'alice',
      ...base,
      expiresIn: 60,
      header: { alg: 'HS256', crit: ['exp'] },
    });
    expect(await codeOf(v.verify(crit, 'admin'))).toBe(AuthErrorCode.CriticalHeader);
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const hostile = `${b64({ alg: 'HS256\r\nX: evil-text', kid: '"evil-text' })}.${b64({ sub: 'a' })}.sig`;
    await expect(v.verify(hostile, 'admin')).rejects.toMatchObject({ code: AuthErrorCode.AlgorithmNotAllowed });
    await expect(v.verify(hostile, 'admin')).rejects.not.toMatchObject({ message: expect.stringContaining('evil-text') });
    // A segment that is not JSON is malformed, not an exception.
    await expect(
      v.verify(`${b64({ alg: 'HS256' })}.${Buffer.from('{"a":"\u0000\x01').toString('base64url')}.x`, 'admin'),
    ).rejects.toMatchObject({
      code: AuthErrorCode.Malformed,
    });
  });
});
