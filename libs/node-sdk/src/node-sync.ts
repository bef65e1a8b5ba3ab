/**
 * NodeSync: keeps an agent node serving the latest good bundle of its agent, without the control
 * plane on any request path.
 *
 * - One reference (`current()`) to an immutable ActiveBundle, swapped whole: a request that read it
 *   sees one revision from start to end.
 * - A bundle is checked (checkNodeBundle, same agent, revision not older) and its signatures
 *   verified against the pinned JWKS (verifyNodeBundle) before it is applied, from the control
 *   plane and from disk alike; a refused bundle leaves the old one in place and is reported to the
 *   control plane (ack with the reason, shown in the fleet view).
 * - The last good bundle is also on disk (temp file + fsync + rename), so a node restarted while
 *   the control plane is down starts serving from disk.
 * - Invalidations arrive on a Redis pub/sub channel (own subscriber connection, reconnect with
 *   backoff, refetch after every reconnect since messages may have been missed); polling every
 *   `pollIntervalMs` is the safety net. Fetches use If-None-Match, so a no-op costs a 304.
 * - A node that serves a bundle asks for a delta from it (`bundle-delta-base`); the delta is
 *   applied to a copy, the result must hash to the target's contentHash, and is then checked like
 *   a full bundle; a delta that does not apply is followed by one full fetch (ADR 0155).
 * - Announcements arrive on the agent's changes channel, most with the delta from the revision
 *   announced before (ADR 0199): a node serving that revision applies it without a request, with
 *   the same checks and signature verification; a pushed delta it cannot use (another base, does
 *   not apply, refused) costs nothing but the fetch it would have made anyway.
 * - Storms (ADR 0156): retries back off exponentially with full jitter, a 503/429 is retried after
 *   its Retry-After (jittered), and the catch-up fetch after an invalidation reconnect is spread
 *   over `reconnectSpreadMs`, so a fleet does not come back in lockstep.
 *
 * No Nest here: any team's node can use it (see nest/node-sync.module.ts for the Nest wrapper).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Cluster, Redis } from 'ioredis';
import { openInvalidationConnection } from './invalidation-connection';
import { checkNodeBundle, sealNodeBundle, type HandlerDeclaration } from '@cp/capabilities';
import { ActiveBundle, type LazyCardSigning } from './active-bundle';
import {
  applyNodeBundleDelta,
  BUNDLE_DELTA_BASE_HEADER,
  cardSignaturesResultSchema,
  NODE_BUNDLE_DELTA_TYPE,
  nodeApiPaths,
  nodeBundleEtag,
  nodeIdSchema,
  parseChangeMessage,
  syncKeys,
  verifyNodeBundle,
  type AckBody,
  type VerificationKeys,
} from '@cp/node-protocol';
import { PinnedJwks } from './pinned-jwks';
import { ControlPlaneHttp, ControlPlaneRequestError, type ControlPlaneAnswer } from './control-plane-http';
import { contextFromTraceparent, injectTraceHeaders, inSpan, SpanKind, tracingOn } from '@cp/common';

export interface NodeSyncLogger {
  debug?(message: string): void;
  log?(message: string): void;
  warn(message: string): void;
}

export interface NodeSyncOptions {
  /** Base URL of the control plane, e.g. http://127.0.0.1:3000. */
  controlPlaneUrl: string;
  /** A node JWT (token_use node) naming this agent. */
  nodeToken: string;
  agentId: string;
  /** Stable across restarts of the same node (it keys the fleet view). */
  nodeId: string;
  hostname?: string;
  /** Where the last good bundle is kept: `<cacheDir>/<agentId>.bundle.json`. */
  cacheDir: string;
  /** Invalidations; omit to rely on polling alone. */
  redisUrl?: string;
  /** Redis Cluster seed nodes (`host:port`, the control plane's REDIS_CLUSTER_NODES): subscribe on the agent's shard channel. */
  redisClusterNodes?: readonly string[];
  /** Same as the control plane's REDIS_KEY_PREFIX. */
  redisKeyPrefix?: string;
  /** Safety-net poll (default 30 s). */
  pollIntervalMs?: number;
  /** Heartbeat, and retry of an ack that could not be delivered (default 10 s). */
  heartbeatIntervalMs?: number;
  /** Per HTTP request to the control plane: connect, headers and the whole body (default 5 s). */
  requestTimeoutMs?: number;
  /** Largest answer read from the control plane (default 256 MiB); a larger one is a failed fetch, nothing is applied. */
  maxResponseBytes?: number;
  /** Redis reconnect backoff: base and cap of the exponential delay (defaults 50 ms and 2 s). */
  reconnectBaseMs?: number;
  reconnectMaxMs?: number;
  /** After invalidations reconnect, the catch-up fetch waits a random delay up to this (default 1 s). */
  reconnectSpreadMs?: number;
  /** Ask for deltas from the served bundle, and apply those pushed with announcements (default true; false: always the full bundle). */
  deltas?: boolean;
  /** How many classes checkNodeBundle recomputes (default: its own default). */
  classSample?: number;
  /**
   * The keys bundles must be signed with (ADR 0130). Default: the JWKS at `jwksUrl`, else at the
   * control plane's /.well-known/jwks.json, kept on disk next to the bundle. A bundle that is
   * unsigned, tampered with or signed by a key not in it is refused, whatever its source.
   */
  jwks?: VerificationKeys;
  jwksUrl?: string;
  /** Of the default pinned JWKS: how long a fetched JWKS is kept, and the least time between fetches on an unknown kid. */
  jwksCacheMaxAgeMs?: number;
  jwksCooldownMs?: number;
  /**
   * Extended cards of classes past the bundle's limit (ADR 0132): how long a request waits for
   * the control plane's signatures of its class (once per class and revision) before the card
   * goes out unsigned (default 1000 ms; 0: never ask, serve them unsigned).
   */
  cardSigningWaitMs?: number;
  /** After a class could not be signed, it is served unsigned without asking again for this long (default 5000 ms). */
  cardSigningRetryMs?: number;
  /** The handlers this node's code has, reported at register and every heartbeat (issue 14). */
  handlers?: () => HandlerDeclaration[];
  logger?: NodeSyncLogger;
  /** Told every fetch outcome (metrics: NodeMetrics.fetched). */
  onFetched?: (outcome: RefreshOutcome) => void;
}

