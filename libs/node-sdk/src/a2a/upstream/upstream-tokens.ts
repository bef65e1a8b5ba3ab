/**
 * Upstream tokens reused within their lifetime (ADR 0271): one token exchange per caller token,
 * capability and upstream (audience, scopes), not one per request. The key holds a SHA-256 of the
 * caller's token, never the token; an entry is used only while more than a margin of its lifetime
 * is left (10 % of it, at least 5 s), so the upstream never receives a token about to expire; the
 * map is bounded (the oldest entry goes first). The caller's token is verified by the node on every
 * request before any handler runs, so a reused upstream token never outlives the caller's right to
 * call: its lifetime is already ≤ the caller token's (ADR 0231).
 */
import { hash } from 'node:crypto';
import { upstreamAudience, upstreamScopes, type PolicyEntry } from '@cp/capabilities';

/** What a token exchange answers: the token, and when it expires (epoch ms) when the exchanger knows. */
export type ExchangedUpstreamToken = string | { accessToken: string; expiresAt: number };

const MIN_MARGIN_MS = 5_000;

/** `exp` of a JWT, in epoch ms (read, not verified: only to know how long to keep it). */
function expiryOf(token: string): number | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const exp = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }).exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The part of a cache key a capability decides (its id, the upstream's audience and scopes), kept
 * per policy entry while that entry names the same upstream spec and scopes (a new bundle's entries
 * are new objects): the audience parses the upstream's URL.
 */
const policyKeys = new WeakMap<PolicyEntry, { spec: unknown; scopes: readonly string[]; id: string; key: string }>();
function policyKey(policy: PolicyEntry): string {
  const spec = policy.upstream!;
  const known = policyKeys.get(policy);
  if (known && known.spec === spec && known.scopes === policy.requiresScopes && known.id === policy.capabilityId) return known.key;
  const key = [policy.capabilityId, upstreamAudience(spec), upstreamScopes(spec, policy.requiresScopes).join(' ')].join('\n');
  policyKeys.set(policy, { spec, scopes: policy.requiresScopes, id: policy.capabilityId, key });
  return key;
}

export class UpstreamTokenCache {
  private readonly entries = new Map<string, { token: string; issuedAt: number; expiresAt: number }>();
  /** Exchanges under way, so concurrent first requests of one caller share one exchange. */
  private readonly pending = new Map<string, Promise<string>>();

  constructor(
    private readonly exchange: (callerToken: string, capabilityId: string) => Promise<ExchangedUpstreamToken>,
    private readonly max = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The kept token for this caller and capability while it is fresh, else undefined (no exchange
   * is started: get() does that). Lets a call with a kept token go on without waiting for a promise.
   */
  peek(policy: PolicyEntry, callerToken: string): string | undefined {
    return this.fresh(this.keyOf(policy, callerToken));
  }

  async get(policy: PolicyEntry, callerToken: string): Promise<string> {
    const key = this.keyOf(policy, callerToken);
    const kept = this.fresh(key);
    if (kept !== undefined) return kept;
    const running = this.pending.get(key);
    if (running) return running;
    const fresh = this.fetch(key, policy.capabilityId, callerToken).finally(() => this.pending.delete(key));
    this.pending.set(key, fresh);
    return fresh;
  }

  /** A one-shot SHA-256 of the caller's token (never the token itself) and the capability's part. */
  private keyOf(policy: PolicyEntry, callerToken: string): string {
    return `${hash('sha256', callerToken, 'base64url')}\n${policyKey(policy)}`;
  }

  /** The entry's token while more than its margin is left; an entry past it is dropped. */
  private fresh(key: string): string | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.expiresAt - this.now() > Math.max(MIN_MARGIN_MS, (hit.expiresAt - hit.issuedAt) / 10)) return hit.token;
    this.entries.delete(key);
    return undefined;
  }

  private async fetch(key: string, capabilityId: string, callerToken: string): Promise<string> {
    const issuedAt = this.now();
    const answer = await this.exchange(callerToken, capabilityId);
    const token = typeof answer === 'string' ? answer : answer.accessToken;
    const expiresAt = typeof answer === 'string' ? expiryOf(answer) : answer.expiresAt;
    // A token whose lifetime is unknown is used once, never kept.
    if (expiresAt !== undefined && expiresAt - issuedAt > MIN_MARGIN_MS) {
      this.entries.set(key, { token, issuedAt, expiresAt });
      if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
    }
    return token;
  }

  get size(): number {
    return this.entries.size;
  }
}
