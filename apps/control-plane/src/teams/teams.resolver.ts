import { UseGuards } from '@nestjs/common';
import { Args, Mutation, Query, Resolver } from '@nestjs/graphql';
import type { AdminPrincipal } from '@cp/auth';
import { AdminGuard } from '../auth/admin.guard';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { Roles } from '../auth/roles.decorator';
import { PageInput } from '../common/graphql/pagination';
import { TeamConnection, TeamInput, TeamModel } from './dto/team.model';
import { TeamsService } from './teams.service';

@Resolver(() => TeamModel)
@UseGuards(AdminGuard)
export class TeamsResolver {
  constructor(private readonly service: TeamsService) {}

  @Query(() => TeamModel)
  team(@CurrentPrincipal() principal: AdminPrincipal, @Args('id') id: string) {
    return this.service.get(principal, id);
  }

  @Query(() => TeamConnection, { description: 'Teams you may read (a team admin: its own).' })
  teams(@CurrentPrincipal() principal: AdminPrincipal, @Args('page', { type: () => PageInput, nullable: true }) page?: PageInput) {
    return this.service.list(principal, page);
  }

  @Mutation(() => TeamModel)
  @Roles('platform-admin')
  createTeam(@CurrentPrincipal() principal: AdminPrincipal, @Args('input') input: TeamInput) {
    return this.service.create(principal, input);
  }

  @Mutation(() => TeamModel, { description: "Renames a team (its id is what tokens and manifests' owner name, so it never changes)." })
  @Roles('platform-admin')
  renameTeam(@CurrentPrincipal() principal: AdminPrincipal, @Args('input') input: TeamInput) {
    return this.service.rename(principal, input);
  }
}
