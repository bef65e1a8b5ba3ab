import { Injectable } from '@nestjs/common';
import { PrismaService, type Prisma } from '@cp/db';
import type { AuditEventModel } from './dto/audit-event.model';

export interface AuditScope {
  /** Only events of these teams' agents; undefined = every event. */
  teams?: string[];
  agentId?: string;
  actor?: string;
  action?: string;
  targetType?: string;
  targetId?: string;
  from?: Date;
  to?: Date;
  traceId?: string;
  onBehalfOf?: string;
}

@Injectable()
export class AuditRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Newest first, `take` events older than the cursor id. */
  async list(scope: AuditScope, beforeId: bigint | undefined, take: number): Promise<AuditEventModel[]> {
    const where: Prisma.AuditEventWhereInput = {
      AND: [
        scope.teams
          ? {
              agentId: {
                in: (await this.prisma.agent.findMany({ where: { teamId: { in: scope.teams } }, select: { id: true } })).map((a) => a.id),
              },
            }
          : {},
        scope.agentId ? { agentId: scope.agentId } : {},
        scope.actor ? { actor: scope.actor } : {},
        scope.action ? { action: scope.action } : {},
        scope.targetType ? { targetType: scope.targetType } : {},
        scope.targetId ? { targetId: scope.targetId } : {},
        scope.traceId ? { traceId: scope.traceId } : {},
        scope.onBehalfOf ? { onBehalfOf: scope.onBehalfOf } : {},
        scope.from ? { at: { gte: scope.from } } : {},
        scope.to ? { at: { lte: scope.to } } : {},
        beforeId !== undefined ? { id: { lt: beforeId } } : {},
      ],
    };
    const rows = await this.prisma.auditEvent.findMany({ where, orderBy: { id: 'desc' }, take });
    return rows.map((r) => ({ ...r, id: r.id.toString(), delegation: r.delegation as AuditEventModel['delegation'] }));
  }
}
