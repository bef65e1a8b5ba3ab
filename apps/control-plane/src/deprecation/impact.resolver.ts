import { UseGuards } from '@nestjs/common';
import { Args, Int, Query, Resolver } from '@nestjs/graphql';
import type { AdminPrincipal } from '@cp/auth';
import { AdminGuard } from '../auth/admin.guard';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { CapabilityImpactService } from './capability-impact.service';
import { CapabilityImpactModel } from './dto/impact.model';

@Resolver(() => CapabilityImpactModel)
@UseGuards(AdminGuard)
export class ImpactResolver {
  constructor(private readonly impact: CapabilityImpactService) {}

  @Query(() => CapabilityImpactModel, {
    description: 'Who still calls a capability (tenants, nodes, per day), whether usage is known, and when retirement could remove it.',
  })
  capabilityImpact(
    @CurrentPrincipal() principal: AdminPrincipal,
    @Args('agentId') agentId: string,
    @Args('capabilityId') capabilityId: string,
    @Args('days', { type: () => Int, nullable: true, description: 'The window in days (default RETIREMENT_WINDOW_DAYS, at most 400).' })
    days?: number | null,
  ): Promise<CapabilityImpactModel> {
    return this.impact.report(principal, agentId, capabilityId, days);
  }
}
