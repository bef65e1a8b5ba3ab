import { Injectable } from '@nestjs/common';
import type { CapabilityManifest } from '@cp/capabilities';
import { manifestFromRow, PrismaService, writeAudit, type DelegationChain } from '@cp/db';

export interface ToolRecord {
  agentId: string;
  name: string;
  scopes: string[];
  audience: string;
}

/** The trusted tool registry (Tool table) and what an exchange needs of the agent's registry. */
@Injectable()
export class ToolRepository {
  constructor(private readonly prisma: PrismaService) {}

  async tool(agentId: string, name: string): Promise<ToolRecord | null> {
    const row = await this.prisma.tool.findUnique({ where: { agentId_name: { agentId, name } } });
    return row && { agentId: row.agentId, name: row.name, scopes: [...row.scopes], audience: row.audience };
  }

  async capability(agentId: string, capabilityId: string): Promise<{ manifest: CapabilityManifest; previewTenants: string[] } | null> {
    const [row, optIns] = await Promise.all([
      this.prisma.capabilityManifest.findUnique({ where: { agentId_capabilityId: { agentId, capabilityId } } }),
      this.prisma.previewOptIn.findMany({ where: { agentId }, select: { tenantId: true } }),
    ]);
    return row && { manifest: manifestFromRow(row), previewTenants: optIns.map((o) => o.tenantId) };
  }

  /** The control plane's half of the audit trail: one event per tool token issued, with its delegation chain. */
  async recordIssued(actor: string, chain: DelegationChain, action = 'tool-token.issue'): Promise<void> {
    await writeAudit(this.prisma, actor, { agentId: chain.agentId, revision: null }, [
      {
        action,
        targetType: 'tool',
        targetId: `${chain.agentId}/${chain.tool}`,
        onBehalfOf: chain.principal,
        delegation: chain,
      },
    ]);
  }

  async upsert(tool: ToolRecord): Promise<void> {
    await this.prisma.tool.upsert({
      where: { agentId_name: { agentId: tool.agentId, name: tool.name } },
      create: tool,
      update: { scopes: tool.scopes, audience: tool.audience },
    });
  }
}
