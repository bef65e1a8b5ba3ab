import { Injectable } from '@nestjs/common';
import {
  declaredLimits,
  limitIssues,
  unservedCapabilities,
  unservedMessage,
  type CapabilityManifest,
  type RegistrySnapshot,
  type UnservedCapability,
  type ValidationIssue,
} from '@cp/capabilities';
import { RegistrySnapshotRepository, type AuditEntry } from '@cp/db';
import { NodeInventoryRepository } from './node-inventory.repository';

export interface ServabilityInput {
  snapshot: RegistrySnapshot;
  /** The whole registry after the change. */
  resulting: readonly CapabilityManifest[];
  /** The manifests this change writes (their limits are checked against the handlers). */
  written: readonly CapabilityManifest[];
  allowUnserved: readonly string[];
  /** Where a capability's document is in what the caller sent. */
  pathOf: (id: string) => string;
}

export interface ServabilityOutcome {
  issues: ValidationIssue[];
  /** Capabilities let through only because they were named in allowUnserved (for the audit). */
  staged: UnservedCapability[];
}

/**
 * "Advertised means servable" at plan time (issue 14): the core's rule over the agent's live
 * nodes' inventories, plus each written manifest's limits against its handler's declaration.
 */
@Injectable()
export class ServabilityGate {
  constructor(
    private readonly inventories: NodeInventoryRepository,
    private readonly snapshots: RegistrySnapshotRepository,
  ) {}

  /** Opting a tenant in puts the agent's previews in its card: each must be servable by the live nodes. */
  async optInIssues(agentId: string, tenantId: string): Promise<ValidationIssue[]> {
    const snapshot = await this.snapshots.snapshot(agentId);
    if (!snapshot) return [];
    const unserved = unservedCapabilities({
      before: snapshot.manifests,
      after: snapshot.manifests,
      previewTenantsBefore: snapshot.previewTenants,
      previewTenantsAfter: [...snapshot.previewTenants, tenantId],
      live: await this.inventories.live(agentId),
    });
    return unserved.map((u) => ({
      path: '$.tenantId',
      message: u.reasons
        ? `opting "${tenantId}" in would show preview capability "${u.capabilityId}": ${unservedMessage(u)}`
        : `opting "${tenantId}" in would show preview capability "${u.capabilityId}", whose handler "${u.handler}" is not served by live node(s) ${u.nodesLacking.join(', ')}: deploy the handler first`,
    }));
  }

  async check(input: ServabilityInput): Promise<ServabilityOutcome> {
    const live = await this.inventories.live(input.snapshot.agentId);
    const ids = new Set(input.resulting.map((m) => m.id));
    const issues: ValidationIssue[] = [];
    input.allowUnserved.forEach((id, i) => {
      if (!ids.has(id))
        issues.push({ path: `$.allowUnserved[${i}]`, message: `"${String(id).slice(0, 100)}" is not a capability of this agent` });
    });
    const common = {
      before: input.snapshot.manifests,
      after: input.resulting,
      previewTenantsBefore: input.snapshot.previewTenants,
      previewTenantsAfter: input.snapshot.previewTenants,
      live,
    };
    for (const u of unservedCapabilities({ ...common, allowUnserved: input.allowUnserved })) {
      issues.push({ path: `${input.pathOf(u.capabilityId)}.${u.reasons ? 'upstream' : 'handler'}`, message: unservedMessage(u) });
    }
    const allowed = new Set(input.allowUnserved);
    const staged = unservedCapabilities(common).filter((u) => allowed.has(u.capabilityId));
    for (const m of input.written) {
      if (m.state === 'removed') continue;
      issues.push(...limitIssues(m.limits, m.handler, declaredLimits(m.handler, live), input.pathOf(m.id)));
    }
    return { issues, staged };
  }
}

/** One audit event per capability published while some live node cannot serve it (allowUnserved). */
export function stagedAudit(agentId: string, staged: UnservedCapability[]): AuditEntry[] {
  return staged.map((u) => ({
    action: 'manifest.allow-unserved',
    targetType: 'manifest',
    targetId: `${agentId}/${u.capabilityId}`,
    after: { allowUnserved: true, handler: u.handler, nodesLacking: u.nodesLacking },
  }));
}

export const stagedSummary = (staged: UnservedCapability[]) =>
  staged.length ? ` (allowUnserved: ${staged.map((u) => u.capabilityId).join(', ')})` : '';
