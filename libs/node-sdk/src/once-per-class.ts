/**
 * What a node asks the control plane for at most once per entitlement class of one bundle: the
 * signatures of a card computed past the bundle's class limit (ADR 0132), a class's AI Catalog
 * signature (ADR 0315). One machinery for both: the first request of a class starts the asking
 * (concurrent requests share it) and waits at most `waitMs`, then goes on with the unsigned
 * value while the asking completes for the next ones; after a failure, requests go on unsigned
 * for `retryAfterMs` before the class is asked for again.
 */
export interface OncePerClassOptions {
  waitMs?: number;
  retryAfterMs?: number;
  onFailure?(classKey: string, reason: string): void;
}

/** Signed values kept per bundle (the oldest dropped first). */
const KEPT = 4096;

export class OncePerClass<T> {
  private readonly done = new Map<string, T>();
  private readonly pending = new Map<string, Promise<T | null>>();
  private readonly failedAt = new Map<string, number>();
  /** Classes signed so far, askings started, and requests that went on unsigned. */
  readonly stats = { signed: 0, requested: 0, unsignedServed: 0 };

  constructor(private readonly options: OncePerClassOptions) {}

  /** The signed value of this class, when it arrived. */
  get(classKey: string): T | undefined {
    return this.done.get(classKey);
  }

  /**
   * The signed value of the class: kept, or asked for with `obtain` (which throws naming what went
   * wrong), awaited at most `waitMs`; `unsigned` without it.
   */
  serve(classKey: string, obtain: () => Promise<T>, unsigned: T): T | Promise<T> {
    const ready = this.done.get(classKey);
    if (ready !== undefined) return ready;
    const failed = this.failedAt.get(classKey);
    if (failed !== undefined && Date.now() - failed < (this.options.retryAfterMs ?? 5000)) {
      this.stats.unsignedServed++;
      return unsigned;
    }
    let pending = this.pending.get(classKey);
    if (!pending) {
      pending = this.ask(classKey, obtain).finally(() => this.pending.delete(classKey));
      this.pending.set(classKey, pending);
    }
    return new Promise<T>((resolve) => {
      let answered = false;
      const answer = (value: T | null) => {
        if (answered) return;
        answered = true;
        if (value === null) this.stats.unsignedServed++;
        resolve(value ?? unsigned);
      };
      // The request goes on unsigned after waitMs; the asking in flight still completes for the next ones.
      const timer = setTimeout(() => answer(null), this.options.waitMs ?? 1000);
      timer.unref();
      void pending.then((value) => {
        clearTimeout(timer);
        answer(value);
      });
    });
  }

  private async ask(classKey: string, obtain: () => Promise<T>): Promise<T | null> {
    this.stats.requested++;
    let value: T;
    try {
      value = await obtain();
    } catch (error) {
      this.failedAt.set(classKey, Date.now());
      this.options.onFailure?.(classKey, (error as Error).message);
      return null;
    }
    this.failedAt.delete(classKey);
    if (this.done.size >= KEPT) this.done.delete(this.done.keys().next().value!);
    this.done.set(classKey, value);
    this.stats.signed++;
    return value;
  }
}
