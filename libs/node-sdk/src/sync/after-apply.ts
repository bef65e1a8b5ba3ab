/**
 * What follows a swap, off the propagation path (ADR 0280): the bundle's disk copy and the ack.
 * Neither is needed to serve the new revision; both cost CPU, a file sync on libuv's thread pool
 * (which the signature verification of WebCrypto also runs on) and, for the ack, a request on the
 * control plane, at the moment the whole fleet is applying the same change.
 *
 * So they are done after a random delay up to `spreadMs`, and coalesced: while one is pending, a
 * newer apply replaces it (the latest disk copy and the latest ack win, as a node's undelivered acks
 * always did: an older one says nothing the control plane still needs). A refusal does not replace
 * a pending apply's ack: the control plane learns the revision the node serves only from that ack,
 * so both go, the apply first. A fleet's
 * acks reach the control plane spread over that window, and a burst of changes costs one disk write
 * and one ack per node instead of one per change. `flush()` does the pending work at once (offer(),
 * which promises the disk copy before it resolves, and stop()).
 */
import type { AckBody } from '@cp/node-protocol';
import type { BundleDiskCache } from './bundle-disk-cache';

export interface AfterApplyWork {
  /** The text to keep on disk (computed only if this one is still the latest when written). */
  diskText?: () => string;
  ack: AckBody;
}

/** What is waiting: the latest disk copy, the latest apply's ack and a refusal that came after it. */
interface Pending {
  diskText?: () => string;
  applied?: AckBody;
  refused?: AckBody;
}

export class AfterApply {
  private pending?: Pending;
  private timer?: NodeJS.Timeout;
  private chain: Promise<void> = Promise.resolve();
  /** Disk writes and acks done (tests and metrics). */
  readonly stats = { writes: 0, acks: 0 };

  constructor(
    private readonly spreadMs: number,
    private readonly disk: BundleDiskCache,
    private readonly ack: (body: AckBody) => Promise<void>,
  ) {}

  /** Schedules `work` within the spread, replacing what is pending (its disk copy only if `work` has one). */
  later(work: AfterApplyWork): void {
    this.merge(work);
    if (this.spreadMs <= 0) {
      void this.flush();
      return;
    }
    if (this.timer) return; // the pending timer does the latest work
    this.timer = setTimeout(() => void this.flush(), Math.random() * this.spreadMs);
    this.timer.unref();
  }

  /** Does `work` (and whatever was pending) now; resolves once written and acked. */
  now(work: AfterApplyWork): Promise<void> {
    this.merge(work);
    return this.flush();
  }

  /** Does the pending work now, after any running one. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.chain = this.chain.then(() => this.run()).catch(() => undefined);
    return this.chain;
  }

  private merge(work: AfterApplyWork): void {
    const diskText = work.diskText ?? this.pending?.diskText;
    this.pending = 'error' in work.ack ? { diskText, applied: this.pending?.applied, refused: work.ack } : { diskText, applied: work.ack }; // a newer apply supersedes an earlier refusal
  }

  private async run(): Promise<void> {
    const work = this.pending;
    this.pending = undefined;
    if (!work) return;
    if (work.diskText) {
      await this.disk.write(work.diskText());
      this.stats.writes++;
    }
    for (const ack of [work.applied, work.refused]) {
      if (!ack) continue;
      await this.ack(ack);
      this.stats.acks++;
    }
  }
}
