import { Injectable } from '@nestjs/common';
import type { AdminPrincipal } from '@cp/auth';
import { isLiveNode, latestReports, upstreamDrift, upstreamProblem } from '@cp/capabilities';
import { AccessPolicy } from '../auth/access-policy';
import { notFound } from '../common/errors';
import type { FleetModel, FleetNodeModel } from './dto/fleet.model';
import type { UpstreamDriftModel } from './dto/upstream-drift.model';
import { FleetRepository, type FleetCapability, type FleetNodeRecord } from './fleet.repository';
import { NodeInventoryRepository, type NodeInventoryRecord } from '../node-inventory/node-inventory.repository';

/** A node row with what issue 14 adds: its handler inventory and what it cannot serve. */
export interface FleetNodeView extends FleetNodeRecord {
  inventory?: NodeInventoryRecord;
  /** The agent's capabilities (not removed), their handlers and upstreams. */
  capabilities: FleetCapability[];
}

export function toFleetNode(node: FleetNodeView, currentRevision: number): FleetNodeModel {
  const inv = node.inventory;
  const have = inv && new Set(inv.handlers.map((h) => h.id));
  // Upstream-served capabilities by the node's last upstream report (ADR 0275), the others by its handlers.
  const upstreamIssues = inv
    ? node.capabilities.flatMap((c) => {
        const why = c.upstream && upstreamProblem({ id: c.capabilityId, upstream: c.upstream }, inv.upstreams);
        return why ? [{ capabilityId: c.capabilityId, why }] : [];
      })
    : [];
  const unservable = have
    ? [
        ...node.capabilities.filter((c) => !c.upstream && !have.has(c.handler)).map((c) => c.capabilityId),
        ...upstreamIssues.map((u) => u.capabilityId),
      ].sort()
    : (inv?.reportedUnservable ?? []);
  const handlerWarnings = inv?.reportedUnservable.filter((id) => !upstreamIssues.some((u) => u.capabilityId === id)) ?? [];
  const warnings = [
    ...(inv && handlerWarnings.length > 0
      ? [
          `revision ${inv.unservableRevision ?? '?'}: temporarily unavailable on this node (handler not deployed): ${handlerWarnings.join(', ')}`,
        ]
      : []),
    ...upstreamIssues.map((u) => `${u.capabilityId}: unservable on this node: ${u.why}`),
  ];
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
    const views = (await this.nodesByAgent([agentId])).get(agentId) ?? [];
    const nodes = views.map((n) => toFleetNode(n, agent.revision));
    return {
      agentId,
      currentRevision: agent.revision,
      nodes,
      upToDate: nodes.filter((n) => n.lag === 0).length,
      upstreamDrift: fleetDrift(views),
    };
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

/**
 * Each upstream's own card against the registry (ADR 0275), from what the agent's live gateway
 * nodes last fetched (per card, the latest fetch of any of them).
 */
export function fleetDrift(views: readonly FleetNodeView[], now = new Date()): UpstreamDriftModel[] {
  const capabilities = views[0]?.capabilities ?? [];
  const live = views.flatMap((v) => (v.inventory?.upstreams && isLiveNode(v.inventory, now) ? [v.inventory.upstreams] : []));
  return upstreamDrift(
    capabilities.map((c) => ({ id: c.capabilityId, state: c.state, upstream: c.upstream })),
    latestReports(live),
  ).map((d) => ({ ...d, reason: d.reason ?? null, checkedAt: d.checkedAt ? new Date(d.checkedAt) : null }));
}
