/**
 * When the node fetches: coalesced runs, and retries after a failure (ADR 0156).
 * - Concurrent refreshes coalesce: while one runs, later calls make exactly one more run after
 *   it, so an invalidation that arrives mid-fetch is never lost.
 * - After a failed run the next comes sooner than the poll: exponential (250 ms doubling up to
 *   the poll interval) with full jitter, or after the Retry-After of a 503/429 (plus up to as much
 *   again at random), so a fleet converges quickly once the control plane is back without all of
 *   it retrying at the same instants.
 */
import type { BundleFetcher } from './bundle-fetcher';
import type { RefreshOutcome } from './node-sync-types';

export class RefreshLoop {
  private inFlight?: Promise<RefreshOutcome>;
  private again = false;
  /** The delta that came with the latest announcement, not tried yet (ADR 0199). */
  private pushedDelta?: string;
  private retryTimer?: NodeJS.Timeout;
  private retryDelayMs = 0;

  constructor(
    private readonly fetcher: BundleFetcher,
    private readonly options: {
      pollIntervalMs: number;
      running: () => boolean;
      /** Told every outcome (metrics). */
      fetched: (outcome: RefreshOutcome) => void;
    },
  ) {}

  /**
   * One run now, or one more after the one running. `pushed`: the delta an announcement carried;
   * the run tries it before fetching. Only the latest announcement's is kept: one without a delta
   * means the next run fetches.
   */
  refresh(pushed?: string): Promise<RefreshOutcome> {
    if (!this.options.running()) return Promise.resolve('stopped');
    this.pushedDelta = pushed;
    if (this.inFlight) {
      this.again = true;
      return this.inFlight;
    }
    const run = async (): Promise<RefreshOutcome> => {
      let outcome: RefreshOutcome;
      try {
        do {
          this.again = false;
          const delta = this.pushedDelta;
          this.pushedDelta = undefined;
          outcome = (await this.fetcher.applyPushed(delta)) ?? (await this.fetcher.fetch());
          this.options.fetched(outcome);
        } while (this.again && this.options.running());
      } finally {
        this.inFlight = undefined;
      }
      return outcome;
    };
    this.inFlight = run().then((outcome) => {
      this.scheduleRetry(outcome);
      return outcome;
    });
    return this.inFlight;
  }

  /** Cancels a pending retry and waits for the run in flight (stop). */
  async stop(): Promise<void> {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    await this.inFlight?.catch(() => undefined);
  }

  private scheduleRetry(outcome: RefreshOutcome): void {
    if (outcome !== 'unreachable' || !this.options.running()) {
      this.retryDelayMs = 0;
      this.fetcher.takeRetryAfter();
      return;
    }
    if (this.retryTimer) return;
    const retryAfterMs = this.fetcher.takeRetryAfter();
    const poll = this.options.pollIntervalMs;
    this.retryDelayMs = Math.min(poll, this.retryDelayMs === 0 ? 250 : this.retryDelayMs * 2);
    const delay = retryAfterMs !== undefined ? retryAfterMs * (1 + Math.random()) : this.retryDelayMs * (0.5 + Math.random() / 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.refresh();
    }, delay);
    this.retryTimer.unref();
  }
}
