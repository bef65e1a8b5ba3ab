import { UseGuards } from '@nestjs/common';
import { Args, Query, Resolver } from '@nestjs/graphql';
import type { AdminPrincipal } from '@cp/auth';
import { AdminGuard } from '../auth/admin.guard';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { PageInput } from '../common/graphql/pagination';
import { CapabilityHealthFilter, CapabilityHealthReportModel } from './dto/capability-health.model';
import { CapabilityHealthService } from './capability-health.service';

@Resolver(() => CapabilityHealthReportModel)
@UseGuards(AdminGuard)
export class CapabilityHealthResolver {
  constructor(private readonly service: CapabilityHealthService) {}

  @Query(() => CapabilityHealthReportModel, {
    description:
      "An agent's calls, outcomes, error rate and p50/p95 handler latency per capability and tenant over a time range (ADR 0310).",
  })
  capabilityHealth(
    @CurrentPrincipal() principal: AdminPrincipal,
    @Args('filter') filter: CapabilityHealthFilter,
    @Args('page', { type: () => PageInput, nullable: true }) page?: PageInput,
  ) {
    return this.service.report(principal, filter, page);
  }
}
