/**
 * Announcements of the agent's revisions on its Redis changes channel: its own subscriber
 * connection, reconnect with jittered backoff, and a refetch after every reconnect (pub/sub
 * loses what was published meanwhile) spread over `reconnectSpreadMs` so a fleet does not come
 * back in lockstep (ADR 0156). Most announcements carry the delta from the revision announced
 * before (ADR 0199), handed to the refresh. Polling is the safety net when Redis is away.
 */
import type { Cluster, Redis } from 'ioredis';
import { contextFromTraceparent, inSpan, SpanKind, tracingOn } from '@cp/common/core';
import { parseChangeMessage, syncKeys } from '@cp/node-protocol';
import type { ActiveBundle } from '../active-bundle';
import { openInvalidationConnection } from './invalidation-connection';
import type { NodeSyncLogger, RefreshOutcome } from './node-sync-types';

export interface InvalidationListenerOptions {
  redisUrl: string;
  redisClusterNodes?: readonly string[];
  redisKeyPrefix?: string;
  agentId: string;
  nodeId: string;
  reconnectBaseMs?: number;
  reconnectMaxMs?: number;
  reconnectSpreadMs?: number;
}

export class InvalidationListener {
  private subscriber?: Redis | Cluster;
  private ready = false;
  private wasDown = false;
  private spreadTimer?: NodeJS.Timeout;
  private readonly channel: string;

  constructor(
    private readonly options: InvalidationListenerOptions,
    private readonly node: { current: () => ActiveBundle | undefined; refresh: (pushed?: string) => Promise<RefreshOutcome> },
    private readonly log: NodeSyncLogger,
  ) {
    this.channel = syncKeys(options.redisKeyPrefix ?? 'cp:', options.agentId).changes;
  }

  get connected(): boolean {
    return this.ready;
  }

  start(): void {
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
    sub.on(invalidations.messageEvent, (_channel: string, message: string) => this.onMessage(message));
    sub.on('ready', () => {
      this.ready = true;
      // Messages published while we were away are lost (pub/sub): catch up now.
      if (this.wasDown) {
        this.wasDown = false;
        this.log.log?.('invalidations reconnected; refetching');
        // Every node of the fleet sees Redis come back at the same moment: spread the catch-up.
        clearTimeout(this.spreadTimer);
        this.spreadTimer = setTimeout(() => void this.node.refresh(), Math.random() * (this.options.reconnectSpreadMs ?? 1000));
        this.spreadTimer.unref();
      }
    });
    sub.on('close', () => {
      if (this.ready) this.log.warn('invalidations disconnected; reconnecting with backoff (polling meanwhile)');
      this.ready = false;
      this.wasDown = true;
    });
    sub.on('error', (error: Error) => this.log.debug?.(`invalidation connection: ${error.message}`));
    invalidations.subscribe(this.channel).catch((error: Error) => this.log.warn(`cannot subscribe to ${this.channel}: ${error.message}`));
  }

  stop(): void {
    clearTimeout(this.spreadTimer);
    const sub = this.subscriber;
    this.subscriber = undefined;
    this.ready = false;
    sub?.disconnect();
  }

  private onMessage(message: string): void {
    // Skip only what cannot be news: an older or equal revision of the registry epoch we serve.
    const { stamp, traceparent, delta } = parseChangeMessage(message);
    const active = this.node.current();
    const known = stamp && active && stamp.revision <= active.revision && (stamp.epoch === '' || stamp.epoch === (active.epoch ?? ''));
    if (known) return;
    if (!tracingOn() || !traceparent) {
      void this.node.refresh(delta);
      return;
    }
    // The change's trace continues here: this node's fetch and apply of that revision.
    void inSpan(
      'node.sync.apply',
      { 'cp.agent.id': this.options.agentId, 'cp.node.id': this.options.nodeId, 'cp.revision': stamp?.revision ?? -1 },
      async (span) => {
        const outcome = await this.node.refresh(delta);
        span?.setAttribute('cp.sync.outcome', outcome);
        span?.setAttribute('cp.revision.applied', this.node.current()?.revision ?? -1);
      },
      { kind: SpanKind.CONSUMER, parent: contextFromTraceparent(traceparent) },
    );
  }
}
