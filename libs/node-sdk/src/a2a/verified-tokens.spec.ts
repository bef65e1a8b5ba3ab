import { a2aVerifier, mintA2AToken, VerifiedTokens, type A2APrincipal } from '@cp/auth';
import { loadConfig } from '@cp/common';
import { A2AAuthenticator } from './a2a-authenticator';

const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A verifier that counts full verifications. */
function counting() {
  const verifier = a2aVerifier(config);
  let verifications = 0;
  const principalFrom = verifier.principalFrom.bind(verifier);
  verifier.principalFrom = ((claims: Record<string, unknown>, use: 'a2a') => {
    verifications++;
    return principalFrom(claims, use);
  }) as typeof verifier.principalFrom;
  return { verifier, count: () => verifications };
}

describe('verified a2a tokens are remembered, never past their expiry, never when they failed (ADR 0241)', () => {
  it('verifies the same token once, and a token differing in any byte again', async () => {
    const { verifier, count } = counting();
    const auth = new A2AAuthenticator(verifier);
    const token = mintA2AToken(config, 'p@acme', 'acme-partner', ['recon.run']);
    for (let i = 0; i < 5; i++)
      expect((await auth.authenticate(bearer(token))).caller).toMatchObject({ principal: 'p@acme', tenant: 'acme-partner' });
    expect(count()).toBe(1);
    // The same claims with a tampered signature: a miss, verified in full, refused.
    const tampered = token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA');
    await expect(auth.authenticate(bearer(tampered))).rejects.toMatchObject({ kind: 'Unauthenticated' });
  });

  it('never remembers a failure: a bad token fails every time, and the cache stays empty', async () => {
    const verified = new VerifiedTokens<A2APrincipal>();
    const auth = new A2AAuthenticator(a2aVerifier(config), verified);
    const wrongAudience = mintA2AToken(config, 'p@acme', 'acme-partner', [], 3600, 'another-agent');
    for (let i = 0; i < 3; i++) await expect(auth.authenticate(bearer(wrongAudience))).rejects.toMatchObject({ kind: 'Unauthenticated' });
    expect(verified.size).toBe(0);
  });

  it('refuses a remembered token once its exp has passed (checked at use, no clock tolerance)', async () => {
    let now = Date.now();
    const verified = new VerifiedTokens<A2APrincipal>({ maxEntries: 10, maxAgeMs: 3_600_000, now: () => now });
    const auth = new A2AAuthenticator(a2aVerifier(config), verified);
    const token = mintA2AToken(config, 'p@acme', 'acme-partner', [], 60);
    await auth.authenticate(bearer(token));
    expect(verified.size).toBe(1);
    now += 61_000;
    // The cache no longer answers; the full verification (the real clock, its tolerance) decides.
    expect(verified.get(token)).toBeUndefined();
    expect(verified.size).toBe(0);
  });

  it('keeps an entry at most maxAgeMs, and at most maxEntries entries (oldest first)', () => {
    let now = 1_000_000;
    const verified = new VerifiedTokens<A2APrincipal>({ maxEntries: 2, maxAgeMs: 1000, now: () => now });
    const p = { kind: 'a2a' as const, subject: 's', tenant: 't', scopes: [], expiresAt: now / 1000 + 3600 };
    verified.remember('a', p, p.expiresAt);
    verified.remember('b', p, p.expiresAt);
    verified.remember('c', p, p.expiresAt);
    expect([verified.get('a'), verified.size]).toEqual([undefined, 2]);
    expect(verified.get('c')).toBe(p);
    now += 1000;
    expect(verified.get('c')).toBeUndefined();
    // An already expired token is never remembered.
    verified.remember('d', p, now / 1000 - 1);
    expect(verified.get('d')).toBeUndefined();
  });
});
