import { Injectable } from '@nestjs/common';
import type { NodePrincipal } from '@cp/auth';
import { isPastBatchIdRetention, type ValidationIssue } from '@cp/capabilities';
import { InjectConfig, type AppConfig } from '@cp/common';
import { Clock } from '@cp/jobs';
import { usageBatchSchema, type UsageBatchBody } from './dto/usage-batch.schema';
import { UsageIngestError, UsageIngestErrorCode } from './usage-ingest.errors';
import { UsageIngestRepository, type BucketIncrement } from './usage-ingest.repository';

/** A node's clock may run this far ahead of ours; a window ending later is refused. */
const MAX_CLOCK_SKEW_MS = 5 * 60_000;

export interface IngestResult {
  accepted: true;
  duplicate: boolean;
}

/** Validates a node's usage batch and records it exactly once. */
@Injectable()
export class UsageIngestService {
  private readonly retentionMs: number;

  constructor(
    private readonly repository: UsageIngestRepository,
    private readonly clock: Clock,
    @InjectConfig() config: AppConfig,
  ) {
    this.retentionMs = config.USAGE_BATCH_RETENTION_DAYS * 86_400_000;
  }

  async ingest(principal: NodePrincipal, body: unknown): Promise<IngestResult> {
    const batch = this.parse(body);
    const windowStart = new Date(batch.windowStart);
    const windowEnd = new Date(batch.windowEnd);
    const now = this.clock.now();
    const issues: ValidationIssue[] = [];
    if (windowEnd < windowStart) issues.push({ path: '$.windowEnd', message: 'must not be before windowStart' });
    if (windowEnd.getTime() > now.getTime() + MAX_CLOCK_SKEW_MS)
      issues.push({ path: '$.windowEnd', message: `is in the future (now is ${now.toISOString()})` });
    if (isPastBatchIdRetention(windowEnd, now, this.retentionMs / 86_400_000))
      issues.push({
        path: '$.windowEnd',
        message: `is older than the ${this.retentionMs / 86_400_000}-day window in which batch ids are kept: refused, because a retry could no longer be told apart`,
      });
    batch.counts.forEach((c, i) => {
      const last = new Date(c.lastCallAt);
      if (c.count > 0 && (last < windowStart || last > windowEnd))
        issues.push({ path: `$.counts[${i}].lastCallAt`, message: 'must lie inside the window [windowStart, windowEnd]' });
    });
    if (issues.length > 0) throw invalid(issues);

    const ids = [...new Set(batch.counts.map((c) => c.capabilityId))];
    const unknown = await this.repository.unknownCapabilities(principal.agentId, ids);
    if (unknown.length > 0) {
      throw new UsageIngestError(
        UsageIngestErrorCode.UnknownCapability,
        `not capabilities of agent "${principal.agentId}": ${unknown.join(', ')}`,
        batch.counts.flatMap((c, i) =>
          unknown.includes(c.capabilityId)
            ? [{ path: `$.counts[${i}].capabilityId`, message: `"${c.capabilityId}" is not a capability of agent "${principal.agentId}"` }]
            : [],
        ),
      );
    }

    const increments = aggregate(batch);
    const outcome = await this.repository.record({
      batchId: batch.batchId.toLowerCase(),
      nodeId: batch.nodeId,
      agentId: principal.agentId,
      windowStart,
      windowEnd,
      final: batch.final ?? false,
      entries: batch.counts.length,
      calls: batch.counts.reduce((sum, c) => sum + c.count, 0),
      increments,
      receivedAt: now,
    });
    switch (outcome.kind) {
      case 'recorded':
        return { accepted: true, duplicate: false };
      case 'duplicate':
        return { accepted: true, duplicate: true };
      case 'node-of-another-agent':
        throw new UsageIngestError(
          UsageIngestErrorCode.NodeOfAnotherAgent,
          `node "${batch.nodeId}" belongs to agent "${outcome.owner}", not "${principal.agentId}"`,
          [{ path: '$.nodeId', message: 'belongs to another agent' }],
        );
      case 'batch-of-another-node':
        throw new UsageIngestError(
          UsageIngestErrorCode.BatchIdReused,
          `batch "${batch.batchId}" was already sent by another node: batch ids must be unique`,
          [{ path: '$.batchId', message: 'already used by another node' }],
        );
    }
  }

  private parse(body: unknown): UsageBatchBody {
    const parsed = usageBatchSchema.safeParse(body);
    if (parsed.success) return parsed.data;
    throw invalid(parsed.error.issues.map((issue) => ({ path: pathOf(issue.path), message: issue.message })));
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

function invalid(issues: ValidationIssue[]): UsageIngestError {
  return new UsageIngestError(
    UsageIngestErrorCode.InvalidBody,
    `invalid usage batch: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
    issues,
  );
}

function pathOf(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, seg) => (typeof seg === 'number' ? `${acc}[${seg}]` : `${acc}.${String(seg)}`), '$');
}
