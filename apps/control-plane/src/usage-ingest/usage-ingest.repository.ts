import { Injectable } from '@nestjs/common';
import { PrismaService, type RegistryTx } from '@cp/db';
import { mergeCoverage, type UsageCoverage } from '@cp/capabilities';
import type { HealthIncrement } from './health-increments';
import { incrementHealth } from './health-buckets';

export interface BucketIncrement {
  capabilityId: string;
  tenantId: string;
  day: string;
  count: number;
  lastCallAt: Date;
}

export interface RecordBatch {
  batchId: string;
  nodeId: string;
  agentId: string;
  windowStart: Date;
  windowEnd: Date;
  final: boolean;
  entries: number;
  calls: number;
  increments: BucketIncrement[];
  health: HealthIncrement[];
  receivedAt: Date;
}

export type RecordOutcome = { kind: 'recorded' } | { kind: 'duplicate' } | { kind: 'unknown-node' } | { kind: 'batch-id-reused' };

/** What the registry says about the names a batch uses (one round trip per table). */
export interface IngestContext {
  /** When the agent was created (null: no such agent). */
  agentCreatedAt: Date | null;
  /** Whether the node is registered for this agent. */
  nodeRegistered: boolean;
  /** The agent's capabilities among those asked, with when each was removed (null: not removed). */
  capabilities: Map<string, { removedAt: Date | null }>;
  /** The tenants among those asked that exist. */
  tenants: Set<string>;
}

/** Writes one usage batch: the batch id, the bucket increments and the coverage, in ONE transaction. */
@Injectable()
export class UsageIngestRepository {
  constructor(private readonly prisma: PrismaService) {}

  async context(agentId: string, nodeId: string, capabilityIds: string[], tenants: string[]): Promise<IngestContext> {
    const [agent, node, capabilities, known] = await Promise.all([
      this.prisma.agent.findUnique({ where: { id: agentId }, select: { createdAt: true } }),
      this.prisma.node.findUnique({ where: { agentId_id: { agentId, id: nodeId } }, select: { id: true } }),
      capabilityIds.length === 0
        ? Promise.resolve([])
        : this.prisma.capabilityManifest.findMany({
            where: { agentId, capabilityId: { in: capabilityIds } },
            select: { capabilityId: true, removedAt: true },
          }),
      tenants.length === 0 ? Promise.resolve([]) : this.prisma.tenant.findMany({ where: { id: { in: tenants } }, select: { id: true } }),
    ]);
    return {
      agentCreatedAt: agent?.createdAt ?? null,
      nodeRegistered: node !== null,
      capabilities: new Map(capabilities.map((c) => [c.capabilityId, { removedAt: c.removedAt }])),
      tenants: new Set(known.map((t) => t.id)),
    };
  }

  async record(batch: RecordBatch): Promise<RecordOutcome> {
    return this.prisma
      .$transaction(async (tx) => {
        // The node must be registered for this agent (register creates it). Its row is locked:
        // one node's batches serialize, so its coverage is read-modify-written safely.
        const nodes = await tx.$queryRaw<{ id: string }[]>`
        UPDATE "Node" SET "lastSeenAt" = GREATEST("lastSeenAt", ${batch.receivedAt}::timestamp)
         WHERE "agentId" = ${batch.agentId} AND id = ${batch.nodeId}
        RETURNING id`;
        if (nodes.length === 0) throw new Rollback({ kind: 'unknown-node' });
        const inserted = await tx.$queryRaw<{ id: string }[]>`
        INSERT INTO "UsageBatch" (id, "nodeId", "agentId", "windowStart", "windowEnd", entries, calls, final, "receivedAt")
        VALUES (${batch.batchId}, ${batch.nodeId}, ${batch.agentId}, ${batch.windowStart}::timestamp, ${batch.windowEnd}::timestamp,
                ${batch.entries}, ${batch.calls}::bigint, ${batch.final}, ${batch.receivedAt}::timestamp)
        ON CONFLICT (id) DO NOTHING
        RETURNING id`;
        if (inserted.length === 0) {
          const existing = await tx.usageBatch.findUnique({ where: { id: batch.batchId }, select: { nodeId: true, agentId: true } });
          if (existing && (existing.nodeId !== batch.nodeId || existing.agentId !== batch.agentId))
            throw new Rollback({ kind: 'batch-id-reused' });
          throw new Rollback({ kind: 'duplicate' });
        }
        if (batch.increments.length > 0) await incrementBuckets(tx, batch);
        if (batch.health.length > 0) await incrementHealth(tx, batch.agentId, batch.health);
        await extendCoverage(tx, batch);
        return { kind: 'recorded' } as const;
      })
      .catch((error: unknown) => {
        if (error instanceof Rollback) return error.outcome;
        throw error;
      });
  }
}

/** Rolls the transaction back (the node upsert included) and carries the outcome out. */
class Rollback extends Error {
  constructor(readonly outcome: RecordOutcome) {
    super(outcome.kind);
  }
}

async function incrementBuckets(tx: RegistryTx, batch: RecordBatch): Promise<void> {
  const i = batch.increments;
  // One statement for the whole batch (increments are pre-aggregated per bucket key).
  await tx.$executeRaw`
    INSERT INTO "UsageBucket" ("agentId", "capabilityId", "tenantId", "nodeId", day, count, "lastCallAt")
    SELECT ${batch.agentId}, u.capability, u.tenant, ${batch.nodeId}, u.day::date, u.count, u.last
      FROM unnest(${i.map((x) => x.capabilityId)}::text[], ${i.map((x) => x.tenantId)}::text[], ${i.map((x) => x.day)}::text[],
                  ${i.map((x) => String(x.count))}::bigint[], ${i.map((x) => x.lastCallAt.toISOString())}::timestamp[])
           AS u(capability, tenant, day, count, last)
    ON CONFLICT ("agentId", "capabilityId", "tenantId", "nodeId", day)
    -- Saturating: a stored count never overflows bigint (which would fail this and every later read).
    DO UPDATE SET count = CASE WHEN "UsageBucket".count > 9223372036854775807 - EXCLUDED.count THEN 9223372036854775807
                               ELSE "UsageBucket".count + EXCLUDED.count END,
                  "lastCallAt" = GREATEST("UsageBucket"."lastCallAt", EXCLUDED."lastCallAt")`;
}

async function extendCoverage(tx: RegistryTx, batch: RecordBatch): Promise<void> {
  const key = { agentId: batch.agentId, nodeId: batch.nodeId };
  const row = await tx.nodeUsageCoverage.findUnique({ where: { agentId_nodeId: key } });
  const existing: UsageCoverage | null = row ? { coveredFrom: row.coveredFrom, coveredUntil: row.coveredUntil, closed: row.closed } : null;
  const next = mergeCoverage(existing, { windowStart: batch.windowStart, windowEnd: batch.windowEnd, final: batch.final });
  if (next === existing) return;
  await tx.nodeUsageCoverage.upsert({
    where: { agentId_nodeId: key },
    create: { ...key, ...next },
    update: next,
  });
}
