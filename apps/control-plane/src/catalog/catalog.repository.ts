import { Injectable } from '@nestjs/common';
import { PrismaService } from '@cp/db';

export interface CatalogAgentRow {
  id: string;
  teamId: string;
  revision: number;
  updatedAt: Date;
}

/** The agents the fleet catalog lists: every one, ordered by id (visibility is decided by the core). */
@Injectable()
export class CatalogRepository {
  constructor(private readonly prisma: PrismaService) {}

  agents(): Promise<CatalogAgentRow[]> {
    return this.prisma.agent.findMany({ select: { id: true, teamId: true, revision: true, updatedAt: true }, orderBy: { id: 'asc' } });
  }
}
