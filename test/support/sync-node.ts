import { join } from 'node:path';
import { mintNodeToken } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import { NodeSync, type NodeSyncOptions } from '@cp/node-sdk';

/** Where a suite's nodes sync from; read when a node is made (the suite fills it in beforeAll). */
export interface SyncNodeSite {
  url: string;
  config: AppConfig;
  redisUrl: string;
  /** Each node caches its bundle in `<dir>/<nodeId>`. */
  dir: string;
}

/**
 * A suite's node factory: NodeSync instances of `agentId` against the suite's control plane and
 * Redis, slow timers (polls and heartbeats out of the way of what a test counts), pushed to
 * `started` so afterAll can stop them all. `overrides` per suite, then per node.
 */
export function syncNodeFactory(site: () => SyncNodeSite, agentId: string, started: NodeSync[], defaults: Partial<NodeSyncOptions> = {}) {
  return (nodeId: string, overrides: Partial<NodeSyncOptions> = {}): NodeSync => {
    const { url, config, redisUrl, dir } = site();
    const n = new NodeSync({
      controlPlaneUrl: url,
      nodeToken: mintNodeToken(config, agentId),
      agentId,
      nodeId,
      cacheDir: join(dir, nodeId),
      redisUrl,
      redisKeyPrefix: config.REDIS_KEY_PREFIX,
      pollIntervalMs: 60_000,
      heartbeatIntervalMs: 60_000,
      requestTimeoutMs: 10_000,
      ...defaults,
      ...overrides,
    });
    started.push(n);
    return n;
  };
}
