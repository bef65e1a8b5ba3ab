import { UseGuards } from '@nestjs/common';
import { Args, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import type { AdminPrincipal } from '@cp/auth';
import { AdminGuard } from '../auth/admin.guard';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { PageInput } from '../common/graphql/pagination';
import { Loaders, type RequestLoaders } from '../common/graphql/request-loaders';
import { ManifestModel } from '../manifests/dto/manifest.model';
import { UsageDayConnection, UsageFilter, UsageSummaryModel, UsageWindowInput } from './dto/usage.model';
import { UsageService } from './usage.service';

@Resolver(() => UsageDayConnection)
@UseGuards(AdminGuard)
export class UsageResolver {
  constructor(private readonly service: UsageService) {}

  @Query(() => UsageDayConnection, { description: "An agent's calls per capability, tenant and day (newest day first)." })
  usage(
    @CurrentPrincipal() principal: AdminPrincipal,
    @Args('filter') filter: UsageFilter,
    @Args('page', { type: () => PageInput, nullable: true }) page?: PageInput,
  ) {
    return this.service.daily(principal, filter, page);
  }
}

/** `CapabilityManifest.usage`: batched per request (the parent was already access-checked). */
@Resolver(() => ManifestModel)
@UseGuards(AdminGuard)
export class ManifestUsageResolver {
  constructor(private readonly service: UsageService) {}

  @ResolveField(() => UsageSummaryModel)
  usage(
    @Parent() manifest: ManifestModel,
    @Loaders() loaders: RequestLoaders,
    @Args('window', { type: () => UsageWindowInput, nullable: true }) window?: UsageWindowInput,
  ) {
    return this.service.total(loaders, { agentId: manifest.agentId, capabilityId: manifest.id }, this.service.window(window));
  }
}
