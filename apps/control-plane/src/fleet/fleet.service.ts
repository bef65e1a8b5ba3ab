import { Injectable } from '@nestjs/common';
import type { AdminPrincipal } from '@cp/auth';
import { isLiveNode } from '@cp/capabilities';
import { AccessPolicy } from '../auth/access-policy';
import { notFound } from '../common/errors';
import type { FleetModel, FleetNodeModel } from './dto/fleet.model';
import { FleetRepository, type FleetNodeRecord } from './fleet.repository';
import { NodeInventoryRepository, type NodeInventoryRecord } from '../node-inventory/node-inventory.repository';

/** A node row with what issue 14 adds: its handler inventory and what it cannot serve. */
export interface FleetNodeView extends FleetNodeRecord {
  inventory?: NodeInventoryRecord;
  /** The agent's capabilities (not removed) and their handlers. */
  capabilities: { capabilityId: string; handler: string }[];
}

export function toFleetNode(node: FleetNodeView, currentRevision: number): FleetNodeModel {
  const inv = node.inventory;
  const have = inv && new Set(inv.handlers.map((h) => h.id));
  const unservable = have
    ? node.capabilities.filter((c) => !have.has(c.handler)).map((c) => c.capabilityId)
    : (inv?.reportedUnservable ?? []);
  const warnings =
    inv && inv.reportedUnservable.length > 0
      ? [
          `revision ${inv.unservableRevision ?? '?'}: temporarily unavailable on this node (handler not deployed): ${inv.reportedUnservable.join(', ')}`,
        ]
      : [];
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
    handlers: inv ? inv.handlers.map((h) => ({ id: h.id, limits: { ...h.limits }, outputModes: [...h.outputModes] })) : null,
    live: inv ? isLiveNode(inv, new Date()) : false,
    unservable,
    warnings,
  };
}

@Injectable()
export class FleetService {
  constructor(
    private readonly fleet: FleetRepository,
    private readonly access: AccessPolicy,
    private readonly inventories: NodeInventoryRepository,
  ) {}

  async get(principal: AdminPrincipal, agentId: string): Promise<FleetModel> {
    const agent = await this.fleet.agent(agentId);
    if (!agent) throw notFound('agent', agentId);
    this.access.assertCanRead(principal, agent.teamId, { type: 'agent', id: agentId });
    const nodes = ((await this.nodesByAgent([agentId])).get(agentId) ?? []).map((n) => toFleetNode(n, agent.revision));
    return { agentId, currentRevision: agent.revision, nodes, upToDate: nodes.filter((n) => n.lag === 0).length };
  }

  /** For Agent.nodes: the parent agent was already access-checked by its own resolver. */
  async nodesByAgent(agentIds: readonly string[]): Promise<Map<string, FleetNodeView[]>> {
    const [nodes, inventories, capabilities] = await Promise.all([
      this.fleet.nodesOf(agentIds),
      this.inventories.ofAgents(agentIds),
      this.fleet.liveCapabilities(agentIds),
    ]);
    const inventory = new Map(inventories.map((i) => [`${i.agentId}\u0000${i.nodeId}`, i] as const));
    const byAgent = new Map<string, FleetNodeView[]>(agentIds.map((id) => [id, []]));
    for (const node of nodes) {
      byAgent.get(node.agentId)?.push({
        ...node,
        inventory: inventory.get(`${node.agentId}\u0000${node.nodeId}`),
        capabilities: capabilities.filter((c) => c.agentId === node.agentId),
      });
    }
    return byAgent;
  }
}
