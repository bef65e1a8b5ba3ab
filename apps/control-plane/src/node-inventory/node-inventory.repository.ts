import { Injectable } from '@nestjs/common';
import { liveNodeCutoff, type HandlerDeclaration, type NodeInventory, type UpstreamCardReport } from '@cp/capabilities';
import { Prisma, PrismaService } from '@cp/db';

export interface NodeInventoryRecord extends NodeInventory {
  agentId: string;
  reportedAt: Date;
  stoppedAt: Date | null;
  /** What the node said in its last ack: capabilities of its bundle it cannot serve. */
  reportedUnservable: string[];
  unservableRevision: number | null;
}

/** Handler inventories per (agent, node): written by the node API, read by the plan gate and the fleet view. */
@Injectable()
export class NodeInventoryRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** `upstreams`: a gateway node's upstream report (ADR 0275); absent: the node is not a gateway (stored as NULL). */
  async report(
    agentId: string,
    nodeId: string,
    handlers: HandlerDeclaration[],
    stopping = false,
    upstreams?: UpstreamCardReport[],
  ): Promise<void> {
    const now = Prisma.sql`(now() AT TIME ZONE 'UTC')`;
    const stoppedAt = stopping ? now : Prisma.sql`NULL`;
    const reported = upstreams ? JSON.stringify(upstreams) : null;
    await this.prisma.$executeRaw`
      INSERT INTO "NodeInventory" ("agentId", "nodeId", handlers, "reportedAt", "stoppedAt", upstreams)
      VALUES (${agentId}, ${nodeId}, ${JSON.stringify(handlers)}::jsonb, ${now}, ${stoppedAt}, ${reported}::jsonb)
      ON CONFLICT ("agentId", "nodeId") DO UPDATE SET handlers = EXCLUDED.handlers, "reportedAt" = EXCLUDED."reportedAt",
        "stoppedAt" = EXCLUDED."stoppedAt", upstreams = EXCLUDED.upstreams`;
  }

  /** A graceful stop of a node that never reported handlers (older SDK) changes nothing. */
  async stopped(agentId: string, nodeId: string): Promise<void> {
    await this.prisma.nodeInventory.updateMany({ where: { agentId, nodeId }, data: { stoppedAt: new Date() } });
  }

  async reportUnservable(agentId: string, nodeId: string, revision: number, unservable: string[]): Promise<void> {
    await this.prisma.nodeInventory.updateMany({ where: { agentId, nodeId }, data: { unservable, unservableRevision: revision } });
  }

  /** The agent's live nodes (the core's rule: isLiveNode), ordered by node id. */
  async live(agentId: string, now = new Date()): Promise<NodeInventoryRecord[]> {
    const rows = await this.prisma.nodeInventory.findMany({
      where: { agentId, stoppedAt: null, reportedAt: { gte: liveNodeCutoff(now) } },
      orderBy: { nodeId: 'asc' },
    });
    return rows.map(toRecord);
  }

  async ofAgents(agentIds: readonly string[]): Promise<NodeInventoryRecord[]> {
    const rows = await this.prisma.nodeInventory.findMany({ where: { agentId: { in: [...agentIds] } }, orderBy: { nodeId: 'asc' } });
    return rows.map(toRecord);
  }
}

function toRecord(row: {
  agentId: string;
  nodeId: string;
  handlers: unknown;
  reportedAt: Date;
  stoppedAt: Date | null;
  unservable: string[];
  unservableRevision: number | null;
  upstreams: unknown;
}): NodeInventoryRecord {
  return {
    agentId: row.agentId,
    nodeId: row.nodeId,
    handlers: row.handlers as HandlerDeclaration[],
    reportedAt: row.reportedAt,
    stoppedAt: row.stoppedAt,
    reportedUnservable: row.unservable,
    unservableRevision: row.unservableRevision,
    ...(Array.isArray(row.upstreams) ? { upstreams: row.upstreams as UpstreamCardReport[] } : {}),
  };
}
