/**
 * One applied bundle, immutable. A node holds exactly one reference to the current ActiveBundle
 * and swaps it whole, so a request that read it sees one revision from start to end.
 */
import {
  ANONYMOUS_CLASS,
  nodeBundleContentHash,
  ProjectionCache,
  type Caller,
  type CostBudgets,
  type EntitlementContext,
  type ExecutionPolicy,
  type NodeBundle,
  type RouterIndex,
  type SerializedProjection,
  serializeCardWithSignatures,
  usableWebhookAllow,
} from '@cp/capabilities';
import { verifyCardSignature, type VerificationKeys } from '@cp/node-protocol';
import { NodeCatalogs, type CatalogDefaults } from './node-catalogs';
import { OncePerClass } from './once-per-class';

/**
 * How a node gets the cards of classes past the bundle's limit signed (ADR 0132): it asks the
 * control plane for the signatures of (revision, class) once, verifies them over the card it
 * computed with its pinned keys, and keeps the signed card with this bundle.
 */
export interface LazyCardSigning {
  /** The control plane's signatures for this revision and class; null (or a throw) when it did not give any. */
  signatures(revision: number, classKey: string): Promise<unknown[] | null>;
  keys: VerificationKeys;
  /** How long a request waits for them before the card goes out unsigned (default 1000 ms). */
  waitMs?: number;
  /** After a class could not be signed, requests serve it unsigned without asking for this long (default 5000 ms). */
  retryAfterMs?: number;
  onFailure?(classKey: string, reason: string): void;
  /**
   * The signature of the node catalog of (revision, class) (ADR 0315): asked for on the same route,
   * at most once per class of a bundle, on the same terms as the cards. Absent: catalogs of
   * authenticated classes go out unsigned unless they equal the anonymous one.
   */
  catalogSignature?(revision: number, classKey: string): Promise<string | null>;
  /** A catalog went out unsigned: why (no signature in the bundle, the control plane did not give one). */
  onCatalogUnsigned?(classKey: string, reason: string): void;
}

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
  /**
   * Where push webhooks may reach although private (the agent's allow-list, ADR 0162), minus any
   * entry the admin API now refuses (ADR 0211): a list stored before the rule cannot open the guard.
   */
  readonly webhookAllow: readonly string[];
  /** Where upstream agents may be reached although private (ADR 0230), filtered by the same rule. */
  readonly upstreamAllow: readonly string[];
  /** Classes past the bundle's cap are computed on first use with the core and memoized here. */
  private readonly lazy: ProjectionCache;
  private readonly classes: ReadonlyMap<string, NodeBundle['classes'][number]>;
  /** Lazily computed classes whose card is signed (verified signatures from the control plane). */
  private readonly lazyCards?: OncePerClass<SerializedProjection>;
  /** The node's AI Catalog per class (ADR 0315). */
  private readonly catalogs: NodeCatalogs;

  constructor(
    readonly bundle: NodeBundle,
    private readonly signing?: LazyCardSigning,
  ) {
    this.revision = bundle.revision;
    this.epoch = bundle.snapshot.epoch;
    this.agentId = bundle.agentId;
    this.publicCard = bundle.publicCard;
    this.policy = bundle.executionPolicy;
    this.entitlementContext = { previewTenants: new Set(bundle.executionPolicy.previewTenants) };
    this.servedHash = nodeBundleContentHash(bundle);
    this.appliedAt = new Date();
    this.costBudgets = bundle.snapshot.costBudgets;
    this.webhookAllow = usableWebhookAllow(bundle.snapshot.agent.protocol.webhookAllow ?? []);
    this.upstreamAllow = usableWebhookAllow(bundle.snapshot.agent.protocol.upstreamAllow ?? []);
    this.lazy = new ProjectionCache(bundle.snapshot);
    this.classes = new Map(bundle.classes.map((c) => [c.key, c] as const));
    if (signing) this.lazyCards = new OncePerClass(signing);
    this.catalogs = new NodeCatalogs(bundle, (caller) => this.lazy.classKey(caller), signing);
  }

  /** Lazily computed classes signed so far, askings, and requests that got an unsigned lazy card. */
  get lazySigning(): { signed: number; requested: number; unsignedServed: number } {
    return this.lazyCards?.stats ?? { signed: 0, requested: 0, unsignedServed: 0 };
  }

  /** Catalogs of classes signed on request, askings, and catalogs served unsigned (ADR 0315). */
  get catalogSigning(): { signed: number; requested: number; unsignedServed: number } {
    return this.catalogs.stats;
  }

  /**
   * The node's AI Catalog for this caller as JSON text, signed when a signature is at hand: the
   * anonymous one from the bundle, a class's asked for once (ADR 0315). `defaults` name the host
   * and publisher of a bundle built without the catalog's parameters (served unsigned).
   */
  catalogFor(caller: Caller, defaults: CatalogDefaults): string | Promise<string> {
    return this.catalogs.bodyFor(caller, defaults);
  }

  classKey(caller: Caller): string {
    return this.lazy.classKey(caller);
  }

  /**
   * The extended card for this caller (anonymous: the public card) as it is now: a class past the
   * bundle's limit is signed only once its signatures arrived (signedExtendedCardFor asks for them).
   */
  extendedCardFor(caller: Caller): SerializedProjection {
    if (caller === null) return this.publicCard;
    const key = this.lazy.classKey(caller);
    return this.classes.get(key)?.extendedCard ?? this.lazyCards?.get(key) ?? this.lazy.extendedCardSerialized(caller);
  }

  /**
   * The extended card, signed: from the bundle, or for a class past its limit with the control
   * plane's signatures, asked for once per class of this bundle (concurrent requests share the
   * one request) and awaited at most `waitMs`; without them the card goes out unsigned.
   */
  signedExtendedCardFor(caller: Caller): SerializedProjection | Promise<SerializedProjection> {
    if (caller === null) return this.publicCard;
    const key = this.lazy.classKey(caller);
    const ready = this.classes.get(key)?.extendedCard ?? this.lazyCards?.get(key);
    if (ready) return ready;
    const unsigned = this.lazy.extendedCardSerialized(caller);
    const signing = this.signing;
    if (!signing || !this.lazyCards) return unsigned;
    return this.lazyCards.serve(key, () => this.signLazy(signing, key, caller), unsigned);
  }

  /** The class's card with the control plane's signatures, verified; throws naming why not. */
  private async signLazy(signing: LazyCardSigning, key: string, caller: Caller): Promise<SerializedProjection> {
    const signatures = await signing.signatures(this.revision, key);
    if (!signatures || signatures.length === 0) throw new Error('the control plane gave no signatures');
    const card = this.lazy.extendedCard(caller);
    const signed = serializeCardWithSignatures(card, signatures as object[]);
    // Signatures over the card this node computed, with its pinned keys: a control plane (or
    // anything between) cannot make it serve a card other than the one the bundle projects.
    const verified = await verifyCardSignature(signed.body, signing.keys);
    if (!verified.ok) throw new Error(`signature ${verified.code}: ${verified.reason}`);
    return signed;
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
