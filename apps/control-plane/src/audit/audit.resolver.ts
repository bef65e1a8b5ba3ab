import { UseGuards } from '@nestjs/common';
import { Args, Query, Resolver } from '@nestjs/graphql';
import type { AdminPrincipal } from '@cp/auth';
import { AdminGuard } from '../auth/admin.guard';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { PageInput } from '../common/graphql/pagination';
import { AuditEventConnection, AuditFilter } from './dto/audit-event.model';
import { AuditService } from './audit.service';

@Resolver()
@UseGuards(AdminGuard)
export class AuditResolver {
  constructor(private readonly service: AuditService) {}

  @Query(() => AuditEventConnection, { description: 'Audit events, newest first.' })
  auditEvents(
    @CurrentPrincipal() principal: AdminPrincipal,
    @Args('filter', { type: () => AuditFilter, nullable: true }) filter?: AuditFilter,
    @Args('page', { type: () => PageInput, nullable: true }) page?: PageInput,
  ) {
    return this.service.list(principal, filter ?? {}, page);
  }
}
