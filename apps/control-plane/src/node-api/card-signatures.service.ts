import { Injectable, Logger } from '@nestjs/common';
import {
  ANONYMOUS_CLASS,
  ProjectionCache,
  representativeCaller,
  type Caller,
  type NodeBundle,
  type SerializedProjection,
} from '@cp/capabilities';
import { InjectRedis, type RedisClient } from '@cp/common';
import {
  cardSignatures,
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
  projections: ProjectionCache;
  /** Cards the bundle carries, signed when it was built: the anonymous class and the precomputed ones. */
  inBundle: Map<string, SerializedProjection>;
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
  private readonly answers = new Map<string, Promise<CardSignaturesResult>>();
  private readonly logger = new Logger('CardSignatures');
  /** Cards signed by this process (tests and benchmarks: once per class, not per request). */
  readonly stats = { signed: 0 };

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
    let answer = this.answers.get(memo);
    if (!answer) {
      answer = this.sign(revision, body.classKey, caller);
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
        return { agentId, revision: wanted, epoch: current.epoch, projections: new ProjectionCache(bundle.snapshot), inBundle };
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
    const store = `${this.bundles.keys(revision.agentId).bundle(revision.revision, revision.epoch)}:card-signatures`;
    const field = `${key.kid}|${classKey}`;
    const stored = await this.redis.hget(store, field);
    if (stored !== null) return answer(JSON.parse(stored) as AgentCardSignature[]);
    const card = caller === null ? revision.projections.publicCard() : revision.projections.extendedCard(caller);
    const signatures = await cardSignatures(card, key);
    this.stats.signed++;
    // Another process may have signed the same class meanwhile: the first writer's signatures win.
    const [[, wrote]] = (await this.redis
      .multi()
      .hsetnx(store, field, JSON.stringify(signatures))
      .expire(store, DEFAULT_SYNC_OPTIONS.bundleTtlSeconds)
      .exec()) as [[Error | null, number]];
    if (wrote === 1) return answer(signatures);
    const winner = await this.redis.hget(store, field);
    return answer(winner === null ? signatures : (JSON.parse(winner) as AgentCardSignature[]));
  }
}

/** Errors of a Redis command sent while the connection was going away. */
const REDIS_AWAY = /Connection is closed|Stream isn't writeable|ECONNREFUSED|ECONNRESET|EPIPE|max retries per request/i;

const storeAway = () =>
  new NodeApiError(
    NodeApiErrorCode.BundleUnavailable,
    'the sync store (Redis) is reconnecting; the card cannot be signed now, retry later',
  );

function kidOf(signature: AgentCardSignature): string | undefined {
  try {
    return (JSON.parse(Buffer.from(signature.protected, 'base64url').toString('utf8')) as { kid?: string }).kid;
  } catch {
    return undefined;
  }
}
