/**
 * One applied bundle, immutable. A node holds exactly one reference to the current ActiveBundle
 * and swaps it whole, so a request that read it sees one revision from start to end.
 */
import {
  ANONYMOUS_CLASS,
  bundleContentHash,
  ProjectionCache,
  type Caller,
  type CostBudgets,
  type EntitlementContext,
  type ExecutionPolicy,
  type NodeBundle,
  type RouterIndex,
  type SerializedProjection,
} from '@cp/capabilities';

export class ActiveBundle {
  readonly revision: number;
  /** The registry lineage this bundle belongs to (see RegistrySnapshot.epoch). */
  readonly epoch: string | undefined;
  readonly agentId: string;
  readonly publicCard: SerializedProjection;
  /** Every non-removed capability: enforce per call with entitlement(entry, caller, entitlementContext). */
  readonly policy: ExecutionPolicy;
  readonly entitlementContext: EntitlementContext & { previewTenants: ReadonlySet<string> };
  /** sha256 hex of the content this node serves, recomputed here (equals bundle.contentHash once checked). */
  readonly servedHash: string;
  readonly appliedAt: Date;
  readonly costBudgets?: CostBudgets;
  /** Where push webhooks may reach although private (the agent's allow-list, ADR 0162). */
  readonly webhookAllow: readonly string[];
  /** Classes past the bundle's cap are computed on first use with the core and memoized here. */
  private readonly lazy: ProjectionCache;
  private readonly classes: ReadonlyMap<string, NodeBundle['classes'][number]>;

  constructor(readonly bundle: NodeBundle) {
    this.revision = bundle.revision;
    this.epoch = bundle.snapshot.epoch;
    this.agentId = bundle.agentId;
    this.publicCard = bundle.publicCard;
    this.policy = bundle.executionPolicy;
    this.entitlementContext = { previewTenants: new Set(bundle.executionPolicy.previewTenants) };
    this.servedHash = bundleContentHash(bundle);
    this.appliedAt = new Date();
    this.costBudgets = bundle.snapshot.costBudgets;
    this.webhookAllow = bundle.snapshot.agent.protocol.webhookAllow ?? [];
    this.lazy = new ProjectionCache(bundle.snapshot);
    this.classes = new Map(bundle.classes.map((c) => [c.key, c] as const));
  }

  classKey(caller: Caller): string {
    return this.lazy.classKey(caller);
  }

  /** The extended card for this caller (anonymous: the public card). */
  extendedCardFor(caller: Caller): SerializedProjection {
    if (caller === null) return this.publicCard;
    const key = this.lazy.classKey(caller);
    return this.classes.get(key)?.extendedCard ?? this.lazy.extendedCardSerialized(caller);
  }

  routerIndexFor(caller: Caller): RouterIndex {
    if (caller === null) return this.bundle.anonymousRouterIndex;
    const key = this.lazy.classKey(caller);
    if (key === ANONYMOUS_CLASS) return this.bundle.anonymousRouterIndex;
    return this.classes.get(key)?.routerIndex ?? this.lazy.routerIndex(caller);
  }

  /** How many classes were computed lazily (past the bundle's cap). */
  get lazyBuilds(): number {
    return this.lazy.stats.builds.extendedCard + this.lazy.stats.builds.routerIndex;
  }
}
