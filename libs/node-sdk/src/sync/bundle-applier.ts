/**
 * The one place a bundle becomes the served one. It is checked (checkNodeBundle: same agent,
 * revision not older) and its signatures verified against the pinned JWKS (verifyNodeBundle, ADR
 * 0130) before it is applied, from the control plane, a pushed delta and disk alike; then swapped
 * whole (one reference: a request that read it sees one revision from start to end), kept on
 * disk, and acked. A refused bundle leaves the old one in place and is acked with the reason.
 */
import { checkNodeBundle, sealNodeBundle, type NodeBundle } from '@cp/capabilities';
import { nodeBundleEtag, verifyNodeBundle, type VerificationKeys } from '@cp/node-protocol';
import { ActiveBundle, type LazyCardSigning } from '../active-bundle';
import { AfterApply, type AfterApplyWork } from './after-apply';
import type { BundleDiskCache } from './bundle-disk-cache';
import type { AppliedListener, BundleSource, NodeSyncLogger, RefreshOutcome } from './node-sync-types';
import type { Registration } from './registration';

export interface BundleApplierOptions {
  agentId: string;
  keys: VerificationKeys;
  /** How many classes checkNodeBundle recomputes. */
  classSample?: number;
  /** Given to every ActiveBundle (the lazy card-signature path, ADR 0132). */
  cardSigning?: LazyCardSigning;
  /** The disk copy and the ack of a fetched or pushed bundle come within a random delay up to this (ADR 0280; 0: at once). */
  ackSpreadMs?: number;
}

/** When a take()'s disk copy and ack are done: before it resolves, or spread after it (ADR 0280). */
export type Settle = 'now' | 'later';

export class BundleApplier {
  private active?: ActiveBundle;
  private source: BundleSource | null = null;
  /** The served bundle's ETag (revision and content hash), for If-None-Match. */
  private servedEtag?: string;
  private lastRefusal: string | null = null;
  private unservable: string[] = [];
  private readonly listeners = new Set<AppliedListener>();
  /** The disk copy and the ack, after the swap (ADR 0280). */
  readonly after: AfterApply;

  constructor(
    private readonly options: BundleApplierOptions,
    private readonly disk: BundleDiskCache,
    private readonly registration: Registration,
    private readonly log: NodeSyncLogger,
  ) {
    this.after = new AfterApply(options.ackSpreadMs ?? DEFAULT_ACK_SPREAD_MS, disk, (body) => registration.ack(body));
  }

  current(): ActiveBundle | undefined {
    return this.active;
  }

  get etag(): string | undefined {
    return this.servedEtag;
  }

  status(): { source: BundleSource | null; lastRefusal: string | null; unservable: string[] } {
    return { source: this.source, lastRefusal: this.lastRefusal, unservable: [...this.unservable] };
  }

  /** Recomputes what the served bundle cannot be served for (after an upstream probe changed its outcome). */
  recheckServable(): string[] {
    if (this.active) this.unservable = this.registration.unservableOf(this.active);
    return [...this.unservable];
  }

  onApplied(listener: AppliedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The bundle on disk, if any and good (at start, before the control plane is asked). */
  async loadFromDisk(): Promise<void> {
    const text = await this.disk.read();
    if (text !== undefined) await this.take(text, 'disk', true);
  }

  /**
   * Checks, verifies and applies `value` (JSON text or an object, deep-frozen first by
   * sealNodeBundle: what is checked is what is served). `report`: a refusal is recorded and acked
   * to the control plane (false: only logged, for pushed deltas, which whoever can publish on the
   * channel could send). `settle`: the disk copy and the ack before this resolves ('now': offer(),
   * disk) or spread after it ('later': what the sync fetched or was pushed, ADR 0280).
   */
  async take(value: unknown, source: BundleSource, report: boolean, settle: Settle = 'now'): Promise<RefreshOutcome> {
    const refusal = await this.refusalOf(value);
    if (refusal.error !== null) {
      const from = report ? source : 'a pushed delta';
      if (report) this.lastRefusal = refusal.error;
      this.log.warn(`refused a bundle from ${from} (keeping revision ${this.active?.revision ?? 'none'}): ${refusal.error}`);
      if (source === 'control-plane' && report) {
        await this.settle(settle, {
          ack: { nodeId: this.registration.nodeId, revision: claimedRevision(value) ?? this.active?.revision ?? 0, error: refusal.error },
        });
      }
      return 'refused';
    }
    const bundle = refusal.bundle;
    this.servedEtag = nodeBundleEtag(bundle.revision, bundle.contentHash);
    if (this.active && this.active.servedHash === bundle.contentHash) return 'not-modified';
    const previous = this.active;
    const next = new ActiveBundle(bundle, this.options.cardSigning);
    this.active = next; // the one atomic swap
    this.source = source;
    this.lastRefusal = null;
    this.unservable = this.registration.unservableOf(next);
    if (this.unservable.length > 0) {
      this.log.warn(
        `revision ${next.revision} names handlers this node lacks; temporarily unavailable here: ${this.unservable.join(', ')}`,
      );
    }
    this.log.log?.(`serving revision ${next.revision} of agent "${next.agentId}" (from ${source})`);
    for (const listener of this.listeners) {
      try {
        listener(next, previous);
      } catch (error) {
        this.log.warn(`an onApplied listener failed: ${(error as Error).message}`);
      }
    }
    await this.settle(settle, {
      diskText: source === 'control-plane' ? () => (typeof value === 'string' ? value : JSON.stringify(bundle)) : undefined,
      ack: { nodeId: this.registration.nodeId, revision: next.revision, servedHash: next.servedHash, unservable: this.unservable },
    });
    return 'applied';
  }

  private settle(settle: Settle, work: AfterApplyWork): Promise<void> {
    if (settle === 'now') return this.after.now(work);
    this.after.later(work);
    return Promise.resolve();
  }

  /** The checked bundle, or why it is refused: its own checks, another agent's, or its signatures. */
  private async refusalOf(value: unknown): Promise<{ error: null; bundle: NodeBundle } | { error: string; bundle?: undefined }> {
    const check = checkNodeBundle(sealNodeBundle(value), this.active, { classSample: this.options.classSample });
    if (!check.ok) return { error: check.error };
    if (check.bundle.agentId !== this.options.agentId) {
      return { error: `bundle is for agent "${check.bundle.agentId}", this node serves "${this.options.agentId}"` };
    }
    // Signed by the control plane with a key of the pinned JWKS, cards included (ADR 0130).
    const verified = await verifyNodeBundle(check.bundle, this.options.keys);
    if (!verified.ok) return { error: `signature ${verified.code}: ${verified.reason}` };
    return { error: null, bundle: check.bundle };
  }
}

/** Default of `ackSpreadMs` (ADR 0280): acks of a fleet spread over half a second. */
export const DEFAULT_ACK_SPREAD_MS = 500;

function claimedRevision(value: unknown): number | undefined {
  try {
    const parsed = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
    const revision = (parsed as { revision?: unknown } | null)?.revision;
    return typeof revision === 'number' && Number.isInteger(revision) && revision >= 0 ? revision : undefined;
  } catch {
    return undefined;
  }
}
