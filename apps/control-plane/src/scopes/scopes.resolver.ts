import { UseGuards } from '@nestjs/common';
import { Args, Mutation, Query, Resolver } from '@nestjs/graphql';
import type { AdminPrincipal } from '@cp/auth';
import { AdminGuard } from '../auth/admin.guard';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { Roles } from '../auth/roles.decorator';
import { PageInput } from '../common/graphql/pagination';
import { ScopeConnection, ScopeInput, ScopeModel } from './dto/scope.model';
import { ScopesService } from './scopes.service';

@Resolver(() => ScopeModel)
@UseGuards(AdminGuard)
export class ScopesResolver {
  constructor(private readonly service: ScopesService) {}

  @Query(() => ScopeModel)
  scope(@Args('name') name: string) {
    return this.service.get(name);
  }

  @Query(() => ScopeConnection)
  scopes(@Args('page', { type: () => PageInput, nullable: true }) page?: PageInput) {
    return this.service.list(page);
  }

  @Mutation(() => ScopeModel)
  @Roles('platform-admin')
  createScope(@CurrentPrincipal() principal: AdminPrincipal, @Args('input') input: ScopeInput) {
    return this.service.create(principal, input);
  }

  @Mutation(() => ScopeModel)
  @Roles('platform-admin')
  updateScope(@CurrentPrincipal() principal: AdminPrincipal, @Args('input') input: ScopeInput) {
    return this.service.update(principal, input);
  }

  @Mutation(() => ScopeModel, { description: 'Deletes a scope no manifest requires; answers the deleted scope.' })
  @Roles('platform-admin')
  deleteScope(@CurrentPrincipal() principal: AdminPrincipal, @Args('name') name: string) {
    return this.service.delete(principal, name);
  }
}
