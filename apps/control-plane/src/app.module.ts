import { Module } from '@nestjs/common';
import { type RedisClient, AppConfigModule, HealthModule, LoggingModule, RedisModule, RedisToken, redisProbe } from '@cp/common';
import { DbModule, PrismaService, postgresProbe } from '@cp/db';
import { AdminAuthModule } from './auth/admin-auth.module';
import { GraphQLApiModule } from './graphql/graphql-api.module';
import { AgentsModule } from './agents/agents.module';
import { ManifestsModule } from './manifests/manifests.module';
import { RevisionsModule } from './revisions/revisions.module';
import { UsageModule } from './usage/usage.module';
import { CapabilityHealthModule } from './capability-health/capability-health.module';
import { ProjectionsModule } from './projections/projections.module';
import { TeamsModule } from './teams/teams.module';
import { TenantsModule } from './tenants/tenants.module';
import { ScopesModule } from './scopes/scopes.module';
import { PreviewOptInsModule } from './preview-opt-ins/preview-opt-ins.module';
import { AuditModule } from './audit/audit.module';
import { UsageIngestModule } from './usage-ingest/usage-ingest.module';
import { RetirementModule } from './retirement/retirement.module';
import { TokenExchangeModule } from './token-exchange/token-exchange.module';
import { SyncModule } from './sync/sync.module';
import { CostBudgetsModule } from './cost-budgets/cost-budgets.module';
import { RoutingFeedbackModule } from './routing-feedback/routing-feedback.module';
import { RouteTestModule } from './route-test/route-test.module';
import { ObservabilityModule } from './observability/observability.module';
import { DeprecationModule } from './deprecation/deprecation.module';
import { NotificationsModule } from './notifications/notifications.module';
import { ConsoleModule } from './console/console.module';
import { CatalogModule } from './catalog/catalog.module';
import { ChangeRequestsModule } from './change-requests/change-requests.module';

@Module({
  imports: [
    AppConfigModule,
    LoggingModule,
    ObservabilityModule,
    DbModule,
    RedisModule,
    HealthModule.forRoot({
      inject: [PrismaService, RedisToken],
      useFactory: (prisma: PrismaService, redis: RedisClient) => [postgresProbe(prisma), redisProbe(redis)],
    }),
    GraphQLApiModule,
    AdminAuthModule,
    AgentsModule,
    ManifestsModule,
    RevisionsModule,
    UsageModule,
    CapabilityHealthModule,
    ProjectionsModule,
    TeamsModule,
    TenantsModule,
    ScopesModule,
    PreviewOptInsModule,
    AuditModule,
    UsageIngestModule,
    RetirementModule,
    TokenExchangeModule,
    SyncModule,
    CostBudgetsModule,
    RoutingFeedbackModule,
    RouteTestModule,
    DeprecationModule,
    NotificationsModule,
    ConsoleModule,
    CatalogModule,
    ChangeRequestsModule,
  ],
})
export class AppModule {}
