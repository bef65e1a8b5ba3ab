import { Injectable } from '@nestjs/common';
import { toManifestDocument } from '@cp/capabilities';
import type { AdminPrincipal } from '@cp/auth';
import { AgentsService } from '../agents/agents.service';
import { InputValidationError, notFound } from '../common/errors';
import { decodeCursor, pageSize, toPage, type Page, type PageInput } from '../common/graphql/pagination';
import { ManifestAccess } from '../manifests/manifest-access';
import type { ManifestsAtRevisionModel, RegistryRevisionModel } from './dto/revision.model';
import { RevisionsRepository } from './revisions.repository';

/**
 * An agent's revision history and its manifests as of a revision (to plan a rollback). Read
 * access exactly like the agent's other reads: outside the agent's teams it is NOT_FOUND.
 */
@Injectable()
export class RevisionsService {
  constructor(
    private readonly repository: RevisionsRepository,
    private readonly agents: AgentsService,
    private readonly access: ManifestAccess,
  ) {}

  async history(principal: AdminPrincipal, agentId: string, page: PageInput | undefined): Promise<Page<RegistryRevisionModel>> {
    await this.agents.get(principal, agentId);
    const size = pageSize(page);
    const cursor = decodeCursor(page?.after);
    const before = cursor?.length === 1 && typeof cursor[0] === 'number' ? cursor[0] : undefined;
    if (cursor && before === undefined) throw new InputValidationError([{ path: '$.page.after', message: 'invalid cursor' }]);
    const rows = await this.repository.list(agentId, before, size + 1);
    const shown = rows.slice(0, size);
    const changes = await this.repository.capabilities(
      agentId,
      shown.map((r) => r.revision),
    );
    const nodes = rows.map((r) => ({
      agentId,
      ...r,
      capabilities: changes.filter((c) => c.revision === r.revision).map(({ capabilityId, action }) => ({ capabilityId, action })),
    }));
    return toPage(nodes, size, (r) => [r.revision]);
  }

  async manifestsAt(principal: AdminPrincipal, agentId: string, revision: number): Promise<ManifestsAtRevisionModel> {
    if (!Number.isInteger(revision) || revision < 1) {
      throw new InputValidationError([{ path: '$.revision', message: 'must be a revision of the agent (1 or more)' }]);
    }
    const snapshot = await this.access.registryForRead(principal, agentId);
    if (revision > snapshot.revision || !(await this.repository.exists(agentId, revision))) {
      throw notFound('revision', `${agentId}@${revision}`);
    }
    const documents = await this.repository.documentsAt(agentId, revision);
    // A capability the registry never changed (no audit event) is as it is now.
    for (const m of snapshot.manifests) if (!documents.has(m.id)) documents.set(m.id, toManifestDocument(m));
    const manifests = [...documents.entries()]
      .filter(([, document]) => isLive(document))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, document]) => document);
    return { agentId, revision, currentRevision: snapshot.revision, manifests };
  }
}

/** A document that existed at the revision and was not removed. */
const isLive = (document: unknown) =>
  document !== null && typeof document === 'object' && (document as { state?: unknown }).state !== 'removed';
