import { Cluster, Redis } from 'ioredis';

/** Where a node hears its agent's revisions: one Redis, or a Redis Cluster's shard channel. */
export interface InvalidationConnectionOptions {
  redisUrl: string;
  /** Redis Cluster seed nodes (`host:port`); REDIS_URL then gives only credentials and TLS. */
  redisClusterNodes?: readonly string[];
  connectionName: string;
  retryStrategy: (attempt: number) => number;
}

export interface InvalidationConnection {
  connection: Redis | Cluster;
  /** The event messages arrive as: 'message', or 'smessage' for a shard channel. */
  messageEvent: 'message' | 'smessage';
  subscribe(channel: string): Promise<unknown>;
}

/**
 * The node's subscriber. On Redis Cluster the control plane SPUBLISHes each agent's revisions to
 * a shard channel (its `{agent}` hash tag puts it in the slot of the agent's sync keys, ADR 0151),
 * so a node SSUBSCRIBEs on the one shard that owns it and the other shards never carry its
 * messages; ioredis moves the subscription when that shard's master fails over.
 */
export function openInvalidationConnection(options: InvalidationConnectionOptions): InvalidationConnection {
  const url = new URL(options.redisUrl);
  if (!options.redisClusterNodes?.length) {
    const connection = new Redis(options.redisUrl, {
      connectionName: options.connectionName,
      lazyConnect: true,
      maxRetriesPerRequest: null,
      autoResubscribe: true,
      retryStrategy: options.retryStrategy,
    });
    return { connection, messageEvent: 'message', subscribe: (channel) => connection.subscribe(channel) };
  }
  const connection = new Cluster(
    options.redisClusterNodes.map((node) => {
      const colon = node.lastIndexOf(':');
      return { host: node.slice(0, colon), port: Number(node.slice(colon + 1)) };
    }),
    {
      shardedSubscribers: true,
      clusterRetryStrategy: options.retryStrategy,
      retryDelayOnFailover: 100,
      retryDelayOnClusterDown: 100,
      redisOptions: {
        connectionName: options.connectionName,
        username: url.username ? decodeURIComponent(url.username) : undefined,
        password: url.password ? decodeURIComponent(url.password) : undefined,
        tls: url.protocol === 'rediss:' ? {} : undefined,
        maxRetriesPerRequest: null,
        autoResubscribe: true,
      },
    },
  );
  return { connection, messageEvent: 'smessage', subscribe: (channel) => connection.ssubscribe(channel) };
}
