import { Injectable } from '@nestjs/common';
import type { CostBudgets, RegistrySnapshot } from '@cp/capabilities';
import type { Prisma } from '../../../../prisma/generated/client';
import { PrismaService } from '../prisma.service';
import { agentBaseFromRow, manifestFromRow } from '../registry-mapping';

/** Reads an agent's whole registry as one consistent snapshot (one REPEATABLE READ transaction). */
@Injectable()
export class RegistrySnapshotRepository {
  constructor(private readonly prisma: PrismaService) {}

  async snapshot(agentId: string): Promise<RegistrySnapshot | null> {
    return this.prisma.$transaction((tx) => readRegistrySnapshot(tx, agentId), { isolationLevel: 'RepeatableRead' });
  }

  async revision(agentId: string): Promise<number | null> {
    return (await this.stamp(agentId))?.revision ?? null;
  }

  /** The agent's current revision and registry epoch (see RegistrySnapshot.epoch). */
  async stamp(agentId: string): Promise<{ revision: number; epoch: string } | null> {
    const agent = await this.prisma.agent.findUnique({ where: { id: agentId }, select: { revision: true, createdAt: true } });
    return agent ? { revision: agent.revision, epoch: agent.createdAt.toISOString() } : null;
  }
}

/**
 * An agent's whole registry as `tx` sees it: in a REPEATABLE READ transaction of its own (above),
 * or inside a change's own transaction after its work (RegistryWriter, ADR 0365), where the agent
 * row the change locked keeps every other change of the agent out until the commit.
 */
export async function readRegistrySnapshot(tx: Prisma.TransactionClient, agentId: string): Promise<RegistrySnapshot | null> {
  const agent = await tx.agent.findUnique({ where: { id: agentId } });
  if (!agent) return null;
  const [manifests, optIns] = await Promise.all([
    tx.capabilityManifest.findMany({ where: { agentId }, orderBy: { capabilityId: 'asc' } }),
    tx.previewOptIn.findMany({ where: { agentId }, select: { tenantId: true }, orderBy: { tenantId: 'asc' } }),
  ]);
  return {
    agentId,
    revision: agent.revision,
    agent: agentBaseFromRow(agent),
    manifests: manifests.map(manifestFromRow),
    previewTenants: optIns.map((o) => o.tenantId),
    epoch: agent.createdAt.toISOString(),
    ...(agent.costBudgets ? { costBudgets: agent.costBudgets as CostBudgets } : {}),
  };
}
