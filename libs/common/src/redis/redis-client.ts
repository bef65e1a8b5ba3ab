import type { Cluster, Redis } from 'ioredis';

/**
 * A command connection: one Redis instance or a Redis Cluster (REDIS_CLUSTER_NODES). Both speak
 * the same commands; what differs is that every multi-key command and script must keep its keys
 * in one hash slot (the `{…}` hash tags of each key layout, ADR 0151).
 */
export type RedisClient = Redis | Cluster;
