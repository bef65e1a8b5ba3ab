/**
 * NodeSync: keeps an agent node serving the latest good bundle of its agent, without the control
 * plane on any request path. A facade over the classes of libs/node-sdk/src/sync, one job each:
 *
 * - BundleApplier: check, verify (pinned JWKS), swap one reference to an immutable ActiveBundle,
 *   keep it on disk (BundleDiskCache) and ack it; a refused bundle leaves the old one in place.
 * - BundleFetcher: the conditional GET with deltas, pushed deltas, Retry-After.
 * - RefreshLoop: coalesced runs, retries with backoff and jitter; polling every `pollIntervalMs`
 *   is the safety net.
 * - InvalidationListener: the agent's changes channel on Redis (announcements, pushed deltas).
 * - Registration: register, heartbeat with the handler inventory, acks.
 * - card-signatures.ts: the lazy path of extended-card signatures (ADR 0132).
 *
 * No Nest here, and nothing that loads it (`@cp/common/core`, ADR 0222): any team's node can use
 * it (see nest/node-sync.module.ts for the Nest wrapper).
 */
import { join } from 'node:path';
import type { HandlerDeclaration, UpstreamCardReport } from '@cp/capabilities';
import { nodeIdSchema, type VerificationKeys } from '@cp/node-protocol';
import type { ActiveBundle } from '../active-bundle';
import { BundleApplier } from './bundle-applier';
import { BundleDiskCache } from './bundle-disk-cache';
import { BundleFetcher } from './bundle-fetcher';
import { lazyCardSigning } from './card-signatures';
import { InvalidationListener } from './invalidation-listener';
import { NodeApi } from './node-api';
import { PinnedJwks } from './pinned-jwks';
import { RefreshLoop } from './refresh-loop';
import { Registration } from './registration';
import type { AppliedListener, BundleSource, NodeSyncLogger, NodeSyncOptions, NodeSyncStatus, RefreshOutcome } from './node-sync-types';

export type {
  AppliedListener,
  BundleSource,
  FetchCounts,
  NodeSyncLogger,
  NodeSyncOptions,
  NodeSyncStatus,
  RefreshOutcome,
  RegistrationStatus,
} from './node-sync-types';

const silent: NodeSyncLogger = { warn: () => undefined };

export class NodeSync {
  private running = false;
  private timers: NodeJS.Timeout[] = [];
  private fetched?: (outcome: RefreshOutcome) => void;
  private readonly pinned?: PinnedJwks;
  private readonly api: NodeApi;
  private readonly registration: Registration;
  private readonly applier: BundleApplier;
  private readonly fetcher: BundleFetcher;
  private readonly loop: RefreshLoop;
  private readonly invalidations?: InvalidationListener;

  constructor(private readonly options: NodeSyncOptions) {
    // The control plane's rule (one rule, @cp/node-protocol): refuse here rather than at every register.
    const nodeId = nodeIdSchema.safeParse(options.nodeId);
    if (!nodeId.success) throw new Error(`nodeId "${options.nodeId}" ${nodeId.error.issues[0]?.message ?? 'is invalid'}`);
    const log = options.logger ?? silent;
    this.api = new NodeApi(
      options.controlPlaneUrl,
      options.nodeToken,
      { timeoutMs: options.requestTimeoutMs, maxBodyBytes: options.maxResponseBytes },
      log,
    );
    let keys: VerificationKeys;
    if (options.jwks) keys = options.jwks;
    else {
      this.pinned = new PinnedJwks({
        url: options.jwksUrl ?? `${options.controlPlaneUrl.replace(/\/+$/, '')}/.well-known/jwks.json`,
        file: join(options.cacheDir, `${options.agentId}.jwks.json`),
        cacheMaxAgeMs: options.jwksCacheMaxAgeMs,
        cooldownMs: options.jwksCooldownMs,
        timeoutMs: options.requestTimeoutMs,
      });
      keys = this.pinned.getKey;
    }
    this.registration = new Registration(this.api, { nodeId: options.nodeId, hostname: options.hostname }, options.handlers, log);
    this.applier = new BundleApplier(
      {
        agentId: options.agentId,
        keys,
        classSample: options.classSample,
        cardSigning: lazyCardSigning(this.api, { keys, waitMs: options.cardSigningWaitMs, retryAfterMs: options.cardSigningRetryMs }, log),
        ackSpreadMs: options.ackSpreadMs,
      },
      new BundleDiskCache(options.cacheDir, options.agentId, log),
      this.registration,
      log,
    );
    const pollIntervalMs = options.pollIntervalMs ?? 30_000;
    this.fetcher = new BundleFetcher(
      this.api,
      this.applier,
      this.registration,
      { deltas: options.deltas, maxRetryAfterMs: pollIntervalMs },
      log,
    );
    this.loop = new RefreshLoop(this.fetcher, {
      pollIntervalMs,
      running: () => this.running,
      fetched: (outcome) => this.fetched?.(outcome),
    });
    if (options.redisUrl) {
      this.invalidations = new InvalidationListener(
        { ...options, redisUrl: options.redisUrl },
        { current: () => this.applier.current(), refresh: (pushed) => this.refresh(pushed) },
        log,
      );
    }
    this.fetched = options.onFetched;
  }

