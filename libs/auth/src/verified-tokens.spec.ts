import { VerifiedTokens } from './verified-tokens';

describe('VerifiedTokens: remembered until exp and at most maxAgeMs, bounded (ADR 0241, 0342)', () => {
  let now = 1_000_000;
  const clock = () => now;
  const principal = { subject: 'alice' };

  it('answers a remembered token until its exp, then forgets it', () => {
    const tokens = new VerifiedTokens<typeof principal>({ maxEntries: 10, maxAgeMs: 60_000, now: clock });
    tokens.remember('t', principal, now / 1000 + 5);
    expect(tokens.get('t')).toBe(principal);
    expect(tokens.get('t ')).toBeUndefined();
    now += 4_999;
    expect(tokens.get('t')).toBe(principal);
    now += 1;
    expect(tokens.get('t')).toBeUndefined();
    expect(tokens.size).toBe(0);
  });

  it('forgets a long-lived token maxAgeMs after its verification (a withdrawn key stops it within that bound)', () => {
    const tokens = new VerifiedTokens<typeof principal>({ maxEntries: 10, maxAgeMs: 60_000, now: clock });
    tokens.remember('t', principal, now / 1000 + 3600);
    now += 59_999;
    expect(tokens.get('t')).toBe(principal);
    now += 1;
    expect(tokens.get('t')).toBeUndefined();
  });

  it('does not remember a token already expired, or without a finite exp', () => {
    const tokens = new VerifiedTokens<typeof principal>({ maxEntries: 10, maxAgeMs: 60_000, now: clock });
    tokens.remember('past', principal, now / 1000 - 1);
    tokens.remember('now', principal, now / 1000);
    tokens.remember('nan', principal, Number.NaN);
    tokens.remember('inf', principal, Number.POSITIVE_INFINITY);
    expect(tokens.size).toBe(0);
  });

  it('holds at most maxEntries, dropping the oldest first', () => {
    const tokens = new VerifiedTokens<typeof principal>({ maxEntries: 3, maxAgeMs: 60_000, now: clock });
    for (let i = 0; i < 1000; i++) tokens.remember(`t${i}`, principal, now / 1000 + 60);
    expect(tokens.size).toBe(3);
    expect(tokens.get('t996')).toBeUndefined();
    expect(tokens.get('t999')).toBe(principal);
    expect(new VerifiedTokens({ maxEntries: 0, maxAgeMs: 60_000 }).size).toBe(0);
  });
});
