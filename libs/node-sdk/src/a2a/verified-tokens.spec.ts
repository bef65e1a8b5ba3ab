import { a2aVerifier, mintA2AToken, VerifiedTokens, type A2APrincipal } from '@cp/auth';
import { loadConfig } from '@cp/common';
import { financeAgentExample, ProjectionCache } from '@cp/capabilities';
import { given } from '@cp/capabilities/testing';
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

describe("a token's caller and what is derived from it, remembered with the token (ADR 0375)", () => {
  const f = financeAgentExample();
  const snapshot = (revision: number, reconScopes: string[]) =>
    given.snapshot(
      f.manifests.map((m) => (m.id === 'reconcile-invoice' ? { ...m, requiresScopes: reconScopes } : m)),
      { revision },
    );

  it('gives every request of a remembered token the same frozen caller, whose class is computed once per snapshot', async () => {
    const auth = new A2AAuthenticator(a2aVerifier(config));
    const token = mintA2AToken(config, 'p@acme', 'acme-partner', ['recon.run']);
    const first = (await auth.authenticate(bearer(token))).caller!;
    const again = (await auth.authenticate(bearer(token))).caller!;
    expect(again).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.scopes)).toBe(true);
    expect(() => (first.scopes as string[]).push('recon.admin')).toThrow(TypeError);
    const cache = new ProjectionCache(snapshot(1, ['recon.run']));
    const key = cache.classKey(first);
    for (let i = 0; i < 5; i++) expect(cache.classKey((await auth.authenticate(bearer(token))).caller)).toBe(key);
    expect(cache.stats.classKeys).toBe(1);
    expect(key).toBe(
      new ProjectionCache(snapshot(1, ['recon.run'])).classKey({ principal: 'p@acme', tenant: 'acme-partner', scopes: ['recon.run'] }),
    );
  });

  it('never lets another token hit: same claims, another caller; other scopes, another class', async () => {
    const auth = new A2AAuthenticator(a2aVerifier(config));
    const a = mintA2AToken(config, 'p@acme', 'acme-partner', ['recon.run']);
    const b = mintA2AToken(config, 'p@acme', 'acme-partner', ['recon.run'], 3599);
    const none = mintA2AToken(config, 'p@acme', 'acme-partner', []);
    const [ca, cb, cn] = await Promise.all([a, b, none].map(async (t) => (await auth.authenticate(bearer(t))).caller));
    expect(a).not.toBe(b);
    expect(cb).not.toBe(ca);
    const cache = new ProjectionCache(snapshot(1, ['recon.run']));
    expect(cache.classKey(cn)).not.toBe(cache.classKey(ca));
    expect(cache.routerIndex(cn).entries.map((e) => e.id)).toEqual(['invoice-lookup']);
    expect(cache.routerIndex(ca).entries.map((e) => e.id)).toEqual(['invoice-lookup', 'reconcile-invoice']);
  });

  it('forgets the caller when the token leaves the bounded cache or expires: a new caller, its class computed again', async () => {
    let now = Date.now();
    const verified = new VerifiedTokens<A2APrincipal>({ maxEntries: 1, maxAgeMs: 3_600_000, now: () => now });
    const auth = new A2AAuthenticator(a2aVerifier(config), verified);
    const a = mintA2AToken(config, 'p@acme', 'acme-partner', ['recon.run'], 120);
    const b = mintA2AToken(config, 'q@acme', 'acme-partner', ['recon.run']);
    const cache = new ProjectionCache(snapshot(1, ['recon.run']));
    const first = (await auth.authenticate(bearer(a))).caller;
    cache.classKey(first);
    await auth.authenticate(bearer(b)); // a is turned out (maxEntries 1)
    expect(verified.size).toBe(1);
    const second = (await auth.authenticate(bearer(a))).caller;
    expect(second).not.toBe(first);
    cache.classKey(second);
    expect(cache.stats.classKeys).toBe(2);
    // Past its exp the cache no longer answers for it: the full verification decides (here: the real clock).
    now += 121_000;
    expect(verified.get(a)).toBeUndefined();
    const third = (await auth.authenticate(bearer(a))).caller;
    expect(third).not.toBe(second);
  });

  it('computes the class again under a new bundle revision (a new snapshot is a new cache)', async () => {
    const auth = new A2AAuthenticator(a2aVerifier(config));
    const caller = (await auth.authenticate(bearer(mintA2AToken(config, 'p@acme', 'acme-partner', ['recon.run'])))).caller;
    const before = new ProjectionCache(snapshot(1, ['recon.run']));
    // Revision 2 asks for a scope the caller lacks: the same caller object is in another class.
    const after = new ProjectionCache(snapshot(2, ['recon.run', 'recon.admin']));
    expect(before.routerIndex(caller).entries.map((e) => e.id)).toEqual(['invoice-lookup', 'reconcile-invoice']);
    expect(after.routerIndex(caller).entries.map((e) => e.id)).toEqual(['invoice-lookup']);
    expect(after.classKey(caller)).not.toBe(before.classKey(caller));
  });

  it('never remembers the class of a caller that could change (not frozen)', () => {
    const cache = new ProjectionCache(snapshot(1, ['recon.run']));
    const caller = { principal: 'p@acme', tenant: 'acme-partner', scopes: [] as string[] };
    const without = cache.classKey(caller);
    caller.scopes.push('recon.run');
    expect(cache.classKey(caller)).not.toBe(without);
    expect(cache.stats.classKeys).toBe(2);
  });
});
