/**
 * Gets the next bundle, one attempt at a time: from the delta pushed with an announcement, or by
 * a conditional GET (If-None-Match, so a no-op costs a 304).
 * - A node that serves a bundle asks for a delta from it (`bundle-delta-base`); the delta is
 *   applied to a copy, the result must hash to the target's contentHash, and is then checked like
 *   a full bundle; a delta that does not apply is followed by one full fetch (ADR 0155).
 * - A pushed delta (ADR 0199) is applied with the same checks and signature verification; one it
 *   cannot use (another base, does not apply, refused) costs nothing but the fetch it would have
 *   made anyway.
 * - A 503/429's Retry-After is kept (bounded by the poll interval) for RefreshLoop's next retry.
 * Redirects are not followed (ADR 0194): a 3xx is a failed fetch like any other status.
 * - What it applies is written to disk and acked after a spread delay (ADR 0280).
 */
import { applyNodeBundleDelta, BUNDLE_DELTA_BASE_HEADER, NODE_BUNDLE_DELTA_TYPE, nodeBundleEtag } from '@cp/node-protocol';
import type { ControlPlaneAnswer } from './control-plane-http';
import type { BundleApplier } from './bundle-applier';
import { describeError, type NodeApi } from './node-api';
import type { FetchCounts, NodeSyncLogger, RefreshOutcome } from './node-sync-types';
import type { Registration } from './registration';

export interface BundleFetcherOptions {
  /** Ask for deltas and apply pushed ones (default true). */
  deltas?: boolean;
  /** The most a Retry-After may park the node (the poll interval). */
  maxRetryAfterMs: number;
}

export class BundleFetcher {
  readonly counts: FetchCounts = {
    full: 0,
    delta: 0,
    deltaRefused: 0,
    notModified: 0,
    throttled: 0,
    unanswered: 0,
    pushed: 0,
    pushUnused: 0,
  };
  lastFetchAt: Date | null = null;
  lastFetchError: string | null = null;
  /** Set by a 503/429 answer: the next retry waits this long. Read once by takeRetryAfter(). */
  private retryAfterMs?: number;

  constructor(
    private readonly api: NodeApi,
    private readonly applier: BundleApplier,
    private readonly registration: Registration,
    private readonly options: BundleFetcherOptions,
    private readonly log: NodeSyncLogger,
  ) {}

  /** The Retry-After of the last throttled answer, if any; cleared by reading it. */
  takeRetryAfter(): number | undefined {
    const ms = this.retryAfterMs;
    this.retryAfterMs = undefined;
    return ms;
  }

  /**
   * The pushed delta, when there is one and it leads from the served bundle: rebuilt, checked
   * and verified exactly as a fetched one. Undefined: not used, so the caller fetches; a refused
   * result is not reported, the fetch that follows gets the control plane's answer.
   */
  async applyPushed(text: string | undefined): Promise<RefreshOutcome | undefined> {
    const base = this.applier.current();
    if (text === undefined || !base || this.options.deltas === false) return undefined;
    const rebuilt = applyNodeBundleDelta(base.bundle, text);
    if (!rebuilt.ok) {
      this.counts.pushUnused++;
      this.log.debug?.(`not applying the pushed delta (${rebuilt.error}); fetching`);
      return undefined;
    }
    const outcome = await this.applier.take(rebuilt.bundle, 'control-plane', false, 'later');
    if (outcome === 'refused') {
      this.counts.pushUnused++;
      return undefined;
    }
    this.counts.pushed++;
    return outcome;
  }

  /** One conditional GET (a delta from the served bundle unless `full`), applied when it brings a bundle. */
  async fetch(full = false): Promise<RefreshOutcome> {
    const conditional: Record<string, string> = {};
    const etag = this.applier.etag;
    if (etag) conditional['if-none-match'] = etag;
    const base = this.applier.current();
    if (!full && base && this.options.deltas !== false)
      conditional[BUNDLE_DELTA_BASE_HEADER] = nodeBundleEtag(base.revision, base.servedHash);
    let response: ControlPlaneAnswer;
    try {
      response = await this.api.getBundle(conditional);
    } catch (error) {
      this.counts.unanswered++;
      return this.unreachable(`control plane unreachable: ${describeError(error)}`);
    }
    this.lastFetchAt = new Date();
    // The control plane answers again after being away: register now rather than at the next
    // heartbeat, so usage reports (which need a registered node) are not refused meanwhile.
    if (!this.registration.settled) void this.registration.register();
    if (response.status === 304) {
      this.counts.notModified++;
      this.lastFetchError = null;
      return 'not-modified';
    }
    const text = response.text;
    if (response.status === 503 || response.status === 429) {
      this.counts.throttled++;
      const seconds = Number(response.headers['retry-after']);
      // A bounded wait: a wrong or hostile header must not park the node past its poll interval.
      if (Number.isFinite(seconds) && seconds > 0) this.retryAfterMs = Math.min(seconds * 1000, this.options.maxRetryAfterMs);
    }
    if (response.status !== 200) return this.unreachable(`GET bundle answered ${response.status}: ${text.slice(0, 300)}`);
    this.lastFetchError = null;
    if (base && response.headers['content-type']?.startsWith(NODE_BUNDLE_DELTA_TYPE)) {
      const rebuilt = applyNodeBundleDelta(base.bundle, text);
      if (!rebuilt.ok) {
        this.counts.deltaRefused++;
        this.log.warn(`refused a delta from revision ${base.revision} (${rebuilt.error}); fetching the full bundle`);
        return this.fetch(true);
      }
      this.counts.delta++;
      return this.applier.take(rebuilt.bundle, 'control-plane', true, 'later');
    }
    this.counts.full++;
    return this.applier.take(text, 'control-plane', true, 'later');
  }

  private unreachable(message: string): RefreshOutcome {
    if (this.lastFetchError !== message) this.log.warn(`${message}; serving revision ${this.applier.current()?.revision ?? 'none'}`);
    this.lastFetchError = message;
    return 'unreachable';
  }
}
