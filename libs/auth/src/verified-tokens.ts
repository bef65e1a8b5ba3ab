/**
 * Verified bearer tokens, remembered so the same token is not verified again on every request
 * (ADR 0241 for a2a tokens on the node, ADR 0342 for admin tokens on the control plane). Keyed by
 * the whole token string: a token that differs in any byte (another signature, another claim) is a
 * miss and is verified in full. Only successes are remembered (`remember` is called after a full
 * verification), so a token that failed is verified again, and fails again, every time. An entry is
 * good until the token's own `exp` (no clock tolerance: stricter than the verifier) and at most
 * `maxAgeMs` after it was verified, so a key withdrawn from the key set stops a remembered token
 * within that bound. Expiry is checked at use. Bounded by `maxEntries` (the oldest entry goes
 * first), so a caller minting distinct tokens cannot grow it.
 */
export interface VerifiedTokensOptions {
  maxEntries: number;
  maxAgeMs: number;
  now?: () => number;
}

export const DEFAULT_VERIFIED_TOKENS: VerifiedTokensOptions = { maxEntries: 4096, maxAgeMs: 60_000 };

interface Entry<P> {
  principal: P;
  /** ms: min(exp, verified + maxAgeMs). */
  until: number;
}

export class VerifiedTokens<P> {
  private readonly entries = new Map<string, Entry<P>>();
  private readonly now: () => number;

  constructor(private readonly options: VerifiedTokensOptions = DEFAULT_VERIFIED_TOKENS) {
    this.now = options.now ?? Date.now;
  }

  /** The principal of a token verified before and not past its expiry or the cache's bound. */
  get(token: string): P | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (this.now() >= entry.until) {
      this.entries.delete(token);
      return undefined;
    }
    return entry.principal;
  }

  /** Remembers a token that was just verified in full; `expiresAt` is its `exp` (epoch seconds). */
  remember(token: string, principal: P, expiresAt: number): void {
    if (this.options.maxEntries <= 0 || !Number.isFinite(expiresAt)) return;
    const until = Math.min(expiresAt * 1000, this.now() + this.options.maxAgeMs);
    if (!(until > this.now())) return;
    this.entries.delete(token);
    if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(token, { principal, until });
  }

  get size(): number {
    return this.entries.size;
  }
}
