/**
 * Verified a2a tokens, remembered so the same bearer token is not verified again on every request
 * (issue 30, ADR 0241). Keyed by the whole token string: a token that differs in any byte (another
 * signature, another claim) is a miss and is verified in full. Only successes are kept; a failure
 * is never remembered, so a token that failed once is verified again (and fails again) next time.
 * An entry is good until the token's own `exp` (no clock tolerance: stricter than the verifier)
 * and at most `maxAgeMs` after it was verified, so a key withdrawn from the JWKS stops a
 * remembered token within that bound. Expiry is checked at use. Bounded by `maxEntries` (the
 * oldest entry goes first), so a caller minting distinct tokens cannot grow it.
 */
import type { A2APrincipal } from '@cp/auth';

export interface VerifiedTokensOptions {
  maxEntries: number;
  maxAgeMs: number;
  now?: () => number;
}

export const DEFAULT_VERIFIED_TOKENS: VerifiedTokensOptions = { maxEntries: 4096, maxAgeMs: 60_000 };

interface Entry {
  principal: A2APrincipal;
  /** ms: min(exp, verified + maxAgeMs). */
  until: number;
}

export class VerifiedTokens {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;

  constructor(private readonly options: VerifiedTokensOptions = DEFAULT_VERIFIED_TOKENS) {
    this.now = options.now ?? Date.now;
  }

  /** The principal of a token verified before and not past its expiry or the cache's bound. */
  get(token: string): A2APrincipal | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (this.now() >= entry.until) {
      this.entries.delete(token);
      return undefined;
    }
    return entry.principal;
  }

  /** Remembers a token that was just verified in full (`principal.expiresAt`: its exp, seconds). */
  remember(token: string, principal: A2APrincipal): void {
    if (this.options.maxEntries <= 0) return;
    const until = Math.min(principal.expiresAt * 1000, this.now() + this.options.maxAgeMs);
    if (!(until > this.now())) return;
    this.entries.delete(token);
    if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(token, { principal, until });
  }

  get size(): number {
    return this.entries.size;
  }
}
