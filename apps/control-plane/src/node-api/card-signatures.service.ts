import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import {
  ANONYMOUS_CLASS,
  ProjectionCache,
  representativeCaller,
  type Caller,
  type NodeBundle,
  type NodeBundleCatalog,
  type RegistrySnapshot,
  type SerializedProjection,
} from '@cp/capabilities';
import { InjectRedis, type RedisClient } from '@cp/common';
import {
  cardSignatures,
  catalogSignature,
  catalogSigningInput,
  nodeCatalog,
  verifyBundleSignature,
  type AgentCardSignature,
  type CardSignaturesBody,
  type CardSignaturesResult,
  type VerificationKeys,
} from '@cp/node-protocol';
import { BundleCache, DEFAULT_SYNC_OPTIONS, SigningKeys, SyncError } from '@cp/sync';
import { NodeHttpError } from '../node-auth/node-http-error';
import { NodeApiError, NodeApiErrorCode } from './node-api.errors';

/** Parsed revisions kept per process (each holds a snapshot and its projection memo). */
const REVISIONS_KEPT = 4;
/** Signature answers kept per process. */
const ANSWERS_KEPT = 4096;

interface Revision {
  agentId: string;
  revision: number;
  epoch: string;
  snapshot: RegistrySnapshot;
  projections: ProjectionCache;
  /** Cards the bundle carries, signed when it was built: the anonymous class and the precomputed ones. */
  inBundle: Map<string, SerializedProjection>;
  /** The node catalog's parameters and anonymous signature (ADR 0315); absent on a bundle built without them. */
  catalog?: NodeBundleCatalog;
}

/**
 * POST /node/v1/card-signatures (ADR 0132): the signatures of the extended card of one
 * entitlement class that a node computes lazily (past the bundle's class limit). The card is
 * recomputed here from the snapshot of the revision the node serves (the bundle cached for it):
 * the node names a revision and a class, never bytes, so its token cannot get anything signed
 * that the registry would not project. The bundle read back from Redis is verified against the
 * key ring's own public keys first (its JWS over the recomputed contentHash, which covers the
 * snapshot): whoever can write Redis cannot make the control plane sign a card of their making.
 * Signed once per (agent, revision, epoch, key, class) across the control-plane processes (Redis,
 * first writer wins), never per request.
 */
@Injectable()
export class CardSignaturesService {
  private readonly revisions = new Map<string, Promise<Revision>>();
  private readonly answers = new Map<string, Promise<unknown>>();
  private readonly logger = new Logger('CardSignatures');
  /** Cards and node catalogs signed by this process (tests and benchmarks: once per class, not per request). */
  readonly stats = { signed: 0, catalogsSigned: 0 };

  constructor(
    private readonly bundles: BundleCache,
    private readonly keys: SigningKeys,
    @InjectRedis() private readonly redis: RedisClient,
  ) {}

  async signaturesFor(agentId: string, body: CardSignaturesBody): Promise<CardSignaturesResult> {
    // Redis reconnecting: answer now (the node serves the card unsigned and asks again later)
    // rather than queue behind the reconnection.
    if (!this.bundles.connected()) throw storeAway();
    try {
      return await this.answer(agentId, body);
    } catch (error) {
      if (error instanceof NodeHttpError) throw error;
      if (error instanceof SyncError) throw new NodeApiError(NodeApiErrorCode.BundleUnavailable, `${error.message}; retry later`);
      if (!this.bundles.connected() || REDIS_AWAY.test((error as Error | undefined)?.message ?? '')) throw storeAway();
      throw error;
    }
  }

  private async answer(agentId: string, body: CardSignaturesBody): Promise<CardSignaturesResult> {
    const revision = await this.revision(agentId, body.revision);
    const caller = this.callerOf(revision, body.classKey);
    const kid = this.keys.active().kid;
    const memo = `${agentId}@${revision.revision}|${revision.epoch}#${kid}|${body.classKey}`;
    const card = this.memoized(memo, () => this.sign(revision, body.classKey, caller));
    // A bundle built without the catalog's parameters: nothing to sign, the node serves its catalog unsigned.
    if (!body.catalog || !revision.catalog) return card;
    const catalog = this.memoized(`catalog|${memo}`, () => this.signCatalog(revision, caller));
    const [answer, catalogSignature] = await Promise.all([card, catalog]);
    return { ...answer, catalogSignature };
  }

