/**
 * Per-snapshot memo of the projections, keyed by entitlement class: each class's extended card,
 * router index and policy are computed once, then shared (deep-frozen, since callers share them).
 * A new snapshot revision means a new cache.
 */
import { buildExtendedCard, buildPublicCard } from './cards';
import { serializeCard, type SerializedCard } from './card-version';
import type { AgentCard } from './card-types';
import { EntitlementClassIndex } from './entitlement-classes';
import { buildExecutionPolicy, type ExecutionPolicy } from './execution-policy';
import { buildRouterIndex, type RouterIndex } from './router-index';
import type { Caller, RegistrySnapshot } from './types';

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

interface ClassEntry {
  card?: AgentCard;
  serialized?: SerializedCard;
  router?: RouterIndex;
  policy?: ExecutionPolicy;
}

export interface ProjectionCacheStats {
  /** How many times each projection was actually computed (not served from the memo). */
  builds: { publicCard: number; extendedCard: number; routerIndex: number; executionPolicy: number; serialized: number };
  hits: number;
  /** Class keys computed (a frozen caller's is remembered: ADR 0375). */
  classKeys: number;
}

export class ProjectionCache {
  readonly classes: EntitlementClassIndex;
  readonly stats: ProjectionCacheStats = {
    builds: { publicCard: 0, extendedCard: 0, routerIndex: 0, executionPolicy: 0, serialized: 0 },
    hits: 0,
    classKeys: 0,
  };
  private readonly perClass = new Map<string, ClassEntry>();
  private publicMemo?: { card: AgentCard; serialized?: SerializedCard };
  /**
   * Class keys of frozen callers, by identity (ADR 0375): the node's authenticator hands out one
   * frozen Caller per verified token, so a token's requests compute their class once per snapshot.
   * Weak: an entry lives only as long as its caller object (the token's cache entry); a caller
   * that is not frozen could change under its key and is never remembered.
   */
  private readonly keysOfCallers = new WeakMap<object, string>();

  /** maxClasses bounds memory: past it the oldest class is dropped (recomputed if asked again). */
  constructor(
    readonly snapshot: RegistrySnapshot,
    private readonly maxClasses = 4096,
  ) {
    this.classes = new EntitlementClassIndex(snapshot);
  }

  classKey(caller: Caller): string {
    if (caller === null) return this.classes.key(caller);
    if (!Object.isFrozen(caller) || !Object.isFrozen(caller.scopes)) return this.computeKey(caller);
    let key = this.keysOfCallers.get(caller);
    if (key === undefined) this.keysOfCallers.set(caller, (key = this.computeKey(caller)));
    return key;
  }

  private computeKey(caller: Caller): string {
    this.stats.classKeys++;
    return this.classes.key(caller);
  }

  publicCard(): AgentCard {
    if (this.publicMemo) return this.hit(this.publicMemo.card);
    this.stats.builds.publicCard++;
    this.publicMemo = { card: deepFreeze(buildPublicCard(this.snapshot)) };
    return this.publicMemo.card;
  }

  publicCardSerialized(): SerializedCard {
    const card = this.publicCard();
    if (!this.publicMemo!.serialized) {
      this.stats.builds.serialized++;
      this.publicMemo!.serialized = deepFreeze(serializeCard(card));
    }
    return this.publicMemo!.serialized;
  }

  extendedCard(caller: Caller): AgentCard {
    return this.memo(caller, 'card', 'extendedCard', () => buildExtendedCard(this.snapshot, caller));
  }

  extendedCardSerialized(caller: Caller): SerializedCard {
    const card = this.extendedCard(caller);
    return this.memo(caller, 'serialized', 'serialized', () => serializeCard(card));
  }

  routerIndex(caller: Caller): RouterIndex {
    return this.memo(caller, 'router', 'routerIndex', () => buildRouterIndex(this.snapshot, caller));
  }

  executionPolicy(caller: Caller): ExecutionPolicy {
    return this.memo(caller, 'policy', 'executionPolicy', () => buildExecutionPolicy(this.snapshot, caller));
  }

  private hit<T>(v: T): T {
    this.stats.hits++;
    return v;
  }

  private memo<K extends keyof ClassEntry>(
    caller: Caller,
    slot: K,
    stat: keyof ProjectionCacheStats['builds'],
    build: () => NonNullable<ClassEntry[K]>,
  ): NonNullable<ClassEntry[K]> {
    const key = this.classKey(caller);
    let entry = this.perClass.get(key);
    if (!entry) {
      if (this.perClass.size >= this.maxClasses) this.perClass.delete(this.perClass.keys().next().value!);
      entry = {};
      this.perClass.set(key, entry);
    }
    const cached = entry[slot];
    if (cached !== undefined) return this.hit(cached);
    this.stats.builds[stat]++;
    const value = deepFreeze(build());
    entry[slot] = value;
    return value;
  }
}
