import { Injectable } from '@nestjs/common';
import { PrismaService } from '@cp/db';

/** The RegistryRevision outbox: which revisions have been announced to nodes. */
@Injectable()
export class OutboxRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Announcing revision N supersedes every older one of the agent. */
  async markPublished(agentId: string, revision: number, at = new Date()): Promise<number> {
    const { count } = await this.prisma.registryRevision.updateMany({
      where: { agentId, revision: { lte: revision }, publishedAt: null },
      data: { publishedAt: at },
    });
    return count;
  }

  /** Per agent, the latest revision still unpublished and older than `graceMs`. */
  async unpublished(graceMs: number, limit = 500): Promise<{ agentId: string; revision: number }[]> {
    const rows = await this.prisma.registryRevision.groupBy({
      by: ['agentId'],
      where: { publishedAt: null, createdAt: { lt: new Date(Date.now() - graceMs) } },
      _max: { revision: true },
      orderBy: { agentId: 'asc' },
      take: limit,
    });
    return rows.map((r) => ({ agentId: r.agentId, revision: r._max.revision ?? 0 }));
  }

  /** Per agent that changed since `since`, its latest revision (RegistryRevision_createdAt_idx). */
  async changedSince(since: Date): Promise<{ agentId: string; revision: number }[]> {
    const rows = await this.prisma.registryRevision.groupBy({
      by: ['agentId'],
      where: { createdAt: { gte: since } },
      _max: { revision: true },
      orderBy: { agentId: 'asc' },
    });
    return rows.map((r) => ({ agentId: r.agentId, revision: r._max.revision ?? 0 }));
  }
}
