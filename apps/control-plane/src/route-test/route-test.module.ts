import { Module } from '@nestjs/common';
import { RegistryModule } from '@cp/db';
import { AgentsModule } from '../agents/agents.module';
import { RouteTestResolver } from './route-test.resolver';
import { RouteTestService } from './route-test.service';

/** Routing tests through the admin API (ADR 0092). */
@Module({
  imports: [RegistryModule, AgentsModule],
  providers: [RouteTestService, RouteTestResolver],
})
export class RouteTestModule {}
