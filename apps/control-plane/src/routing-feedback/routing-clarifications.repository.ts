import { createHash, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { PrismaService, type RegistryTx } from '@cp/db';

export interface ClarificationRecord {
  id: string;
  agentId: string;
  tenant: string;
  capabilityId: string;
  text: string;
  count: number;
  status: string;
  firstSeenAt: Date;
  lastSeenAt: Date;
}

const hash = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

@Injectable()
export class RoutingClarificationsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** One row per (agent, tenant, capability, text); a repeat counts up. Answers each choice's row as it is now. */
  async record(
    agentId: string,
    choices: readonly { text: string; capabilityId: string; tenant: string }[],
    now: Date,
  ): Promise<ClarificationRecord[]> {
    return this.prisma.$transaction(
      choices.map((c) =>
        this.prisma.routingClarification.upsert({
          where: {
            agentId_tenant_capabilityId_textHash: { agentId, tenant: c.tenant, capabilityId: c.capabilityId, textHash: hash(c.text) },
          },
          create: {
            id: randomUUID(),
            agentId,
            tenant: c.tenant,
            capabilityId: c.capabilityId,
            text: c.text,
            textHash: hash(c.text),
            firstSeenAt: now,
            lastSeenAt: now,
          },
          update: { count: { increment: 1 }, lastSeenAt: now },
          omit: { textHash: true },
        }),
      ),
    );
  }

  /** The agent's revision and the tenants opted in to its previews (what automatic promotion reads, ADR 0336). */
  async agentState(agentId: string): Promise<{ revision: number; previewTenants: string[] } | null> {
    const row = await this.prisma.agent.findUnique({ where: { id: agentId }, select: { revision: true } });
    if (!row) return null;
    const optIns = await this.prisma.previewOptIn.findMany({ where: { agentId }, select: { tenantId: true } });
    return { revision: row.revision, previewTenants: optIns.map((o) => o.tenantId) };
  }

  async knownCapabilities(agentId: string, ids: readonly string[]): Promise<Set<string>> {
    const rows = await this.prisma.capabilityManifest.findMany({
      where: { agentId, capabilityId: { in: [...ids] }, state: { not: 'removed' } },
      select: { capabilityId: true },
    });
    return new Set(rows.map((r) => r.capabilityId));
  }

  list(agentId: string, status: string | undefined): Promise<ClarificationRecord[]> {
    return this.prisma.routingClarification.findMany({
      where: { agentId, ...(status ? { status } : {}) },
      orderBy: [{ count: 'desc' }, { lastSeenAt: 'desc' }, { id: 'asc' }],
      take: 500,
    });
  }

  find(id: string): Promise<ClarificationRecord | null> {
    return this.prisma.routingClarification.findUnique({ where: { id } });
  }

  /** The client outside any transaction (decideIfPending's `db` when there is none). */
  get db(): Pick<RegistryTx, 'routingClarification'> {
    return this.prisma;
  }

  /**
   * Marks a pending clarification promoted or dismissed (in `db`, a transaction or not); false when
   * it was no longer pending (decided meanwhile), and then nothing is written.
   */
  async decideIfPending(db: Pick<RegistryTx, 'routingClarification'>, id: string, status: 'promoted' | 'dismissed'): Promise<boolean> {
    const { count } = await db.routingClarification.updateMany({ where: { id, status: 'pending' }, data: { status } });
    return count === 1;
  }
}
