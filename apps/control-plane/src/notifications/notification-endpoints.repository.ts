import { Injectable } from '@nestjs/common';
import { PrismaService, type RegistryTx } from '@cp/db';

type AuditDb = RegistryTx;

export interface EndpointRecord {
  tenantId: string;
  url: string;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

const PUBLIC = { tenantId: true, url: true, createdBy: true, createdAt: true, updatedAt: true } as const;

/** Tenants' notification endpoints; the secret is written, never read back here. */
@Injectable()
export class NotificationEndpointsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async tenantExists(tenantId: string): Promise<boolean> {
    return (await this.prisma.tenant.count({ where: { id: tenantId } })) === 1;
  }

  /** Sets (or replaces, rotating the secret) the tenant's endpoint, with its audit entry in the same transaction. */
  async upsert(
    tenantId: string,
    url: string,
    secret: string,
    actor: string,
    audit: (tx: AuditDb) => Promise<void>,
  ): Promise<EndpointRecord> {
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.notificationEndpoint.upsert({
        where: { tenantId },
        create: { tenantId, url, secret, createdBy: actor },
        update: { url, secret, createdBy: actor },
        select: PUBLIC,
      });
      await audit(tx);
      return row;
    });
  }

  async delete(tenantId: string, audit: (tx: AuditDb) => Promise<void>): Promise<EndpointRecord | null> {
    return this.prisma.$transaction(async (tx) => {
      const found = await tx.notificationEndpoint.findUnique({ where: { tenantId }, select: PUBLIC });
      if (!found) return null;
      await tx.notificationEndpoint.delete({ where: { tenantId } });
      await audit(tx);
      return found;
    });
  }

  async list(take: number): Promise<EndpointRecord[]> {
    return this.prisma.notificationEndpoint.findMany({ orderBy: { tenantId: 'asc' }, take, select: PUBLIC });
  }
}
