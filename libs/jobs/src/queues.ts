import { connectRedis, isRedisCluster, redisUrlOptions, type AppConfig } from '@cp/common';

/** The retirement queue: one job = one run over every agent. */
export const RETIREMENT_QUEUE = 'retirement';
/** Name of the job a run is enqueued as (by the scheduler or on demand). */
export const RETIREMENT_JOB = 'retirement-run';
/** Id of the repeatable job scheduler (upserting it by id keeps exactly one schedule). */
export const RETIREMENT_SCHEDULER_ID = 'retirement-daily';

/** Deprecation notices (issue 21): a periodic scan finds due notices; one deliver job per notice (job id = notice id). */
export const NOTICES_QUEUE = 'deprecation-notices';
export const NOTICE_SCAN_JOB = 'notice-scan';
export const NOTICE_DELIVER_JOB = 'notice-deliver';
export const NOTICE_SCHEDULER_ID = 'deprecation-notices-scan';
export type NoticeJobData = { kind: 'scan' } | { kind: 'deliver'; noticeId: string };

export type RetirementTrigger = 'schedule' | 'manual';

export interface RetirementJobData {
  trigger: RetirementTrigger;
  /** Set when the run record was created by whoever enqueued it (manual runs). */
  runId?: string;
  requestedBy?: string;
}

/**
 * BullMQ key prefix: under the process's REDIS_KEY_PREFIX, so every suite (and deployment)
 * that sets its own prefix gets its own queues. A QueueEvents must use the same prefix.
 * The whole prefix is a hash tag (`{cp:bull}`): BullMQ's Lua scripts touch several keys of a
 * queue, which Redis Cluster allows only within one slot (ADR 0151).
 */
export function bullPrefix(config: Pick<AppConfig, 'REDIS_KEY_PREFIX'>): string {
  return `{${config.REDIS_KEY_PREFIX}bull}`;
}

/**
 * Connection OPTIONS for one Redis (not an ioredis instance): BullMQ then opens and closes its
 * own connections, so nothing is left open when the app closes. In cluster mode BullMQ needs a
 * Cluster instance instead; the caller owns it and must close it (`bullClusterConnection`).
 */
export function bullConnection(config: Pick<AppConfig, 'REDIS_URL'>) {
  return redisUrlOptions(config.REDIS_URL);
}

/** The connection BullMQ is given: options for one Redis, or a Cluster the caller closes. */
export function bullConnectionFor(config: Pick<AppConfig, 'REDIS_URL' | 'REDIS_CLUSTER_NODES'>, name: string) {
  return isRedisCluster(config) ? connectRedis(config, name, { blocking: true }) : bullConnection(config);
}
