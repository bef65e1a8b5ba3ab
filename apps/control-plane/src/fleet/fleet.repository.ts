import { Injectable } from '@nestjs/common';
import type { CapabilityState, UpstreamSpec } from '@cp/capabilities';
import { PrismaService } from '@cp/db';

/** A capability of the fleet's agents (not removed) and how it is served. */
export interface FleetCapability {
  agentId: string;
  capabilityId: string;
  handler: string;
  state: CapabilityState;
  upstream?: UpstreamSpec;
}

export interface FleetNodeRecord {
  nodeId: string;
  agentId: string;
  hostname: string | null;
  registeredAt: Date;
  lastSeenAt: Date;
  appliedRevision: number | null;
  servedHash: string | null;
  lastError: string | null;
  lastErrorAt: Date | null;
}

/** Node rows as the fleet view reads them (acks and heartbeats write them: node-api). */
@Injectable()
export class FleetRepository {
  constructor(private readonly prisma: PrismaService) {}

  async agent(agentId: string): Promise<{ id: string; teamId: string; revision: number } | null> {
    return this.prisma.agent.findUnique({ where: { id: agentId }, select: { id: true, teamId: true, revision: true } });
  }

  /** Handlers of the agents' capabilities that are not removed (for what each node cannot serve). */
  async liveCapabilities(agentIds: readonly string[]): Promise<FleetCapability[]> {
    const rows = await this.prisma.capabilityManifest.findMany({
      where: { agentId: { in: [...agentIds] }, state: { not: 'removed' } },
      select: { agentId: true, capabilityId: true, handler: true, state: true, upstream: true },
      orderBy: [{ agentId: 'asc' }, { capabilityId: 'asc' }],
    });
    return rows.map(({ upstream, ...rest }) => ({
      ...rest,
      ...(upstream !== null && typeof upstream === 'object' ? { upstream: upstream as unknown as UpstreamSpec } : {}),
    }));
  }

  /** Nodes of several agents in one query (Agent.nodes batches through a DataLoader). */
  async nodesOf(agentIds: readonly string[]): Promise<FleetNodeRecord[]> {
    const rows = await this.prisma.node.findMany({
      where: { agentId: { in: [...agentIds] } },
      orderBy: [{ agentId: 'asc' }, { id: 'asc' }],
    });
    return rows.map(({ id, ...rest }) => ({ nodeId: id, ...rest }));
  }
}
