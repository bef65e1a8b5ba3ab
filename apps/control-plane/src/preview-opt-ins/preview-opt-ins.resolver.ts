import { UseGuards } from '@nestjs/common';
import { Args, Mutation, Query, Resolver } from '@nestjs/graphql';
import type { AdminPrincipal } from '@cp/auth';
import { AdminGuard } from '../auth/admin.guard';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { PreviewOptInChangeModel, PreviewOptInInput, PreviewOptInModel } from './dto/preview-opt-in.model';
import { PreviewOptInsService } from './preview-opt-ins.service';

@Resolver(() => PreviewOptInModel)
@UseGuards(AdminGuard)
export class PreviewOptInsResolver {
  constructor(private readonly service: PreviewOptInsService) {}

  @Query(() => [PreviewOptInModel], { description: "Tenants opted in to an agent's previews (few per agent: not paginated)." })
  previewOptIns(@CurrentPrincipal() principal: AdminPrincipal, @Args('agentId') agentId: string) {
    return this.service.list(principal, agentId);
  }

  @Mutation(() => PreviewOptInChangeModel)
  createPreviewOptIn(@CurrentPrincipal() principal: AdminPrincipal, @Args('input') input: PreviewOptInInput) {
    return this.service.create(principal, input);
  }

  @Mutation(() => PreviewOptInChangeModel, { description: 'Ends an opt-in; answers the removed opt-in and the new revision.' })
  deletePreviewOptIn(@CurrentPrincipal() principal: AdminPrincipal, @Args('input') input: PreviewOptInInput) {
    return this.service.delete(principal, input);
  }
}
