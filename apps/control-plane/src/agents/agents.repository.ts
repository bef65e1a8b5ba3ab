import { Injectable } from '@nestjs/common';
import type { AgentBase } from '@cp/capabilities';
import { Prisma, PrismaService, agentBaseFromRow, agentColumns, type RegistryTx } from '@cp/db';

const DbNull = Prisma.DbNull;

export interface AgentRecord {
  id: string;
  teamId: string;
  revision: number;
  base: AgentBase;
  createdAt: Date;
  updatedAt: Date;
}

type AgentRow = Parameters<typeof agentBaseFromRow>[0];
const toRecord = (row: AgentRow): AgentRecord => ({
  id: row.id,
  teamId: row.teamId,
  revision: row.revision,
  base: agentBaseFromRow(row),
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

@Injectable()
export class AgentsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async find(id: string): Promise<AgentRecord | null> {
    const row = await this.prisma.agent.findUnique({ where: { id } });
    return row ? toRecord(row) : null;
  }

  /** The agent as a registry change's transaction sees it (the change holds its row). */
  async findIn(tx: RegistryTx, id: string): Promise<AgentRecord | null> {
    const row = await tx.agent.findUnique({ where: { id } });
    return row ? toRecord(row) : null;
  }

  /** Agents of `teams` (undefined = all), ordered by id, `take` rows after `afterId`. */
  async list(scope: { teams?: string[]; teamId?: string }, afterId: string | undefined, take: number): Promise<AgentRecord[]> {
    const rows = await this.prisma.agent.findMany({
      where: {
        AND: [
          scope.teams ? { teamId: { in: scope.teams } } : {},
          scope.teamId ? { teamId: scope.teamId } : {},
          afterId ? { id: { gt: afterId } } : {},
        ],
      },
      orderBy: { id: 'asc' },
      take,
    });
    return rows.map(toRecord);
  }

  async teamExists(teamId: string): Promise<boolean> {
    return (await this.prisma.team.count({ where: { id: teamId } })) > 0;
  }

  /** A new agent at revision 0; the RegistryWriter change that follows makes it revision 1. */
  async insert(id: string, teamId: string, base: AgentBase): Promise<void> {
    await this.prisma.agent.create({ data: { id, teamId, revision: 0, ...agentColumns(base) } });
  }

  async delete(id: string): Promise<void> {
    await this.prisma.agent.deleteMany({ where: { id, revision: 0 } });
  }

  async update(tx: RegistryTx, id: string, base: AgentBase): Promise<AgentRecord> {
    const columns = agentColumns(base);
    // agentColumns leaves absent JSON fields undefined (= keep); an update must clear them.
    const row = await tx.agent.update({
      where: { id },
      data: {
        ...columns,
        provider: columns.provider ?? DbNull,
        securitySchemes: columns.securitySchemes ?? DbNull,
        securityRequirements: columns.securityRequirements ?? DbNull,
      },
    });
    return toRecord(row);
  }
}
