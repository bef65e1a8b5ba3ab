import { Injectable } from '@nestjs/common';
import { PrismaService, type RegistryTx } from '@cp/db';
import { mergeCoverage, type UsageCoverage } from '@cp/capabilities';

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
  receivedAt: Date;
}

export type RecordOutcome =
  | { kind: 'recorded' }
  | { kind: 'duplicate' }
  | { kind: 'node-of-another-agent'; owner: string }
  | { kind: 'batch-of-another-node'; owner: string };

/** Writes one usage batch: the batch id, the bucket increments and the coverage, in ONE transaction. */
@Injectable()
export class UsageIngestRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Which of these capability ids are NOT manifests of the agent. */
  async unknownCapabilities(agentId: string, capabilityIds: string[]): Promise<string[]> {
    if (capabilityIds.length === 0) return [];
    const known = await this.prisma.capabilityManifest.findMany({
      where: { agentId, capabilityId: { in: capabilityIds } },
      select: { capabilityId: true },
    });
    const set = new Set(known.map((k) => k.capabilityId));
    return capabilityIds.filter((id) => !set.has(id));
  }

  async record(batch: RecordBatch): Promise<RecordOutcome> {
    return this.prisma
      .$transaction(async (tx) => {
        // The node row is created on first report, and locked: one node's batches serialize,
        // so its coverage is read-modify-written safely.
        const [node] = await tx.$queryRaw<{ agentId: string }[]>`
        INSERT INTO "Node" (id, "agentId", "registeredAt", "lastSeenAt")
        VALUES (${batch.nodeId}, ${batch.agentId}, ${batch.receivedAt}::timestamp, ${batch.receivedAt}::timestamp)
        ON CONFLICT (id) DO UPDATE SET "lastSeenAt" = GREATEST("Node"."lastSeenAt", EXCLUDED."lastSeenAt")
        RETURNING "agentId"`;
        if (node.agentId !== batch.agentId) throw new Rollback({ kind: 'node-of-another-agent', owner: node.agentId });
        const inserted = await tx.$queryRaw<{ id: string }[]>`
        INSERT INTO "UsageBatch" (id, "nodeId", "agentId", "windowStart", "windowEnd", entries, calls, final, "receivedAt")
        VALUES (${batch.batchId}, ${batch.nodeId}, ${batch.agentId}, ${batch.windowStart}::timestamp, ${batch.windowEnd}::timestamp,
                ${batch.entries}, ${batch.calls}::bigint, ${batch.final}, ${batch.receivedAt}::timestamp)
        ON CONFLICT (id) DO NOTHING
        RETURNING id`;
        if (inserted.length === 0) {
          const existing = await tx.usageBatch.findUnique({ where: { id: batch.batchId }, select: { nodeId: true } });
          if (existing && existing.nodeId !== batch.nodeId) throw new Rollback({ kind: 'batch-of-another-node', owner: existing.nodeId });
          throw new Rollback({ kind: 'duplicate' });
        }
        if (batch.increments.length > 0) await incrementBuckets(tx, batch);
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
    DO UPDATE SET count = "UsageBucket".count + EXCLUDED.count,
                  "lastCallAt" = GREATEST("UsageBucket"."lastCallAt", EXCLUDED."lastCallAt")`;
}

async function extendCoverage(tx: RegistryTx, batch: RecordBatch): Promise<void> {
  const row = await tx.nodeUsageCoverage.findUnique({ where: { nodeId: batch.nodeId } });
  const existing: UsageCoverage | null = row ? { coveredFrom: row.coveredFrom, coveredUntil: row.coveredUntil, closed: row.closed } : null;
  const next = mergeCoverage(existing, { windowStart: batch.windowStart, windowEnd: batch.windowEnd, final: batch.final });
  if (next === existing) return;
  await tx.nodeUsageCoverage.upsert({
    where: { nodeId: batch.nodeId },
    create: { nodeId: batch.nodeId, agentId: batch.agentId, ...next },
    update: next,
  });
}