  /** Sets who is told every fetch outcome (metrics), when the app builds it after NodeSync. */
  onFetched(listener: (outcome: RefreshOutcome) => void): void {
    this.fetched = listener;
  }

  /** Sets where the handler inventory comes from (before start(); apps that build handlers later). */
  useHandlers(handlers: () => HandlerDeclaration[]): void {
    this.registration.useHandlers(handlers);
  }

  /**
   * Makes this node a gateway in its reports (ADR 0275): the upstream report goes with register and
   * every heartbeat, and counts in what the node says it cannot serve.
   */
  useUpstreams(report: () => UpstreamCardReport[]): void {
    this.registration.useUpstreams(report);
  }

  /** An upstream probe's outcome changed: recompute what this node cannot serve and report it now (not at the next heartbeat). */
  async upstreamsChanged(): Promise<void> {
    this.applier.recheckServable();
    if (this.running) await this.registration.heartbeat();
  }

  /** The bundle being served, or undefined before the first one (from disk or the control plane). */
  current(): ActiveBundle | undefined {
    return this.applier.current();
  }

  /** Called after every swap, with the new and the previous bundle. Returns an unsubscribe function. */
  onApplied(listener: AppliedListener): () => void {
    return this.applier.onApplied(listener);
  }

  /** Resolves with the current bundle as soon as there is one. */
  whenReady(timeoutMs = 10_000): Promise<ActiveBundle> {
    const active = this.applier.current();
    if (active) return Promise.resolve(active);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        const why = this.fetcher.lastFetchError ?? 'no answer yet';
        reject(new Error(`no bundle for agent "${this.options.agentId}" within ${timeoutMs} ms: ${why}`));
      }, timeoutMs);
      const off = this.onApplied((bundle) => {
        clearTimeout(timer);
        off();
        resolve(bundle);
      });
    });
  }

  status(): NodeSyncStatus {
    const active = this.applier.current();
    const applied = this.applier.status();
    return {
      revision: active?.revision ?? null,
      servedHash: active?.servedHash ?? null,
      source: applied.source,
      lastFetchAt: this.fetcher.lastFetchAt,
      lastFetchError: this.fetcher.lastFetchError,
      lastRefusal: applied.lastRefusal,
      invalidationsConnected: this.invalidations?.connected ?? false,
      registration: this.registration.status(),
      unservable: applied.unservable,
      fetches: { ...this.fetcher.counts },
    };
  }

  /**
   * Loads the bundle on disk (if any and good), subscribes to invalidations, registers and fetches
   * once. Never fails because the control plane or Redis is down: it keeps trying in the background.
   */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    // The control plane's JWKS when it answers; the last one fetched (on disk) when it does not.
    if (this.pinned) await this.pinned.refresh().catch(() => this.pinned!.loadFromDisk());
    await this.applier.loadFromDisk();
    this.invalidations?.start();
    await this.registration.register();
    await this.refresh();
    const poll = setInterval(() => void this.refresh(), this.options.pollIntervalMs ?? 30_000);
    const beat = setInterval(() => void this.registration.heartbeat(), this.options.heartbeatIntervalMs ?? 10_000);
    poll.unref();
    beat.unref();
    this.timers.push(poll, beat);
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    this.invalidations?.stop();
    await this.loop.stop();
    // The disk copy and the ack still pending (ADR 0280), before the node says it leaves.
    await this.applier.after.flush();
    await this.registration.leave();
    this.api.close();
  }

  /**
   * Fetches now (If-None-Match). Concurrent calls coalesce (RefreshLoop). `pushed`: the delta an
   * announcement carried; the run tries it before fetching.
   */
  refresh(pushed?: string): Promise<RefreshOutcome> {
    return this.loop.refresh(pushed);
  }

  /**
   * Writes the served bundle's disk copy and sends its ack now, rather than within `ackSpreadMs`
   * (ADR 0280); resolves when both are done. stop() does it too.
   */
  settle(): Promise<void> {
    return this.applier.after.flush();
  }

  /**
   * Checks and applies a bundle (JSON text or object). Used for what the control plane sends and
   * what is on disk; exposed so a team can feed bundles from elsewhere (and for tests). An object
   * is deep-frozen first (sealNodeBundle): what is checked is what is served, and cannot change.
   */
  offer(value: unknown, source: BundleSource = 'control-plane'): Promise<RefreshOutcome> {
    return this.applier.take(value, source, true);
  }
}
