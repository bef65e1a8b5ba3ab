import { UseGuards } from '@nestjs/common';
import { Args, Query, Resolver } from '@nestjs/graphql';
import type { AdminPrincipal } from '@cp/auth';
import { AdminGuard } from '../auth/admin.guard';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { RouteTestInput, RouteTestReportModel } from './dto/route-test.model';
import { RouteTestService } from './route-test.service';

@Resolver()
@UseGuards(AdminGuard)
export class RouteTestResolver {
  constructor(private readonly routeTests: RouteTestService) {}

  @Query(() => RouteTestReportModel, {
    description: 'Routes labelled messages through the router index of the current registry or of proposed manifests (cpctl route test).',
  })
  routeTest(@CurrentPrincipal() principal: AdminPrincipal, @Args('input') input: RouteTestInput): Promise<RouteTestReportModel> {
    return this.routeTests.run(principal, input);
  }
}
