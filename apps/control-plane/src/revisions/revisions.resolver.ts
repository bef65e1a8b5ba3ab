import { UseGuards } from '@nestjs/common';
import { Args, Int, Query, Resolver } from '@nestjs/graphql';
import type { AdminPrincipal } from '@cp/auth';
import { AdminGuard } from '../auth/admin.guard';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { PageInput } from '../common/graphql/pagination';
import { ManifestsAtRevisionModel, RegistryRevisionConnection, RegistryRevisionModel } from './dto/revision.model';
import { RevisionsService } from './revisions.service';

@Resolver(() => RegistryRevisionModel)
@UseGuards(AdminGuard)
export class RevisionsResolver {
  constructor(private readonly revisions: RevisionsService) {}

  @Query(() => RegistryRevisionConnection, {
    description: "An agent's registry revisions, newest first, with the capabilities each changed.",
  })
  registryRevisions(
    @CurrentPrincipal() principal: AdminPrincipal,
    @Args('agentId') agentId: string,
    @Args('page', { type: () => PageInput, nullable: true }) page?: PageInput,
  ) {
    return this.revisions.history(principal, agentId, page);
  }

  @Query(() => ManifestsAtRevisionModel, {
    description: "The agent's manifests as of a revision, to plan a rollback through applyManifests (the normal gate).",
  })
  manifestsAtRevision(
    @CurrentPrincipal() principal: AdminPrincipal,
    @Args('agentId') agentId: string,
    @Args('revision', { type: () => Int }) revision: number,
  ) {
    return this.revisions.manifestsAt(principal, agentId, revision);
  }
}
