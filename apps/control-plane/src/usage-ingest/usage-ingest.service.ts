import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Registry } from 'prom-client';
import type { NodePrincipal } from '@cp/auth';
import { isPastBatchIdRetention, type ValidationIssue } from '@cp/capabilities';
import { InjectConfig, MetricsRegistryToken, serverCounter, type AppConfig } from '@cp/common';
import { NodeHttpError } from '../node-auth/node-http-error';
import { Clock } from '@cp/jobs';
import { ANONYMOUS_TENANT, outcomeTotal, usageBatchSchema, type UsageBatchBody, type UsageIngestResult } from '@cp/node-protocol';
import { invalidNodeBody, parseNodeBody } from '../node-auth/parse-node-body';
import { UsageIngestError, UsageIngestErrorCode } from './usage-ingest.errors';
import { UsageIngestRepository, type BucketIncrement } from './usage-ingest.repository';
import { aggregateHealth } from './health-increments';

/** A node's clock may be this far off ours: a window ending later than now, or starting earlier than the agent's creation, by more is refused. */
const MAX_CLOCK_SKEW_MS = 5 * 60_000;
/** One batch covers one flush window (a minute by default): a longer claim of coverage is refused. */
const MAX_WINDOW_MS = 86_400_000;

export type IngestResult = UsageIngestResult;

/** Validates a node's usage batch and records it exactly once. */
@Injectable()
export class UsageIngestService {
  private readonly retentionMs: number;

  constructor(
    private readonly repository: UsageIngestRepository,
    private readonly clock: Clock,
    @InjectConfig() config: AppConfig,
    @Optional() @Inject(MetricsRegistryToken) private readonly metrics?: Registry,
  ) {
    this.retentionMs = config.USAGE_BATCH_RETENTION_DAYS * 86_400_000;
  }

  async ingest(principal: NodePrincipal, body: unknown): Promise<IngestResult> {
    try {
      const result = await this.record(principal, body);
      if (this.metrics)
        serverCounter(this.metrics, 'usageIngest')
          .labels(result.duplicate ? 'duplicate' : 'recorded')
          .inc();
      return result;
    } catch (error) {
      if (this.metrics)
        serverCounter(this.metrics, 'usageIngest')
          .labels(error instanceof NodeHttpError ? 'refused' : 'failed')
          .inc();
      throw error;
    }
  }

  private async record(principal: NodePrincipal, body: unknown): Promise<IngestResult> {
    const batch = this.parse(body);
    const windowStart = new Date(batch.windowStart);
    const windowEnd = new Date(batch.windowEnd);
    const now = this.clock.now();
    const issues = this.windowIssues(batch, windowStart, windowEnd, now);
    if (issues.length > 0) throw invalid(issues);

    // Every name the batch uses must be in the registry: tenants, the node (for this agent), capabilities.
    const capabilityIds = [...new Set(batch.counts.map((c) => c.capabilityId))];
    const tenantIds = [...new Set(batch.counts.map((c) => c.tenant))].filter((t) => t !== ANONYMOUS_TENANT);
    const known = await this.repository.context(principal.agentId, batch.nodeId, capabilityIds, tenantIds);
    if (known.agentCreatedAt && windowStart.getTime() < known.agentCreatedAt.getTime() - MAX_CLOCK_SKEW_MS)
      issues.push({ path: '$.windowStart', message: `is before the agent existed (${known.agentCreatedAt.toISOString()})` });
    if (!known.nodeRegistered)
      issues.push({ path: '$.nodeId', message: 'is not a registered node of this agent (POST /node/v1/register first)' });
    batch.counts.forEach((c, i) => {
      if (c.tenant !== ANONYMOUS_TENANT && !known.tenants.has(c.tenant))
        issues.push({ path: `$.counts[${i}].tenant`, message: 'is not a known tenant' });
    });
    if (issues.length > 0) throw invalid(issues);
    const refused = new Set<string>();
    const capabilityIssues = batch.counts.flatMap((c, i): ValidationIssue[] => {
      const capability = known.capabilities.get(c.capabilityId);
      const path = `$.counts[${i}].capabilityId`;
      if (capability && !(capability.removedAt && capability.removedAt.getTime() <= windowStart.getTime())) return [];
      refused.add(c.capabilityId);
      if (!capability) return [{ path, message: `"${c.capabilityId}" is not a capability of this agent` }];
      return [{ path, message: `"${c.capabilityId}" was removed (${capability.removedAt!.toISOString()}) before the window started` }];
    });
    if (capabilityIssues.length > 0) {
      throw new UsageIngestError(
        UsageIngestErrorCode.UnknownCapability,
        `not capabilities of this agent during the window: ${[...refused].join(', ')}`,
        capabilityIssues,
      );
    }

    const outcome = await this.repository.record({
      batchId: batch.batchId.toLowerCase(),
      nodeId: batch.nodeId,
      agentId: principal.agentId,
      windowStart,
      windowEnd,
      final: batch.final ?? false,
      entries: batch.counts.length,
      calls: batch.counts.reduce((sum, c) => sum + c.count, 0),
      increments: aggregate(batch),
      health: aggregateHealth(batch),
      receivedAt: now,
    });
    switch (outcome.kind) {
      case 'recorded':
        return { accepted: true, duplicate: false };
      case 'duplicate':
        return { accepted: true, duplicate: true };
      case 'unknown-node':
        throw invalid([{ path: '$.nodeId', message: 'is not a registered node of this agent (POST /node/v1/register first)' }]);
      case 'batch-id-reused':
        throw new UsageIngestError(
          UsageIngestErrorCode.BatchIdReused,
          `batch "${batch.batchId}" was already sent by another node: batch ids must be unique`,
          [{ path: '$.batchId', message: 'already used by another node' }],
        );
    }
  }

