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
      },
      cursor === undefined ? undefined : BigInt(String(cursor)),
      size + 1,
    );
    return toPage(rows, size, (e) => [e.id]);
  }
}
