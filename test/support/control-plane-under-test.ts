/**
 * The control plane's node side as e2e suites boot it: config, database, Redis, the revision
 * publisher and the node API, without the GraphQL admin API (suites that need it boot AppModule).
 * One definition instead of a module copied into each suite (issue 29); the options name what a
 * suite changes, so a reader sees at a glance how its control plane differs from the next one.
 *
 *   bootApp(controlPlaneUnderTest({ a2a: true }), config)
 */
import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { AppConfigModule, AppConfigToken, RedisModule, type AppConfig } from '@cp/common';
import { DbModule } from '@cp/db';
import { SyncPublisherModule, type SyncPublisherOptions } from '@cp/sync';
import { ApiExceptionFilter } from '../../apps/control-plane/src/common/http/api-exception.filter';
import { NodeApiModule } from '../../apps/control-plane/src/node-api/node-api.module';
import { TokenExchangeModule } from '../../apps/control-plane/src/token-exchange/token-exchange.module';
import { UsageIngestModule } from '../../apps/control-plane/src/usage-ingest/usage-ingest.module';

export interface ControlPlaneUnderTestOptions {
  /**
   * The revision publisher's relay (merged over the default: the outbox relayed every 200 ms after
   * 100 ms of grace, no re-announcing). `{ outboxIntervalMs: 0 }`: a revision committed silently
   * stays unannounced, for suites that plant or announce bundles themselves.
   */
  sync?: Partial<SyncPublisherOptions>;
  /** What agent nodes serving A2A need besides the node API: usage ingest and token exchange. */
  a2a?: boolean;
  /** The control plane's global filter, so bodies Fastify refuses before a route runs get the node API's answer. */
  exceptionFilter?: boolean;
}

export const DEFAULT_TEST_SYNC: Partial<SyncPublisherOptions> = { outboxIntervalMs: 200, outboxGraceMs: 100, reannounceIntervalMs: 0 };

@Module({})
class ControlPlaneUnderTest {}

export function controlPlaneUnderTest(options: ControlPlaneUnderTestOptions = {}): DynamicModule {
  const providers: Provider[] = options.exceptionFilter
    ? [{ provide: APP_FILTER, inject: [AppConfigToken], useFactory: (c: AppConfig) => new ApiExceptionFilter(c.MAX_BODY_BYTES) }]
    : [];
  return {
    module: ControlPlaneUnderTest,
    imports: [
      AppConfigModule,
      DbModule,
      RedisModule,
      SyncPublisherModule.forRoot({ ...DEFAULT_TEST_SYNC, ...options.sync }),
      NodeApiModule,
      ...(options.a2a ? [UsageIngestModule, TokenExchangeModule] : []),
    ],
    providers,
  };
}
