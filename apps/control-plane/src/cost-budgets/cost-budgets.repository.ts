import { Injectable } from '@nestjs/common';
import type { CostBudgets } from '@cp/capabilities';
import { Prisma, type RegistryTx } from '@cp/db';

@Injectable()
export class CostBudgetsRepository {
  async save(tx: RegistryTx, agentId: string, budgets: CostBudgets | undefined): Promise<void> {
    await tx.agent.update({ where: { id: agentId }, data: { costBudgets: budgets ? (budgets as Prisma.InputJsonValue) : Prisma.DbNull } });
  }
}
