import { Injectable } from '@nestjs/common';
import type { AdminPrincipal } from '@cp/auth';
import { RegistryError, RegistryErrorCode } from '@cp/db';
import type { RegistrySnapshot } from '@cp/capabilities';
import { AgentsService } from '../agents/agents.service';
import { notFound } from '../common/errors';
import { ManifestsRepository } from './manifests.repository';

/**
 * The registry an agent's manifest change starts from: write access to the agent (its team owns
 * its registry), then a consistent snapshot at exactly the caller's expectedRevision. Checking the
 * revision here, before validation, answers a stale caller with CONFLICT rather than with errors
 * about a registry it has not seen; RegistryWriter checks it again atomically when writing.
 */
@Injectable()
export class ManifestAccess {
  constructor(
    private readonly agents: AgentsService,
    private readonly manifests: ManifestsRepository,
  ) {}

  /** Read access to the agent, then its snapshot. */
  async registryForRead(principal: AdminPrincipal, agentId: string): Promise<RegistrySnapshot> {
    await this.agents.get(principal, agentId);
    const snapshot = await this.manifests.snapshot(agentId);
    if (!snapshot) throw notFound('agent', agentId);
    return snapshot;
  }

  async registryForWrite(
    principal: AdminPrincipal,
    agentId: string,
    expectedRevision: number | null | undefined,
  ): Promise<RegistrySnapshot> {
    await this.agents.getForWrite(principal, agentId);
    const snapshot = await this.manifests.snapshot(agentId);
    if (!snapshot) throw notFound('agent', agentId);
    if (expectedRevision !== null && expectedRevision !== undefined && snapshot.revision !== expectedRevision) {
      throw new RegistryError(
        RegistryErrorCode.StaleRevision,
        `agent "${agentId}" is at revision ${snapshot.revision}, not ${expectedRevision}: reload and retry`,
        {
          agentId,
          expectedRevision,
          currentRevision: snapshot.revision,
        },
      );
    }
    return snapshot;
  }
}
