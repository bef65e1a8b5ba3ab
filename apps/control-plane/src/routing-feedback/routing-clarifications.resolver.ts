import { UseGuards } from '@nestjs/common';
import { Args, ID, Mutation, Query, Resolver } from '@nestjs/graphql';
import type { AdminPrincipal } from '@cp/auth';
import { AdminGuard } from '../auth/admin.guard';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { PromoteClarificationInput, PromoteClarificationResultModel, RoutingClarificationModel } from './dto/routing-clarification.model';
import { RoutingClarificationsService } from './routing-clarifications.service';

@Resolver(() => RoutingClarificationModel)
@UseGuards(AdminGuard)
export class RoutingClarificationsResolver {
  constructor(private readonly clarifications: RoutingClarificationsService) {}

  @Query(() => [RoutingClarificationModel], {
    description: 'Clarifications callers resolved by naming a capability, most frequent first (at most 500), for review.',
  })
  routingClarifications(
    @CurrentPrincipal() principal: AdminPrincipal,
    @Args('agentId') agentId: string,
    @Args('status', { nullable: true, description: 'pending | promoted | dismissed' }) status?: string,
  ) {
    return this.clarifications.list(principal, agentId, status ?? undefined);
  }

  @Mutation(() => PromoteClarificationResultModel, {
    description: "Adds a reviewed clarification to its capability's examples or routing terms (an audited manifest update, new revision).",
  })
  promoteRoutingClarification(@CurrentPrincipal() principal: AdminPrincipal, @Args('input') input: PromoteClarificationInput) {
    return this.clarifications.promote(principal, input);
  }

  @Mutation(() => RoutingClarificationModel, {
    description:
      'Marks a pending clarification as reviewed and not worth learning. A promoted one is refused (its text is in the manifest); a dismissed one is answered as it is.',
  })
  dismissRoutingClarification(@CurrentPrincipal() principal: AdminPrincipal, @Args('id', { type: () => ID }) id: string) {
    return this.clarifications.dismiss(principal, id);
  }
}
