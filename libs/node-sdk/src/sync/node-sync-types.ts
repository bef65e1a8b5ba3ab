/** The sync client's public types: NodeSync's options, status and events (unchanged by the split, issue 29). */
import type { HandlerDeclaration } from '@cp/capabilities';
import type { VerificationKeys } from '@cp/node-protocol';
import type { ActiveBundle } from '../active-bundle';

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
  /**
   * A bundle the sync fetched or was pushed is served at once; its disk copy and its ack follow
   * within a random delay up to this, coalesced with any later apply (default 500 ms; 0: at once;
   * ADR 0280). offer() writes before it resolves whatever this is.
   */
  ackSpreadMs?: number;
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
  fetches: FetchCounts;
}

export interface FetchCounts {
  full: number;
  delta: number;
  deltaRefused: number;
  notModified: number;
  throttled: number;
  unanswered: number;
  pushed: number;
  pushUnused: number;
}

export interface RegistrationStatus {
  ok: boolean;
  refused: boolean;
  error: string | null;
}