  /** The window must lie between the retention horizon and now (plus clock skew), and contain its calls. */
  private windowIssues(batch: UsageBatchBody, windowStart: Date, windowEnd: Date, now: Date): ValidationIssue[] {
    const issues: ValidationIssue[] = [];
    const retentionDays = this.retentionMs / 86_400_000;
    const refusedAsOld = `is older than the ${retentionDays}-day window in which batch ids are kept: refused, because a retry could no longer be told apart`;
    if (windowEnd < windowStart) issues.push({ path: '$.windowEnd', message: 'must not be before windowStart' });
    if (windowEnd.getTime() - windowStart.getTime() > MAX_WINDOW_MS)
      issues.push({ path: '$.windowStart', message: 'the window must not be longer than one day' });
    if (windowEnd.getTime() > now.getTime() + MAX_CLOCK_SKEW_MS)
      issues.push({ path: '$.windowEnd', message: `is in the future (now is ${now.toISOString()})` });
    // The one cutoff the pruning job uses too (batchIdRetentionCutoff): the two must agree.
    if (isPastBatchIdRetention(windowEnd, now, retentionDays)) issues.push({ path: '$.windowEnd', message: refusedAsOld });
    if (isPastBatchIdRetention(windowStart, now, retentionDays)) issues.push({ path: '$.windowStart', message: refusedAsOld });
    batch.counts.forEach((c, i) => {
      const last = new Date(c.lastCallAt);
      if ((c.count > 0 || outcomeTotal(c.outcomes) > 0) && (last < windowStart || last > windowEnd))
        issues.push({ path: `$.counts[${i}].lastCallAt`, message: 'must lie inside the window [windowStart, windowEnd]' });
    });
    return issues;
  }

  private parse(body: unknown): UsageBatchBody {
    return parseNodeBody(usageBatchSchema, body, 'usage batch');
  }
}

/** Counts land in daily UTC buckets, by the day of the last call (the bucket's latest call is then always inside its day). */
function aggregate(batch: UsageBatchBody): BucketIncrement[] {
  const byKey = new Map<string, BucketIncrement>();
  for (const c of batch.counts) {
    if (c.count === 0) continue;
    const lastCallAt = new Date(c.lastCallAt);
    const day = lastCallAt.toISOString().slice(0, 10);
    const key = `${c.capabilityId}\u0000${c.tenant}\u0000${day}`;
    const existing = byKey.get(key);
    if (existing) {
      existing.count += c.count;
      if (lastCallAt > existing.lastCallAt) existing.lastCallAt = lastCallAt;
    } else {
      byKey.set(key, { capabilityId: c.capabilityId, tenantId: c.tenant, day, count: c.count, lastCallAt });
    }
  }
  return [...byKey.values()];
}

function invalid(issues: ValidationIssue[]) {
  return invalidNodeBody('usage batch', issues);
}
