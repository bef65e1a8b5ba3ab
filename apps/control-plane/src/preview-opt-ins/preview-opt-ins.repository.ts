import { Injectable } from '@nestjs/common';
import { PrismaService, type RegistryTx } from '@cp/db';
import type { PreviewOptInModel } from './dto/preview-opt-in.model';

@Injectable()
export class PreviewOptInsRepository {
  constructor(private readonly prisma: PrismaService) {}

  list(agentId: string): Promise<PreviewOptInModel[]> {
    return this.prisma.previewOptIn.findMany({ where: { agentId }, orderBy: { tenantId: 'asc' } });
  }

  find(agentId: string, tenantId: string): Promise<PreviewOptInModel | null> {
    return this.prisma.previewOptIn.findUnique({ where: { tenantId_agentId: { tenantId, agentId } } });
  }

  async tenantExists(tenantId: string): Promise<boolean> {
    return (await this.prisma.tenant.count({ where: { id: tenantId } })) > 0;
  }

  create(tx: RegistryTx, agentId: string, tenantId: string): Promise<PreviewOptInModel> {
    return tx.previewOptIn.create({ data: { agentId, tenantId } });
  }

  delete(tx: RegistryTx, agentId: string, tenantId: string): Promise<PreviewOptInModel> {
    return tx.previewOptIn.delete({ where: { tenantId_agentId: { tenantId, agentId } } });
  }
}
