import type { PolicyEntry } from '@cp/capabilities';
import { UpstreamTokenCache } from './upstream-tokens';

const policy = (over: Partial<PolicyEntry> = {}): PolicyEntry => ({
  capabilityId: 'reconcile-invoice',
  handler: 'recon.v3.reconcile',
  state: 'ga',
  visibility: 'extended',
  requiresScopes: ['recon.run'],
  tenants: '*',
  limits: {},
  upstream: { url: 'https://recon.example.com/a2a', binding: 'jsonrpc', version: '1.0' },
  ...over,
});
const jwtWithExp = (expSeconds: number) => `h.${Buffer.from(JSON.stringify({ exp: expSeconds, sub: 'x' })).toString('base64url')}.s`;

describe('upstream tokens reused within their lifetime', () => {
  let now = 1_000_000_000_000;
  let calls: string[];
  const cache = (answer: (n: number) => unknown) =>
    new UpstreamTokenCache(
      async (caller, capability) => {
        calls.push(`${caller}|${capability}`);
        return answer(calls.length) as string | { accessToken: string; expiresAt: number };
      },
      3,
      () => now,
    );
  beforeEach(() => {
    now = 1_000_000_000_000;
    calls = [];
  });

  it('exchanges once per caller token and capability while the token has life left, then again near its end', async () => {
    const c = cache((n) => ({ accessToken: `up-${n}`, expiresAt: now + 300_000 }));
    expect(await c.get(policy(), 'caller-A')).toBe('up-1');
    expect(await c.get(policy(), 'caller-A')).toBe('up-1');
    expect(calls).toHaveLength(1);
    expect(await c.get(policy(), 'caller-B')).toBe('up-2');
    expect(await c.get(policy({ capabilityId: 'other' }), 'caller-A')).toBe('up-3');
    // Another audience (the manifest moved its upstream) is another token.
    expect(
      await c.get(policy({ upstream: { url: 'https://elsewhere.example.com', binding: 'jsonrpc', version: '1.0' } }), 'caller-A'),
    ).toBe('up-4');
    now += 280_000; // 20 s left of 300 s: inside the 30 s margin
    expect(await c.get(policy(), 'caller-B')).toBe('up-5');
  });

  it('reads the lifetime from a JWT exp; keeps nothing whose lifetime is unknown or too short', async () => {
    const c = cache((n) => (n === 1 ? jwtWithExp(now / 1000 + 600) : n === 2 ? 'opaque' : jwtWithExp(now / 1000 + 2)));
    const first = await c.get(policy(), 'A');
    expect(await c.get(policy(), 'A')).toBe(first);
    expect(await c.get(policy(), 'B')).toBe('opaque');
    await c.get(policy(), 'B');
    expect(calls.filter((k) => k.startsWith('B'))).toHaveLength(2);
    await c.get(policy(), 'C');
    await c.get(policy(), 'C');
    expect(calls.filter((k) => k.startsWith('C'))).toHaveLength(2);
  });

  it('shares one exchange between concurrent first requests, is bounded, and keys on a hash of the caller token', async () => {
    const c = cache((n) => ({ accessToken: `up-${n}`, expiresAt: now + 300_000 }));
    const tokens = await Promise.all(Array.from({ length: 10 }, () => c.get(policy(), 'caller-secret-token')));
    expect(new Set(tokens)).toEqual(new Set(['up-1']));
    expect(calls).toHaveLength(1);
    for (const t of ['a', 'b', 'c', 'd']) await c.get(policy(), t);
    expect(c.size).toBe(3);
    const keys = [...(c as unknown as { entries: Map<string, unknown> }).entries.keys()].join();
    expect(keys).not.toContain('caller-secret-token');
  });

  it('a policy entry that names another upstream or other scopes gets its own token, never the one kept for the first', async () => {
    const c = cache((n) => ({ accessToken: `up-${n}`, expiresAt: now + 300_000 }));
    const entry = policy();
    expect(await c.get(entry, 'caller-A')).toBe('up-1');
    entry.upstream = { url: 'https://elsewhere.example.com/a2a', binding: 'jsonrpc', version: '1.0' };
    expect(await c.get(entry, 'caller-A')).toBe('up-2');
    entry.requiresScopes = ['recon.admin'];
    expect(await c.get(entry, 'caller-A')).toBe('up-3');
    expect(await c.get(entry, 'caller-A')).toBe('up-3');
    expect(calls).toHaveLength(3);
  });

  it('peek answers a kept token while it is fresh, never starts an exchange, and drops a token inside its margin', async () => {
    const c = cache((n) => ({ accessToken: `up-${n}`, expiresAt: now + 300_000 }));
    expect(c.peek(policy(), 'caller-A')).toBeUndefined();
    expect(calls).toHaveLength(0);
    expect(await c.get(policy(), 'caller-A')).toBe('up-1');
    expect(c.peek(policy(), 'caller-A')).toBe('up-1');
    // Another caller, another capability: nothing kept for them.
    expect(c.peek(policy(), 'caller-B')).toBeUndefined();
    expect(c.peek(policy({ capabilityId: 'other' }), 'caller-A')).toBeUndefined();
    now += 280_000; // inside the 30 s margin: not handed out, and dropped
    expect(c.peek(policy(), 'caller-A')).toBeUndefined();
    expect(c.size).toBe(0);
    expect(calls).toHaveLength(1);
    expect(await c.get(policy(), 'caller-A')).toBe('up-2');
  });

  it('a failed exchange is not kept: the next request asks again', async () => {
    let fail = true;
    const c = new UpstreamTokenCache(async () => {
      calls.push('x');
      if (fail) throw new Error('exchange down');
      return { accessToken: 'ok', expiresAt: now + 300_000 };
    });
    await expect(c.get(policy(), 'A')).rejects.toThrow('exchange down');
    fail = false;
    expect(await c.get(policy(), 'A')).toBe('ok');
    expect(calls).toHaveLength(2);
  });
});
