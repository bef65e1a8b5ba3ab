import { Injectable } from '@nestjs/common';
import type { AdminPrincipal } from '@cp/auth';
import { AccessPolicy } from '../auth/access-policy';
import { notFound } from '../common/errors';
import type { FleetModel, FleetNodeModel } from './dto/fleet.model';
import { FleetRepository, type FleetNodeRecord } from './fleet.repository';

export function toFleetNode(node: FleetNodeRecord, currentRevision: number): FleetNodeModel {
  return {
    nodeId: node.nodeId,
    hostname: node.hostname,
    appliedRevision: node.appliedRevision,
    servedHash: node.servedHash,
    lag: node.appliedRevision === null ? null : Math.max(0, currentRevision - node.appliedRevision),
    registeredAt: node.registeredAt,
    lastSeenAt: node.lastSeenAt,
    lastError: node.lastError,
    lastErrorAt: node.lastErrorAt,
  };
}

@Injectable()
export class FleetService {
  constructor(
    private readonly fleet: FleetRepository,
    private readonly access: AccessPolicy,
  ) {}

  async get(principal: AdminPrincipal, agentId: string): Promise<FleetModel> {
    const agent = await this.fleet.agent(agentId);
    if (!agent) throw notFound('agent', agentId);
    this.access.assertCanRead(principal, agent.teamId, { type: 'agent', id: agentId });
    const nodes = (await this.fleet.nodesOf([agentId])).map((n) => toFleetNode(n, agent.revision));
    return { agentId, currentRevision: agent.revision, nodes, upToDate: nodes.filter((n) => n.lag === 0).length };
  }

  /** For Agent.nodes: the parent agent was already access-checked by its own resolver. */
  async nodesByAgent(agentIds: readonly string[]): Promise<Map<string, FleetNodeRecord[]>> {
    const byAgent = new Map<string, FleetNodeRecord[]>(agentIds.map((id) => [id, []]));
    for (const node of await this.fleet.nodesOf(agentIds)) byAgent.get(node.agentId)?.push(node);
    return byAgent;
  }
}
