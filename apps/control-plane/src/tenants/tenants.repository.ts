import { Injectable } from '@nestjs/common';
import { PrismaService, type RegistryTx } from '@cp/db';
import type { TenantModel } from './dto/tenant.model';

type Audit = (tx: RegistryTx) => Promise<void>;

@Injectable()
export class TenantsRepository {
  constructor(private readonly prisma: PrismaService) {}

  find(id: string): Promise<TenantModel | null> {
    return this.prisma.tenant.findUnique({ where: { id } });
  }

  list(afterId: string | undefined, take: number): Promise<TenantModel[]> {
    return this.prisma.tenant.findMany({ where: afterId ? { id: { gt: afterId } } : {}, orderBy: { id: 'asc' }, take });
  }

  /** Agents that opted this tenant in, and manifests that name it: both would dangle. */
  async usedBy(id: string): Promise<{ optIns: string[]; manifests: string[] }> {
    const [optIns, manifests] = await Promise.all([
      this.prisma.previewOptIn.findMany({ where: { tenantId: id }, select: { agentId: true }, take: 20 }),
      this.prisma.capabilityManifest.findMany({ where: { tenants: { has: id } }, select: { agentId: true, capabilityId: true }, take: 20 }),
    ]);
    return { optIns: optIns.map((o) => o.agentId), manifests: manifests.map((m) => `${m.agentId}/${m.capabilityId}`) };
  }

  create(tenant: { id: string; name: string }, audit: Audit): Promise<TenantModel> {
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.tenant.create({ data: tenant });
      await audit(tx);
      return row;
    });
  }

  update(tenant: { id: string; name: string }, audit: Audit): Promise<TenantModel> {
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.tenant.update({ where: { id: tenant.id }, data: { name: tenant.name } });
      await audit(tx);
      return row;
    });
  }

  delete(id: string, audit: Audit): Promise<TenantModel> {
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.tenant.delete({ where: { id } });
      await audit(tx);
      return row;
    });
  }
}
