import { UseGuards } from '@nestjs/common';
import { Args, Mutation, Query, Resolver } from '@nestjs/graphql';
import type { AdminPrincipal } from '@cp/auth';
import { AdminGuard } from '../auth/admin.guard';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { PageInput } from '../common/graphql/pagination';
import { ChangeRequestsService } from './change-requests.service';
import { ChangeRequestFilter, DecideChangeRequestInput, SetApprovalPolicyInput } from './dto/change-request.input';
import { ApprovalPolicyModel, ChangeRequestConnection, ChangeRequestModel } from './dto/change-request.model';

@Resolver(() => ChangeRequestModel)
@UseGuards(AdminGuard)
export class ChangeRequestsResolver {
  constructor(private readonly requests: ChangeRequestsService) {}

  @Query(() => ChangeRequestModel, { description: 'One change request of an agent you may read.' })
  changeRequest(@CurrentPrincipal() principal: AdminPrincipal, @Args('id') id: string) {
    return this.requests.get(principal, id);
  }

  @Query(() => ChangeRequestConnection, { description: 'Change requests of agents you may read, newest first.' })
  changeRequests(
    @CurrentPrincipal() principal: AdminPrincipal,
    @Args('filter', { type: () => ChangeRequestFilter, nullable: true }) filter?: ChangeRequestFilter,
    @Args('page', { type: () => PageInput, nullable: true }) page?: PageInput,
  ) {
    return this.requests.list(principal, filter ?? {}, page);
  }

  @Mutation(() => ChangeRequestModel, {
    description:
      "Approves a pending change request and applies its plan at its base revision (STALE_PLAN when the agent moved on). Needs write access to the agent; never the author's own.",
  })
  approveChangeRequest(@CurrentPrincipal() principal: AdminPrincipal, @Args('input') input: DecideChangeRequestInput) {
    return this.requests.approve(principal, input);
  }

  @Mutation(() => ChangeRequestModel, {
    description: 'Rejects a pending change request, with a comment; the author may withdraw their own.',
  })
  rejectChangeRequest(@CurrentPrincipal() principal: AdminPrincipal, @Args('input') input: DecideChangeRequestInput) {
    return this.requests.reject(principal, input);
  }

  @Query(() => ApprovalPolicyModel, { description: 'Which kinds of change need a second admin.' })
  approvalPolicy() {
    return this.requests.policy();
  }

  @Mutation(() => ApprovalPolicyModel, { description: 'Platform admins: sets which kinds of change need a second admin.' })
  setApprovalPolicy(@CurrentPrincipal() principal: AdminPrincipal, @Args('input') input: SetApprovalPolicyInput) {
    return this.requests.setPolicy(principal, input.kinds);
  }
}
