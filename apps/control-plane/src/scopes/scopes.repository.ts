import { Injectable } from '@nestjs/common';
import { PrismaService, type RegistryTx } from '@cp/db';
import type { ScopeModel } from './dto/scope.model';

type Audit = (tx: RegistryTx) => Promise<void>;

@Injectable()
export class ScopesRepository {
  constructor(private readonly prisma: PrismaService) {}

  find(name: string): Promise<ScopeModel | null> {
    return this.prisma.scope.findUnique({ where: { name } });
  }

  list(after: string | undefined, take: number): Promise<ScopeModel[]> {
    return this.prisma.scope.findMany({ where: after ? { name: { gt: after } } : {}, orderBy: { name: 'asc' }, take });
  }

  async requiredBy(name: string): Promise<string[]> {
    const rows = await this.prisma.capabilityManifest.findMany({
      where: { requiresScopes: { has: name } },
      select: { agentId: true, capabilityId: true },
      take: 20,
    });
    return rows.map((m) => `${m.agentId}/${m.capabilityId}`);
  }

  create(scope: { name: string; description: string }, audit: Audit): Promise<ScopeModel> {
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.scope.create({ data: scope });
      await audit(tx);
      return row;
    });
  }

  update(scope: { name: string; description: string }, audit: Audit): Promise<ScopeModel> {
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.scope.update({ where: { name: scope.name }, data: { description: scope.description } });
      await audit(tx);
      return row;
    });
  }

  delete(name: string, audit: Audit): Promise<ScopeModel> {
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.scope.delete({ where: { name } });
      await audit(tx);
      return row;
    });
  }
}