  /** One answer per memo key in this process (concurrent requests share it); a failure is not remembered. */
  private memoized<T>(memo: string, make: () => Promise<T>): Promise<T> {
    let answer = this.answers.get(memo) as Promise<T> | undefined;
    if (!answer) {
      answer = make();
      this.answers.set(memo, answer);
      if (this.answers.size > ANSWERS_KEPT) this.answers.delete(this.answers.keys().next().value!);
      // A failure is not remembered: the next request tries again.
      answer.catch(() => this.answers.delete(memo));
    }
    return answer;
  }

  /** The snapshot of `wanted`: the current revision's bundle, or an older one still cached in Redis. */
  private async revision(agentId: string, wanted: number): Promise<Revision> {
    const current = await this.bundles.current(agentId);
    if (!current) throw new NodeApiError(NodeApiErrorCode.AgentNotFound, `agent "${agentId}" does not exist`);
    const memo = `${agentId}@${wanted}|${current.epoch}`;
    let pending = this.revisions.get(memo);
    if (!pending) {
      pending = (async () => {
        const text =
          current.revision === wanted
            ? current.body
            : await this.redis.hget(this.bundles.keys(agentId).bundle(wanted, current.epoch), 'body');
        if (text === null) {
          throw new NodeApiError(
            NodeApiErrorCode.RevisionUnavailable,
            `revision ${wanted} of agent "${agentId}" is not available (the current revision is ${current.revision}); fetch the current bundle`,
          );
        }
        const bundle = await this.verified(agentId, wanted, text);
        const inBundle = new Map<string, SerializedProjection>([[ANONYMOUS_CLASS, bundle.publicCard]]);
        for (const c of bundle.classes) inBundle.set(c.key, c.extendedCard);
        return {
          agentId,
          revision: wanted,
          epoch: current.epoch,
          snapshot: bundle.snapshot,
          projections: new ProjectionCache(bundle.snapshot),
          inBundle,
          catalog: bundle.catalog,
        };
      })();
      this.revisions.set(memo, pending);
      if (this.revisions.size > REVISIONS_KEPT) this.revisions.delete(this.revisions.keys().next().value!);
      pending.catch(() => this.revisions.delete(memo));
    }
    return pending;
  }

  /** The cached bundle, only when it is what this control plane signed for this agent and revision. */
  private async verified(agentId: string, revision: number, text: string): Promise<NodeBundle> {
    let reason: string;
    try {
      const bundle = JSON.parse(text) as NodeBundle;
      const keys: VerificationKeys = this.keys.jwks();
      const result = await verifyBundleSignature(bundle, keys);
      if (result.ok && bundle.agentId === agentId && bundle.revision === revision) return bundle;
      reason = result.ok ? 'it is of another agent or revision' : `signature ${result.code}: ${result.reason}`;
    } catch (error) {
      reason = `it does not parse: ${(error as Error).message}`;
    }
    this.logger.error(`the cached bundle of ${agentId}@${revision} is refused, nothing signed from it: ${reason}`);
    throw new NodeApiError(
      NodeApiErrorCode.BundleUnavailable,
      `the bundle of revision ${revision} of agent "${agentId}" cannot be used to sign (it does not verify); retry later`,
    );
  }

  /**
   * A caller in the class named by `classKey`, which must be one of this agent's classes at this
   * revision exactly as the projection computes it (another agent's class, a made-up tenant or
   * scope, a key in another form: refused).
   */
  private callerOf(revision: Revision, classKey: string): Caller {
    if (classKey === ANONYMOUS_CLASS) return null;
    const notAClass = (why: string) =>
      new NodeApiError(
        NodeApiErrorCode.ClassNotFound,
        `classKey is not an entitlement class of agent "${revision.agentId}" at revision ${revision.revision}: ${why}`,
      );
    let parsed: unknown;
    try {
      parsed = JSON.parse(classKey);
    } catch {
      throw notAClass('not JSON');
    }
    const p = parsed as { tenant?: unknown; scopes?: unknown } | null;
    if (
      typeof p !== 'object' ||
      p === null ||
      typeof p.tenant !== 'string' ||
      !Array.isArray(p.scopes) ||
      !p.scopes.every((s) => typeof s === 'string')
    ) {
      throw notAClass('expected {"preview", "scopes", "tenant"}');
    }
    const caller = representativeCaller(revision.projections.classes, classKey);
    if (revision.projections.classKey(caller) !== classKey) throw notAClass('no caller of this agent falls in it');
    return caller;
  }

