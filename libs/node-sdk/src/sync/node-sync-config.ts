import { hostname } from 'node:os';
import type { AppConfig } from '@cp/common/core';
import type { NodeSyncLogger, NodeSyncOptions } from './node-sync-types';

/**
 * NodeSync options from the app config. The node token is NODE_TOKEN; outside production a node
 * without one mints its own from JWT_SECRET (`mint`), so `npm start` works with no setup.
 */
export function nodeSyncOptionsFromConfig(
  config: AppConfig,
  extra: { mint?: (config: AppConfig, agentId: string) => string; logger?: NodeSyncLogger } = {},
): NodeSyncOptions {
  let nodeToken = config.NODE_TOKEN;
  if (!nodeToken) {
    if (config.NODE_ENV === 'production' || !extra.mint) throw new Error('NODE_TOKEN: a node token for this agent is required');
    nodeToken = extra.mint(config, config.AGENT_ID);
  }
  return {
    controlPlaneUrl: config.CONTROL_PLANE_URL,
    nodeToken,
    agentId: config.AGENT_ID,
    // Stable across restarts of the same node by default: the fleet view keys on it.
    nodeId: config.NODE_ID ?? `${hostname()}:${config.AGENT_NODE_PORT}`,
    hostname: hostname(),
    cacheDir: config.NODE_CACHE_DIR,
    redisUrl: config.REDIS_URL,
    redisClusterNodes: config.REDIS_CLUSTER_NODES,
    redisKeyPrefix: config.REDIS_KEY_PREFIX,
    pollIntervalMs: config.NODE_POLL_INTERVAL_MS,
    jwksUrl: config.SIGNING_JWKS_URL,
    jwksCacheMaxAgeMs: config.SIGNING_JWKS_CACHE_SECONDS * 1000,
    jwksCooldownMs: config.SIGNING_JWKS_COOLDOWN_MS,
    cardSigningWaitMs: config.NODE_CARD_SIGNING_WAIT_MS,
    logger: extra.logger,
  };
}
