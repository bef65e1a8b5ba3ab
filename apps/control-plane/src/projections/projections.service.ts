import { Injectable } from '@nestjs/common';
import {
  buildExecutionPolicy,
  buildExtendedCard,
  buildPublicCard,
  buildRouterIndex,
  entitlement,
  serializeCard,
  type AgentCard,
  type Caller,
  type RegistrySnapshot,
} from '@cp/capabilities';
import type { AdminPrincipal } from '@cp/auth';
import { RegistrySnapshotRepository } from '@cp/db';
import { AgentsService } from '../agents/agents.service';
import { notFound } from '../common/errors';
import type { CallerInput, CardModel, ProjectionModel, VisibilityExplanationModel } from './dto/projection.model';

const toCaller = (as: CallerInput | null | undefined): Caller =>
  as ? { principal: as.principal ?? 'admin-preview', tenant: as.tenant, scopes: [...new Set(as.scopes)].sort() } : null;

/** The four projections and the entitlement explanation, computed by the core from one snapshot. */
@Injectable()
export class ProjectionsService {
  constructor(
    private readonly agents: AgentsService,
    private readonly snapshots: RegistrySnapshotRepository,
  ) {}

  async publicCard(principal: AdminPrincipal, agentId: string): Promise<CardModel> {
    const snapshot = await this.snapshot(principal, agentId);
    return card(snapshot, buildPublicCard(snapshot));
  }

  async extendedCard(principal: AdminPrincipal, agentId: string, as: CallerInput): Promise<CardModel> {
    const snapshot = await this.snapshot(principal, agentId);
    return card(snapshot, buildExtendedCard(snapshot, toCaller(as)));
  }

  async routerIndex(principal: AdminPrincipal, agentId: string, as: CallerInput | null | undefined): Promise<ProjectionModel> {
    const snapshot = await this.snapshot(principal, agentId);
    return { agentId, revision: snapshot.revision, value: buildRouterIndex(snapshot, toCaller(as)) };
  }

  /** Without `as`: the node's whole policy (every live capability); with it: that caller's. */
  async executionPolicy(principal: AdminPrincipal, agentId: string, as: CallerInput | null | undefined): Promise<ProjectionModel> {
    const snapshot = await this.snapshot(principal, agentId);
    return { agentId, revision: snapshot.revision, value: buildExecutionPolicy(snapshot, as ? toCaller(as) : undefined) };
  }

  async explainVisibility(
    principal: AdminPrincipal,
    agentId: string,
    capabilityId: string,
    as: CallerInput | null | undefined,
  ): Promise<VisibilityExplanationModel> {
    const snapshot = await this.snapshot(principal, agentId);
    const manifest = snapshot.manifests.find((m) => m.id === capabilityId);
    if (!manifest) throw notFound('manifest', `${agentId}/${capabilityId}`);
    const decision = entitlement(manifest, toCaller(as), { previewTenants: snapshot.previewTenants });
    return { agentId, capabilityId, revision: snapshot.revision, ...decision };
  }

  private async snapshot(principal: AdminPrincipal, agentId: string): Promise<RegistrySnapshot> {
    await this.agents.get(principal, agentId);
    const snapshot = await this.snapshots.snapshot(agentId);
    if (!snapshot) throw notFound('agent', agentId);
    return snapshot;
  }
}

function card(snapshot: RegistrySnapshot, value: AgentCard): CardModel {
  const { body, etag } = serializeCard(value);
  return { agentId: snapshot.agentId, revision: snapshot.revision, version: value.version, etag, card: JSON.parse(body) };
}
