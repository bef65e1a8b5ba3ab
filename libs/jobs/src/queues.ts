import type { AppConfig } from '@cp/common';

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
 */
export function bullPrefix(config: Pick<AppConfig, 'REDIS_KEY_PREFIX'>): string {
  return `${config.REDIS_KEY_PREFIX}bull`;
}

/**
 * Connection OPTIONS (not an ioredis instance): BullMQ then opens and closes its own
 * connections, so nothing is left open when the app closes.
 */
export function bullConnection(config: Pick<AppConfig, 'REDIS_URL'>) {
  const url = new URL(config.REDIS_URL);
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
