import { Injectable } from '@nestjs/common';
import type { AdminPrincipal } from '@cp/auth';
import { AccessPolicy } from '../auth/access-policy';
import { CommonError, CommonErrorCode } from '../common/errors';
import { decodeCursor, pageSize, toPage, type Page, type PageInput } from '../common/graphql/pagination';
import type { AuditEventModel, AuditFilter } from './dto/audit-event.model';
import { AuditRepository } from './audit.repository';

/** Team admins read the audit of their teams' agents only (registry-wide events are for viewers and platform admins). */
@Injectable()
export class AuditService {
  constructor(
    private readonly audit: AuditRepository,
    private readonly access: AccessPolicy,
  ) {}

  async list(principal: AdminPrincipal, filter: AuditFilter, page: PageInput | undefined): Promise<Page<AuditEventModel>> {
    if (filter.traceId != null && !/^[0-9a-f]{32}$/.test(filter.traceId))
      throw new CommonError(CommonErrorCode.InvalidInput, 'traceId must be 32 lowercase hex digits', {
        validationErrors: [{ path: '$.filter.traceId', message: 'must be 32 lowercase hex digits' }],
      });
    if (filter.onBehalfOf != null && (filter.onBehalfOf.length === 0 || filter.onBehalfOf.length > 256))
      throw new CommonError(CommonErrorCode.InvalidInput, 'onBehalfOf must be 1 to 256 characters', {
        validationErrors: [{ path: '$.filter.onBehalfOf', message: 'must be 1 to 256 characters' }],
      });
    const size = pageSize(page);
    const cursor = decodeCursor(page?.after)?.[0];
    if (cursor !== undefined && !/^\d+$/.test(String(cursor)))
      throw new CommonError(CommonErrorCode.InvalidInput, 'invalid cursor', {
        validationErrors: [{ path: '$.page.after', message: 'invalid cursor' }],
      });
    const rows = await this.audit.list(
      {
        teams: this.access.readableTeams(principal),
        agentId: filter.agentId ?? undefined,
        actor: filter.actor ?? undefined,
        action: filter.action ?? undefined,
        targetType: filter.targetType ?? undefined,
        targetId: filter.targetId ?? undefined,
        from: filter.from ?? undefined,
        to: filter.to ?? undefined,
        traceId: filter.traceId ?? undefined,
        onBehalfOf: filter.onBehalfOf ?? undefined,
      },
      cursor === undefined ? undefined : BigInt(String(cursor)),
      size + 1,
    );
    return toPage(rows, size, (e) => [e.id]);
  }
}
