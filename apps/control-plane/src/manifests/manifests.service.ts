import { Injectable } from '@nestjs/common';
import type { AdminPrincipal } from '@cp/auth';
import { AccessPolicy } from '../auth/access-policy';
import { notFound } from '../common/errors';
import { decodeCursor, pageSize, toPage, type Page, type PageInput } from '../common/graphql/pagination';
import type { ManifestFilter } from './dto/manifest.input';
import { ManifestsRepository, type ManifestColumn, type ManifestListRow, type ManifestRecord } from './manifests.repository';

/** Reads. A manifest is readable by its agent's team and by its owner team (and by viewers/platform admins). */
@Injectable()
export class ManifestsService {
  constructor(
    private readonly manifests: ManifestsRepository,
    private readonly access: AccessPolicy,
  ) {}

  async get(principal: AdminPrincipal, agentId: string, capabilityId: string): Promise<ManifestRecord> {
    const record = await this.manifests.find(agentId, capabilityId);
    const ref = `${agentId}/${capabilityId}`;
    if (!record || !(this.access.canRead(principal, record.agentTeamId) || this.access.canRead(principal, record.manifest.owner)))
      throw notFound('manifest', ref);
    return record;
  }

  /** A page of the manifests the principal may read, with the key columns and `columns` (and each one's usage totals). */
  async list(
    principal: AdminPrincipal,
    filter: ManifestFilter,
    page: PageInput | undefined,
    columns: ReadonlySet<ManifestColumn>,
    usage = false,
  ): Promise<Page<ManifestListRow>> {
    const size = pageSize(page);
    const cursor = decodeCursor(page?.after);
    const after = cursor && cursor.length === 2 ? ([String(cursor[0]), String(cursor[1])] as [string, string]) : undefined;
    const rows = await this.manifests.list(
      {
        teams: this.access.readableTeams(principal),
        agentId: filter.agentId ?? undefined,
        state: filter.state ?? undefined,
        visibility: filter.visibility ?? undefined,
        tag: filter.tag ?? undefined,
        owner: filter.owner ?? undefined,
      },
      after,
      size + 1,
      columns,
      usage,
    );
    return toPage(rows, size, (r) => [r.agentId, r.capabilityId]);
  }
}
