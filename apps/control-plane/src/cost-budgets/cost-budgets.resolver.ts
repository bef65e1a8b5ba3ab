import { UseGuards } from '@nestjs/common';
import { Args, ID, Mutation, Query, Resolver } from '@nestjs/graphql';
import type { AdminPrincipal } from '@cp/auth';
import { AdminGuard } from '../auth/admin.guard';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { CostBudgetsModel, SetCostBudgetsInput } from './dto/cost-budgets.dto';
import { CostBudgetsService } from './cost-budgets.service';

@Resolver(() => CostBudgetsModel)
@UseGuards(AdminGuard)
export class CostBudgetsResolver {
  constructor(private readonly service: CostBudgetsService) {}

  @Query(() => CostBudgetsModel, { description: "The agent's rate budgets per cost class (enforced by its nodes, shared through Redis)." })
  costBudgets(@CurrentPrincipal() principal: AdminPrincipal, @Args('agentId', { type: () => ID }) agentId: string) {
    return this.service.get(principal, agentId);
  }

  @Mutation(() => CostBudgetsModel, { description: "Replaces the agent's rate budgets per cost class (a registry change)." })
  setCostBudgets(@CurrentPrincipal() principal: AdminPrincipal, @Args('input') input: SetCostBudgetsInput) {
    return this.service.set(principal, input);
  }
}
