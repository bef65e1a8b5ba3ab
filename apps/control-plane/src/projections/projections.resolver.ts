import { UseGuards } from '@nestjs/common';
import { Args, Query, Resolver } from '@nestjs/graphql';
import type { AdminPrincipal } from '@cp/auth';
import { AdminGuard } from '../auth/admin.guard';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { CallerInput, CardModel, ProjectionModel, VisibilityExplanationModel } from './dto/projection.model';
import { ProjectionsService } from './projections.service';

@Resolver()
@UseGuards(AdminGuard)
export class ProjectionsResolver {
  constructor(private readonly service: ProjectionsService) {}

  @Query(() => CardModel, { description: 'The public card (what anonymous callers get).' })
  publicCard(@CurrentPrincipal() principal: AdminPrincipal, @Args('agentId') agentId: string) {
    return this.service.publicCard(principal, agentId);
  }

  @Query(() => CardModel, { description: 'The extended card the given caller is entitled to.' })
  extendedCard(@CurrentPrincipal() principal: AdminPrincipal, @Args('agentId') agentId: string, @Args('as') as: CallerInput) {
    return this.service.extendedCard(principal, agentId, as);
  }

  @Query(() => ProjectionModel, { description: 'The router index for a caller (anonymous when `as` is omitted).' })
  routerIndex(
    @CurrentPrincipal() principal: AdminPrincipal,
    @Args('agentId') agentId: string,
    @Args('as', { type: () => CallerInput, nullable: true }) as?: CallerInput,
  ) {
    return this.service.routerIndex(principal, agentId, as);
  }

  @Query(() => ProjectionModel, { description: "The execution policy: the node's whole policy, or one caller's." })
  executionPolicy(
    @CurrentPrincipal() principal: AdminPrincipal,
    @Args('agentId') agentId: string,
    @Args('as', { type: () => CallerInput, nullable: true }) as?: CallerInput,
  ) {
    return this.service.executionPolicy(principal, agentId, as);
  }

  @Query(() => VisibilityExplanationModel, {
    description: 'Why a capability is or is not visible/routable for a caller (anonymous when `as` is omitted).',
  })
  explainVisibility(
    @CurrentPrincipal() principal: AdminPrincipal,
    @Args('agentId') agentId: string,
    @Args('capabilityId') capabilityId: string,
    @Args('as', { type: () => CallerInput, nullable: true }) as?: CallerInput,
  ) {
    return this.service.explainVisibility(principal, agentId, capabilityId, as);
  }
}