export type BundleSource = 'control-plane' | 'disk';
export type RefreshOutcome = 'applied' | 'not-modified' | 'refused' | 'unreachable' | 'stopped';
export type AppliedListener = (bundle: ActiveBundle, previous: ActiveBundle | undefined) => void;

export interface NodeSyncStatus {
  revision: number | null;
  servedHash: string | null;
  source: BundleSource | null;
  lastFetchAt: Date | null;
  lastFetchError: string | null;
  /** Why the last refused bundle was refused (the node kept the one it had). */
  lastRefusal: string | null;
  invalidationsConnected: boolean;
  /**
   * Whether the control plane accepted this node's registration. `refused`: it answered with a
   * refusal (bad node id, unknown agent, bad token): retrying the same request cannot help, so the
   * node is not healthy. Not refused and not ok: not answered yet (e.g. the control plane is down).
   */
  registration: RegistrationStatus;
  /** Capabilities of the served bundle whose handler this node lacks (served as temporarily unavailable). */
  unservable: string[];
  /**
   * Bundle fetches by outcome (full bundles, deltas applied, deltas refused and then fetched full,
   * 304s, 503/429s; `unanswered`: no answer read: timed out, refused, reset), and deltas pushed with
   * announcements: `pushed` applied without a request, `pushUnused` not usable here (another base,
   * did not apply or was refused), so the node fetched instead.
   */
  fetches: {
    full: number;
    delta: number;
    deltaRefused: number;
    notModified: number;
    throttled: number;
    unanswered: number;
    pushed: number;
    pushUnused: number;
  };
}

export interface RegistrationStatus {
  ok: boolean;
  refused: boolean;
  error: string | null;
}

const silent: NodeSyncLogger = { warn: () => undefined };

