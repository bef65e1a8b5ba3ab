import { UseGuards } from '@nestjs/common';
import { Args, Mutation, Query, Resolver } from '@nestjs/graphql';
import type { AdminPrincipal } from '@cp/auth';
import { AdminGuard } from '../auth/admin.guard';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { Roles } from '../auth/roles.decorator';
import { PageInput } from '../common/graphql/pagination';
import { TenantConnection, TenantInput, TenantModel } from './dto/tenant.model';
import { TenantsService } from './tenants.service';

@Resolver(() => TenantModel)
@UseGuards(AdminGuard)
export class TenantsResolver {
  constructor(private readonly service: TenantsService) {}

  @Query(() => TenantModel)
  tenant(@Args('id') id: string) {
    return this.service.get(id);
  }

  @Query(() => TenantConnection)
  tenants(@Args('page', { type: () => PageInput, nullable: true }) page?: PageInput) {
    return this.service.list(page);
  }

  @Mutation(() => TenantModel)
  @Roles('platform-admin')
  createTenant(@CurrentPrincipal() principal: AdminPrincipal, @Args('input') input: TenantInput) {
    return this.service.create(principal, input);
  }

  @Mutation(() => TenantModel)
  @Roles('platform-admin')
  updateTenant(@CurrentPrincipal() principal: AdminPrincipal, @Args('input') input: TenantInput) {
    return this.service.update(principal, input);
  }

  @Mutation(() => TenantModel, { description: 'Deletes a tenant no preview opt-in or manifest names; answers the deleted tenant.' })
  @Roles('platform-admin')
  deleteTenant(@CurrentPrincipal() principal: AdminPrincipal, @Args('id') id: string) {
    return this.service.delete(principal, id);
  }
}