  private async sign(revision: Revision, classKey: string, caller: Caller): Promise<CardSignaturesResult> {
    const key = this.keys.active();
    const answer = (signatures: AgentCardSignature[]): CardSignaturesResult => ({
      revision: revision.revision,
      classKey,
      kid: key.kid,
      signatures,
    });
    const carried = revision.inBundle.get(classKey);
    if (carried) {
      const signed = (JSON.parse(carried.body) as { signatures?: AgentCardSignature[] }).signatures ?? [];
      // Signed with the active key when the bundle was built: the same answer the bundle gives.
      if (signed.length > 0 && signed.every((s) => kidOf(s) === key.kid)) return answer(signed);
    }
    return answer(
      await this.storeFirst(revision, `${key.kid}|${classKey}`, async () => {
        const card = caller === null ? revision.projections.publicCard() : revision.projections.extendedCard(caller);
        const signatures = await cardSignatures(card, key);
        this.stats.signed++;
        return signatures;
      }),
    );
  }

  /**
   * The signature of the class's node catalog (ADR 0315), recomputed from the verified bundle with
   * the one builder the node uses (nodeCatalog). Stored per signed document, not per class: classes
   * that see the same catalog share one signature, and the anonymous one is the bundle's own.
   */
  private async signCatalog(revision: Revision, caller: Caller): Promise<string> {
    const key = this.keys.active();
    const params = revision.catalog!;
    const catalog = nodeCatalog(revision.snapshot, params, caller);
    const input = catalogSigningInput(catalog);
    if (params.signature !== undefined && jwsKid(params.signature) === key.kid) {
      // Signed with the active key when the bundle was built: the same signature the bundle gives.
      if (caller === null || input === catalogSigningInput(nodeCatalog(revision.snapshot, params, null))) return params.signature;
    }
    const digest = createHash('sha256').update(input).digest('base64url');
    return this.storeFirst(revision, `${key.kid}|catalog|${digest}`, async () => {
      const signature = await catalogSignature(catalog, key);
      this.stats.catalogsSigned++;
      return signature;
    });
  }

  /**
   * What the revision's signature store holds in `field`, or what `make` signs, stored unless
   * another process stored one meanwhile (HSETNX: the first writer's signatures win, so every
   * process answers the same bytes).
   */
  private async storeFirst<T>(revision: Revision, field: string, make: () => Promise<T>): Promise<T> {
    const store = `${this.bundles.keys(revision.agentId).bundle(revision.revision, revision.epoch)}:card-signatures`;
    const stored = await this.redis.hget(store, field);
    if (stored !== null) return JSON.parse(stored) as T;
    const made = await make();
    const [[, wrote]] = (await this.redis
      .multi()
      .hsetnx(store, field, JSON.stringify(made))
      .expire(store, DEFAULT_SYNC_OPTIONS.bundleTtlSeconds)
      .exec()) as [[Error | null, number]];
    if (wrote === 1) return made;
    const winner = await this.redis.hget(store, field);
    return winner === null ? made : (JSON.parse(winner) as T);
  }
}

/** Errors of a Redis command sent while the connection was going away. */
const REDIS_AWAY = /Connection is closed|Stream isn't writeable|ECONNREFUSED|ECONNRESET|EPIPE|max retries per request/i;

const storeAway = () =>
  new NodeApiError(
    NodeApiErrorCode.BundleUnavailable,
    'the sync store (Redis) is reconnecting; the card cannot be signed now, retry later',
  );

/** The kid of a compact (or detached compact) JWS's protected header. */
function jwsKid(jws: string): string | undefined {
  return kidOf({ protected: jws.split('.')[0], signature: '' });
}

function kidOf(signature: AgentCardSignature): string | undefined {
  try {
    return (JSON.parse(Buffer.from(signature.protected, 'base64url').toString('utf8')) as { kid?: string }).kid;
  } catch {
    return undefined;
  }
}
