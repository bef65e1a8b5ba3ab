import { Injectable } from '@nestjs/common';
import { PrismaService, type RegistryTx } from '@cp/db';
import type { TeamModel } from './dto/team.model';

@Injectable()
export class TeamsRepository {
  constructor(private readonly prisma: PrismaService) {}

  find(id: string): Promise<TeamModel | null> {
    return this.prisma.team.findUnique({ where: { id } });
  }

  /** `only`: the teams the caller may read (undefined = all). */
  list(only: string[] | undefined, afterId: string | undefined, take: number): Promise<TeamModel[]> {
    return this.prisma.team.findMany({
      where: { id: { ...(only ? { in: only } : {}), ...(afterId ? { gt: afterId } : {}) } },
      orderBy: { id: 'asc' },
      take,
    });
  }

  /** Writes the team and its audit event in one transaction. */
  save(team: { id: string; name: string }, mode: 'create' | 'update', audit: (tx: RegistryTx) => Promise<void>): Promise<TeamModel> {
    return this.prisma.$transaction(async (tx) => {
      const row =
        mode === 'create'
          ? await tx.team.create({ data: team })
          : await tx.team.update({ where: { id: team.id }, data: { name: team.name } });
      await audit(tx);
      return row;
    });
  }
}
