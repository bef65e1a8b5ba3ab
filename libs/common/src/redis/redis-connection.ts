import { Cluster, Redis, type ClusterNode, type RedisOptions } from 'ioredis';
import type { AppConfig } from '../config/config';
import type { RedisClient } from './redis-client';

type RedisConfig = Pick<AppConfig, 'REDIS_URL' | 'REDIS_CLUSTER_NODES'>;

/** Whether this deployment talks to a Redis Cluster (REDIS_CLUSTER_NODES set). */
export function isRedisCluster(config: Pick<AppConfig, 'REDIS_CLUSTER_NODES'>): boolean {
  return (config.REDIS_CLUSTER_NODES?.length ?? 0) > 0;
}

/** Credentials, TLS and database from REDIS_URL (in cluster mode its host is not used). */
export function redisUrlOptions(redisUrl: string): Pick<RedisOptions, 'host' | 'port' | 'username' | 'password' | 'db' | 'tls'> {
  const url = new URL(redisUrl);
  const db = url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0;
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : 6379,
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    db: Number.isFinite(db) ? db : 0,
    tls: url.protocol === 'rediss:' ? {} : undefined,
  };
}

/** `host:port` seed nodes (validated by the config). */
export function clusterNodes(nodes: readonly string[]): ClusterNode[] {
  return nodes.map((node) => {
    const colon = node.lastIndexOf(':');
    return { host: node.slice(0, colon), port: Number(node.slice(colon + 1)) };
  });
}

const backoff = (attempt: number) => Math.min(50 * 2 ** Math.min(attempt, 16), 2000);

/**
 * A command connection to Redis or to a Redis Cluster, by configuration. In cluster mode ioredis
 * follows MOVED/ASK redirections, refreshes the slot map when a master fails over, and retries a
 * command that met a failover (TRYAGAIN, CLUSTERDOWN, a closed node) after a short delay.
 * `sharded`: the connection will SSUBSCRIBE (one subscriber per shard, Redis ≥ 7). `blocking`: for
 * BullMQ, whose commands wait out a disconnection. `autoPipelining`: commands issued in one
 * event-loop turn go out in one write (per cluster node), ADR 0195; for a connection of its own.
 */
export function connectRedis(
  config: RedisConfig,
  name: string,
  options: { sharded?: boolean; blocking?: boolean; autoPipelining?: boolean } = {},
): RedisClient {
  const { host, port, db, ...auth } = redisUrlOptions(config.REDIS_URL);
  const common = {
    connectionName: name,
    // Commands fail fast while disconnected instead of queueing forever; callers decide. BullMQ's
    // connections (`blocking`) must wait instead: it requires maxRetriesPerRequest null.
    maxRetriesPerRequest: options.blocking ? null : 2,
    lazyConnect: false,
  } satisfies RedisOptions;
  const enableAutoPipelining = options.autoPipelining ?? false;
  if (!isRedisCluster(config))
    return tracked(new Redis({ host, port, db, ...auth, ...common, enableAutoPipelining, retryStrategy: backoff }));
  return tracked(
    new Cluster(clusterNodes(config.REDIS_CLUSTER_NODES!), {
      redisOptions: { ...auth, ...common },
      clusterRetryStrategy: backoff,
      // A failed master's replica takes over within the cluster's node timeout: keep retrying.
      retryDelayOnFailover: 100,
      retryDelayOnClusterDown: 100,
      retryDelayOnTryAgain: 100,
      maxRedirections: 32,
      scaleReads: 'master',
      shardedSubscribers: options.sharded ?? false,
      enableAutoPipelining,
    }),
  );
}

/** Connections that lost (or never made) their connection and are not ready again since. */
const lost = new WeakSet<object>();

function tracked<T extends RedisClient>(client: T): T {
  client.on('close', () => lost.add(client));
  client.on('ready', () => lost.delete(client));
  return client;
}

/**
 * Whether Redis is away for this connection: commands would wait for a reconnection, so a caller
 * that must answer now sheds instead. A connection still making its first connection is not away
 * (a slow but present Redis, as on a loaded machine at boot): its commands wait in ioredis's
 * offline queue, bounded by the connect timeout. A connection that lost its connection (or whose
 * first attempt failed) is away until it is ready again. Connections not made by connectRedis are
 * judged by their status alone.
 */
export function redisAway(client: Pick<RedisClient, 'status'>): boolean {
  switch (client.status) {
    case 'ready':
      return false;
    case 'wait':
    case 'connecting':
    case 'connect':
      return lost.has(client);
    default:
      return true;
  }
}

/**
 * Closes a connection at shutdown: QUIT when it is up (pending replies are read first), else
 * dropped at once. QUIT on a connection that is reconnecting would wait for it, forever for a
 * BullMQ connection (maxRetriesPerRequest null).
 */
export async function closeRedis(client: Pick<RedisClient, 'status' | 'quit' | 'disconnect'>): Promise<void> {
  if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
  else client.disconnect();
}
