import { Injectable } from '@nestjs/common';
import { PrismaService } from '@cp/db';

export interface RevisionRow {
  revision: number;
  actor: string;
  summary: string;
  createdAt: Date;
}

export interface RevisionCapabilityRow {
  revision: number;
  capabilityId: string;
  action: string;
}

/** A manifest audit event's document on one side of a revision (null: the capability did not exist). */
interface SnapshotRow {
  targetId: string;
  document: unknown;
}

@Injectable()
export class RevisionsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Newest first, `take` revisions below `beforeRevision` (all when undefined). */
  list(agentId: string, beforeRevision: number | undefined, take: number): Promise<RevisionRow[]> {
    return this.prisma.registryRevision.findMany({
      where: { agentId, ...(beforeRevision === undefined ? {} : { revision: { lt: beforeRevision } }) },
      orderBy: { revision: 'desc' },
      take,
      select: { revision: true, actor: true, summary: true, createdAt: true },
    });
  }

  async exists(agentId: string, revision: number): Promise<boolean> {
    return (await this.prisma.registryRevision.count({ where: { agentId, revision } })) > 0;
  }

  /** The capabilities each of `revisions` changed, from its manifest audit events. */
  async capabilities(agentId: string, revisions: number[]): Promise<RevisionCapabilityRow[]> {
    if (revisions.length === 0) return [];
    const rows = await this.prisma.auditEvent.findMany({
      where: { agentId, targetType: 'manifest', revision: { in: revisions } },
      orderBy: { id: 'asc' },
      select: { revision: true, targetId: true, action: true },
    });
    return rows.map((r) => ({ revision: r.revision!, capabilityId: capabilityOf(agentId, r.targetId), action: r.action }));
  }

  /**
   * Each capability's document as of `revision`: the `after` of its latest manifest event at or
   * before it; for a capability with none, the `before` of its first event after it (null: created
   * later). Capabilities with no event either side are not here (never changed through the registry).
   */
  async documentsAt(agentId: string, revision: number): Promise<Map<string, unknown>> {
    const [upTo, later] = await Promise.all([
      this.prisma.$queryRaw<SnapshotRow[]>`
        SELECT DISTINCT ON ("targetId") "targetId", "after" AS document FROM "AuditEvent"
         WHERE "agentId" = ${agentId} AND "targetType" = 'manifest' AND revision <= ${revision}
         ORDER BY "targetId", revision DESC, id DESC`,
      this.prisma.$queryRaw<SnapshotRow[]>`
        SELECT DISTINCT ON ("targetId") "targetId", "before" AS document FROM "AuditEvent"
         WHERE "agentId" = ${agentId} AND "targetType" = 'manifest' AND revision > ${revision}
         ORDER BY "targetId", revision ASC, id ASC`,
    ]);
    const out = new Map<string, unknown>();
    for (const row of later) out.set(capabilityOf(agentId, row.targetId), row.document);
    for (const row of upTo) out.set(capabilityOf(agentId, row.targetId), row.document);
    return out;
  }
}

/** Manifest events name their target `<agentId>/<capabilityId>`. */
const capabilityOf = (agentId: string, targetId: string) =>
  targetId.startsWith(`${agentId}/`) ? targetId.slice(agentId.length + 1) : targetId;