export class NodeSync {
  private active?: ActiveBundle;
  private etag?: string;
  private source: BundleSource | null = null;
  private readonly listeners = new Set<AppliedListener>();
  private inFlight?: Promise<RefreshOutcome>;
  private again = false;
  private subscriber?: Redis | Cluster;
  private subscriberWasDown = false;
  private subscriberReady = false;
  private timers: NodeJS.Timeout[] = [];
  private retryTimer?: NodeJS.Timeout;
  private retryDelayMs = 0;
  private running = false;
  private pendingAck?: AckBody;
  private lastFetchAt: Date | null = null;
  private lastFetchError: string | null = null;
  private lastRefusal: string | null = null;
  private registration: RegistrationStatus = { ok: false, refused: false, error: 'not registered yet' };
  private unservable: string[] = [];
  private readonly fetches = { full: 0, delta: 0, deltaRefused: 0, notModified: 0, throttled: 0, unanswered: 0, pushed: 0, pushUnused: 0 };
  /** The delta that came with the latest announcement, not tried yet (ADR 0199). */
  private pushedDelta?: string;
  /** Set by a 503/429 answer: the next retry waits this long (Retry-After, jittered). */
  private retryAfterMs?: number;
  private spreadTimer?: NodeJS.Timeout;
  private handlers?: () => HandlerDeclaration[];
  private fetched?: (outcome: RefreshOutcome) => void;
  private readonly log: NodeSyncLogger;
  private readonly file: string;
  private readonly channel: string;
  private readonly pinned?: PinnedJwks;
  private readonly keys: VerificationKeys;
  /** Keep-alive HTTP to the control plane (ADR 0194): the bundle GET, the ack and the other POSTs. */
  private readonly http: ControlPlaneHttp;
  /** cacheDir was created (mkdir once, not per bundle; again after a write failed). */
  private cacheDirMade = false;

  constructor(private readonly options: NodeSyncOptions) {
    // The control plane's rule (one rule, @cp/node-protocol): refuse here rather than at every register.
    const nodeId = nodeIdSchema.safeParse(options.nodeId);
    if (!nodeId.success) throw new Error(`nodeId "${options.nodeId}" ${nodeId.error.issues[0]?.message ?? 'is invalid'}`);
    this.log = options.logger ?? silent;
    this.http = new ControlPlaneHttp(options.controlPlaneUrl, {
      timeoutMs: options.requestTimeoutMs,
      maxBodyBytes: options.maxResponseBytes,
    });
    this.file = join(options.cacheDir, `${options.agentId}.bundle.json`);
    this.channel = syncKeys(options.redisKeyPrefix ?? 'cp:', options.agentId).changes;
    this.handlers = options.handlers;
    if (options.jwks) this.keys = options.jwks;
    else {
      this.pinned = new PinnedJwks({
        url: options.jwksUrl ?? `${options.controlPlaneUrl.replace(/\/+$/, '')}/.well-known/jwks.json`,
        file: join(options.cacheDir, `${options.agentId}.jwks.json`),
        cacheMaxAgeMs: options.jwksCacheMaxAgeMs,
        cooldownMs: options.jwksCooldownMs,
        timeoutMs: options.requestTimeoutMs,
      });
      this.keys = this.pinned.getKey;
    }
    this.fetched = options.onFetched;
  }

  /** Sets who is told every fetch outcome (metrics), when the app builds it after NodeSync. */
  onFetched(listener: (outcome: RefreshOutcome) => void): void {
    this.fetched = listener;
  }

  /** Sets where the handler inventory comes from (before start(); apps that build handlers later). */
  useHandlers(handlers: () => HandlerDeclaration[]): void {
    this.handlers = handlers;
  }

  /** The bundle being served, or undefined before the first one (from disk or the control plane). */
  current(): ActiveBundle | undefined {
    return this.active;
  }

  /** Called after every swap, with the new and the previous bundle. Returns an unsubscribe function. */
  onApplied(listener: AppliedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves with the current bundle as soon as there is one. */
  whenReady(timeoutMs = 10_000): Promise<ActiveBundle> {
    if (this.active) return Promise.resolve(this.active);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(
          new Error(`no bundle for agent "${this.options.agentId}" within ${timeoutMs} ms: ${this.lastFetchError ?? 'no answer yet'}`),
        );
      }, timeoutMs);
      const off = this.onApplied((bundle) => {
        clearTimeout(timer);
        off();
        resolve(bundle);
      });
    });
  }

  status(): NodeSyncStatus {
    return {
      revision: this.active?.revision ?? null,
      servedHash: this.active?.servedHash ?? null,
      source: this.source,
      lastFetchAt: this.lastFetchAt,
      lastFetchError: this.lastFetchError,
      lastRefusal: this.lastRefusal,
      invalidationsConnected: this.subscriberReady,
      registration: { ...this.registration },
      unservable: [...this.unservable],
      fetches: { ...this.fetches },
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
    await this.loadFromDisk();
    this.subscribe();
    await this.register();
    await this.refresh();
    const poll = setInterval(() => void this.refresh(), this.options.pollIntervalMs ?? 30_000);
    const beat = setInterval(() => void this.heartbeat(), this.options.heartbeatIntervalMs ?? 10_000);
    poll.unref();
    beat.unref();
    this.timers.push(poll, beat);
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    clearTimeout(this.spreadTimer);
    const sub = this.subscriber;
    this.subscriber = undefined;
    this.subscriberReady = false;
    sub?.disconnect();
    await this.inFlight?.catch(() => undefined);
    // No longer a live node of the agent: plans stop waiting for (or refusing because of) its code.
    await this.post(nodeApiPaths.heartbeat, { nodeId: this.options.nodeId, handlers: this.inventory(), stopping: true });
    this.http.close();
  }

  /**
   * Fetches now (If-None-Match). Concurrent calls coalesce: while a fetch runs, later calls make
   * exactly one more run after it, so an invalidation that arrives mid-fetch is never lost.
   * `pushed`: the delta an announcement carried; the run tries it before fetching. Only the latest
   * announcement's is kept: one without a delta means the next run fetches.
   */
  refresh(pushed?: string): Promise<RefreshOutcome> {
    if (!this.running) return Promise.resolve('stopped');
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
          outcome = (await this.applyPushed()) ?? (await this.fetchOnce());
          this.fetched?.(outcome);
        } while (this.again && this.running);
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

  /**
   * After a failed fetch, retry sooner than the next poll: exponential (250 ms doubling up to the
   * poll interval) with full jitter, or after the Retry-After of a 503/429 (plus up to as much
   * again at random), so a fleet converges quickly once the control plane or its Redis is back
   * without all of it retrying at the same instants.
   */
  private scheduleRetry(outcome: RefreshOutcome): void {
    if (outcome !== 'unreachable' || !this.running) {
      this.retryDelayMs = 0;
      this.retryAfterMs = undefined;
      return;
    }
    if (this.retryTimer) return;
    const poll = this.options.pollIntervalMs ?? 30_000;
    this.retryDelayMs = Math.min(poll, this.retryDelayMs === 0 ? 250 : this.retryDelayMs * 2);
    const delay = this.retryAfterMs !== undefined ? this.retryAfterMs * (1 + Math.random()) : this.retryDelayMs * (0.5 + Math.random() / 2);
    this.retryAfterMs = undefined;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.refresh();
    }, delay);
    this.retryTimer.unref();
  }

  /**
   * Checks and applies a bundle (JSON text or object). Used for what the control plane sends and
   * what is on disk; exposed so a team can feed bundles from elsewhere (and for tests). An object
   * is deep-frozen first (sealNodeBundle): what is checked is what is served, and cannot change.
   */
  offer(value: unknown, source: BundleSource = 'control-plane'): Promise<RefreshOutcome> {
    return this.take(value, source, true);
  }

  /**
   * The pushed delta, when there is one and it leads from the served bundle (ADR 0199): rebuilt,
   * checked and verified exactly as a fetched one. Undefined: not used, so the caller fetches; a
   * refused result is not reported (whoever can publish on the channel could send it), the fetch
   * that follows gets the control plane's answer.
   */
  private async applyPushed(): Promise<RefreshOutcome | undefined> {
    const text = this.pushedDelta;
    this.pushedDelta = undefined;
    const base = this.active;
    if (text === undefined || !base || this.options.deltas === false) return undefined;
    const rebuilt = applyNodeBundleDelta(base.bundle, text);
    if (!rebuilt.ok) {
      this.fetches.pushUnused++;
      this.log.debug?.(`not applying the pushed delta (${rebuilt.error}); fetching`);
      return undefined;
    }
    const outcome = await this.take(rebuilt.bundle, 'control-plane', false);
    if (outcome === 'refused') {
      this.fetches.pushUnused++;
      return undefined;
    }
    this.fetches.pushed++;
    return outcome;
  }

  /** offer(); `report`: a refusal is acked to the control plane (false: only logged, for pushed deltas). */
  private async take(value: unknown, source: BundleSource, report: boolean): Promise<RefreshOutcome> {
    const check = checkNodeBundle(sealNodeBundle(value), this.active, { classSample: this.options.classSample });
    let refusal: string | null = check.ok ? null : check.error;
    if (check.ok && check.bundle.agentId !== this.options.agentId) {
      refusal = `bundle is for agent "${check.bundle.agentId}", this node serves "${this.options.agentId}"`;
    }
    // Signed by the control plane with a key of the pinned JWKS, cards included (ADR 0130).
    if (check.ok && refusal === null) {
      const verified = await verifyNodeBundle(check.bundle, this.keys);
      if (!verified.ok) refusal = `signature ${verified.code}: ${verified.reason}`;
    }
    if (!check.ok || refusal !== null) {
      const from = report ? source : 'a pushed delta';
      if (report) this.lastRefusal = refusal;
      this.log.warn(`refused a bundle from ${from} (keeping revision ${this.active?.revision ?? 'none'}): ${refusal}`);
      if (source === 'control-plane' && report) {
        await this.ack({
          nodeId: this.options.nodeId,
          revision: claimedRevision(value) ?? this.active?.revision ?? 0,
          error: refusal ?? 'refused',
        });
      }
      return 'refused';
    }
    const bundle = check.bundle;
    this.etag = nodeBundleEtag(bundle.revision, bundle.contentHash);
    if (this.active && this.active.servedHash === bundle.contentHash) return 'not-modified';
    const previous = this.active;
    const next = new ActiveBundle(bundle, this.lazyCardSigning());
    this.active = next; // the one atomic swap
    this.source = source;
    this.lastRefusal = null;
    this.unservable = this.unservableOf(next);
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
    if (source === 'control-plane') {
      await this.persist(typeof value === 'string' ? value : JSON.stringify(bundle));
    }
    await this.ack({ nodeId: this.options.nodeId, revision: next.revision, servedHash: next.servedHash, unservable: this.unservable });
    return 'applied';
  }

  /** What a bundle's lazily computed classes are signed with: the control plane's answer, verified with the pinned keys. */
  private lazyCardSigning(): LazyCardSigning | undefined {
    const waitMs = this.options.cardSigningWaitMs ?? 1000;
    if (waitMs <= 0) return undefined;
    return {
      keys: this.keys,
      waitMs,
      retryAfterMs: this.options.cardSigningRetryMs,
      signatures: (revision, classKey) => this.cardSignatures(revision, classKey),
      onFailure: (classKey, reason) => this.log.warn(`serving the extended card of class ${classKey.slice(0, 200)} unsigned: ${reason}`),
    };
  }

  /** POST card-signatures: the signatures of one class's card at this revision (ADR 0132). */
  private async cardSignatures(revision: number, classKey: string): Promise<unknown[] | null> {
    const { status, text } = await this.http
      .send('POST', nodeApiPaths.cardSignatures, this.postHeaders(), JSON.stringify({ revision, classKey }))
      .catch((error: unknown) => {
        throw new Error(`POST ${nodeApiPaths.cardSignatures} failed: ${describeError(error)}`);
      });
    if (status < 200 || status > 299) throw new Error(`POST ${nodeApiPaths.cardSignatures} answered ${status}: ${text.slice(0, 300)}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`POST ${nodeApiPaths.cardSignatures} answered something that is not JSON`);
    }
    const result = cardSignaturesResultSchema.safeParse(parsed);
    if (!result.success || result.data.revision !== revision || result.data.classKey !== classKey) {
      throw new Error(`POST ${nodeApiPaths.cardSignatures} answered signatures of another shape, revision or class`);
    }
    return result.data.signatures;
  }

  private async fetchOnce(full = false): Promise<RefreshOutcome> {
    const headers: Record<string, string> = injectTraceHeaders({
      authorization: `Bearer ${this.options.nodeToken}`,
      accept: 'application/json',
    });
    if (this.etag) headers['if-none-match'] = this.etag;
    const base = this.active;
    if (!full && base && this.options.deltas !== false) headers[BUNDLE_DELTA_BASE_HEADER] = nodeBundleEtag(base.revision, base.servedHash);
    let response: ControlPlaneAnswer;
    try {
      response = await this.http.send('GET', nodeApiPaths.bundle, headers);
    } catch (error) {
      this.fetches.unanswered++;
      return this.unreachable(`control plane unreachable: ${describeError(error)}`);
    }
    this.lastFetchAt = new Date();
    // The control plane answers again after being away: register now rather than at the next
    // heartbeat, so usage reports (which need a registered node) are not refused meanwhile.
    if (!this.registration.ok && !this.registration.refused) void this.register();
    if (response.status === 304) {
      this.fetches.notModified++;
      this.lastFetchError = null;
      return 'not-modified';
    }
    const text = response.text;
    if (response.status === 503 || response.status === 429) {
      this.fetches.throttled++;
      const seconds = Number(response.headers['retry-after']);
      // A bounded wait: a wrong or hostile header must not park the node past its poll interval.
      if (Number.isFinite(seconds) && seconds > 0) this.retryAfterMs = Math.min(seconds * 1000, this.options.pollIntervalMs ?? 30_000);
    }
    // Redirects are not followed (ADR 0194): a 3xx is a failed fetch like any other status.
    if (response.status !== 200) return this.unreachable(`GET bundle answered ${response.status}: ${text.slice(0, 300)}`);
    this.lastFetchError = null;
    if (base && response.headers['content-type']?.startsWith(NODE_BUNDLE_DELTA_TYPE)) {
      const rebuilt = applyNodeBundleDelta(base.bundle, text);
      if (!rebuilt.ok) {
        this.fetches.deltaRefused++;
        this.log.warn(`refused a delta from revision ${base.revision} (${rebuilt.error}); fetching the full bundle`);
        return this.fetchOnce(true);
      }
      this.fetches.delta++;
      return this.offer(rebuilt.bundle, 'control-plane');
    }
    this.fetches.full++;
    return this.offer(text, 'control-plane');
  }

  private unreachable(message: string): RefreshOutcome {
    if (this.lastFetchError !== message) this.log.warn(`${message}; serving revision ${this.active?.revision ?? 'none'}`);
    this.lastFetchError = message;
    return 'unreachable';
  }

  private async loadFromDisk(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.log.warn(`cannot read ${this.file}: ${describeError(error)}`);
      return;
    }
    await this.offer(text, 'disk');
  }

  /** temp file + fsync + rename: a crash leaves either the old file or the new one, never half. */
  private async persist(text: string): Promise<void> {
    const tmp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      if (!this.cacheDirMade) await mkdir(this.options.cacheDir, { recursive: true });
      this.cacheDirMade = true;
      const handle = await open(tmp, 'w');
      try {
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(tmp, this.file);
    } catch (error) {
      this.cacheDirMade = false;
      this.log.warn(`cannot persist the bundle to ${this.file}: ${describeError(error)}`);
      await rm(tmp, { force: true }).catch(() => undefined);
    }
  }

  private subscribe(): void {
    if (!this.options.redisUrl) return;
    const base = this.options.reconnectBaseMs ?? 50;
    const cap = this.options.reconnectMaxMs ?? 2000;
    const invalidations = openInvalidationConnection({
      redisUrl: this.options.redisUrl,
      redisClusterNodes: this.options.redisClusterNodes,
      connectionName: `node-sync:${this.options.nodeId}`,
      // Full jitter keeps a fleet from reconnecting in lockstep after a Redis restart.
      retryStrategy: (attempt) => Math.round(Math.min(cap, base * 2 ** Math.min(attempt, 16)) * (0.5 + Math.random() / 2)),
    });
    const sub = invalidations.connection;
    this.subscriber = sub;
    sub.on(invalidations.messageEvent, (_channel: string, message: string) => {
      // Skip only what cannot be news: an older or equal revision of the registry epoch we serve.
      const { stamp, traceparent, delta } = parseChangeMessage(message);
      const active = this.active;
      const known = stamp && active && stamp.revision <= active.revision && (stamp.epoch === '' || stamp.epoch === (active.epoch ?? ''));
      if (known) return;
      if (!tracingOn() || !traceparent) {
        void this.refresh(delta);
        return;
      }
      // The change's trace continues here: this node's fetch and apply of that revision.
      void inSpan(
        'node.sync.apply',
        { 'cp.agent.id': this.options.agentId, 'cp.node.id': this.options.nodeId, 'cp.revision': stamp?.revision ?? -1 },
        async (span) => {
          const outcome = await this.refresh(delta);
          span?.setAttribute('cp.sync.outcome', outcome);
          span?.setAttribute('cp.revision.applied', this.active?.revision ?? -1);
        },
        { kind: SpanKind.CONSUMER, parent: contextFromTraceparent(traceparent) },
      );
    });
    sub.on('ready', () => {
      this.subscriberReady = true;
      // Messages published while we were away are lost (pub/sub): catch up now.
      if (this.subscriberWasDown) {
        this.subscriberWasDown = false;
        this.log.log?.('invalidations reconnected; refetching');
        // Every node of the fleet sees Redis come back at the same moment: spread the catch-up.
        clearTimeout(this.spreadTimer);
        this.spreadTimer = setTimeout(() => void this.refresh(), Math.random() * (this.options.reconnectSpreadMs ?? 1000));
        this.spreadTimer.unref();
      }
    });
    sub.on('close', () => {
      if (this.subscriberReady) this.log.warn('invalidations disconnected; reconnecting with backoff (polling meanwhile)');
      this.subscriberReady = false;
      this.subscriberWasDown = true;
    });
    sub.on('error', (error: Error) => this.log.debug?.(`invalidation connection: ${error.message}`));
    invalidations.subscribe(this.channel).catch((error: Error) => this.log.warn(`cannot subscribe to ${this.channel}: ${error.message}`));
  }

  /** Registers (again): at start, and with each heartbeat until the control plane has accepted it. */
  private async register(): Promise<void> {
    const answer = await this.send(nodeApiPaths.register, {
      nodeId: this.options.nodeId,
      hostname: this.options.hostname,
      handlers: this.inventory(),
    });
    if (answer.ok) this.registration = { ok: true, refused: false, error: null };
    else if (answer.status !== undefined) {
      const error = `POST ${nodeApiPaths.register} answered ${answer.status}: ${answer.detail}`;
      if (error !== this.registration.error) this.log.warn(`this node is not registered: ${error}`);
      this.registration = { ok: false, refused: true, error };
    } else this.registration = { ok: false, refused: false, error: `POST ${nodeApiPaths.register} failed: ${answer.detail}` };
  }

  private inventory(): HandlerDeclaration[] | undefined {
    return this.handlers?.();
  }

  /** Without an inventory the node cannot tell, and claims nothing. */
  private unservableOf(bundle: ActiveBundle): string[] {
    const inventory = this.inventory();
    if (!inventory) return [];
    const have = new Set(inventory.map((h) => h.id));
    return bundle.policy.entries.filter((e) => !have.has(e.handler)).map((e) => e.capabilityId);
  }

  private async heartbeat(): Promise<void> {
    if (!this.registration.ok) await this.register();
    const ok = await this.post(nodeApiPaths.heartbeat, { nodeId: this.options.nodeId, handlers: this.inventory() });
    if (ok && this.pendingAck) await this.ack(this.pendingAck);
  }

  /** Undelivered acks are kept (the latest only) and retried with the heartbeat. */
  private async ack(body: AckBody): Promise<void> {
    this.pendingAck = body;
    if (await this.post(nodeApiPaths.ack, body)) {
      if (this.pendingAck === body) this.pendingAck = undefined;
    }
  }

  private async post(path: string, body: unknown): Promise<boolean> {
    const answer = await this.send(path, body);
    if (!answer.ok && answer.status !== undefined) this.log.warn(`POST ${path} answered ${answer.status}: ${answer.detail}`);
    if (!answer.ok && answer.status === undefined) this.log.debug?.(`POST ${path} failed: ${answer.detail}`);
    return answer.ok;
  }

  /** One POST; `status` is undefined when there was no answer (unreachable, timeout). */
  private async send(path: string, body: unknown): Promise<{ ok: boolean; status?: number; detail: string }> {
    try {
      const { status, text } = await this.http.send('POST', path, this.postHeaders(), JSON.stringify(body));
      return { ok: status >= 200 && status <= 299, status, detail: text.slice(0, 300) };
    } catch (error) {
      return { ok: false, detail: describeError(error) };
    }
  }

  private postHeaders(): Record<string, string> {
    return injectTraceHeaders({ authorization: `Bearer ${this.options.nodeToken}`, 'content-type': 'application/json' });
  }
}

function claimedRevision(value: unknown): number | undefined {
  try {
    const parsed = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
    const revision = (parsed as { revision?: unknown } | null)?.revision;
    return typeof revision === 'number' && Number.isInteger(revision) && revision >= 0 ? revision : undefined;
  } catch {
    return undefined;
  }
}

function describeError(error: unknown): string {
  if (error instanceof ControlPlaneRequestError) return error.message;
  const e = error as Error & { cause?: { code?: string; message?: string } };
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(error);
}
