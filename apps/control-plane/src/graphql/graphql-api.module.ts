import { join } from 'node:path';
import { Logger, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { GraphQLModule } from '@nestjs/graphql';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Registry } from 'prom-client';
import { AppConfigToken, MetricsRegistryToken, type AppConfig } from '@cp/common';
import { graphqlMetricsPlugin } from '../observability/graphql-metrics.plugin';
import { createErrorFormatter } from '../common/errors';
import { ApiExceptionFilter } from '../common/http/api-exception.filter';
import { complexityLimitPlugin } from '../common/graphql/complexity.plugin';
import { depthLimitRule } from '../common/graphql/depth-limit.rule';
import { nulCharacterPlugin } from '../common/graphql/nul-character.plugin';
import { operationShapeRule } from '../common/graphql/operation-shape.rule';
import { unavailableStatusPlugin } from '../common/graphql/unavailable-status.plugin';
import { RequestLoaders } from '../common/graphql/request-loaders';
import { prefetchedFields } from './prefetched-fields';

/** The committed, sorted schema (a test regenerates it and fails on drift). */
export const SCHEMA_FILE = join(process.cwd(), 'apps/control-plane/schema.graphql');

/** What every resolver finds in its GraphQL context. */
export interface GraphQLRequestContext {
  req: FastifyRequest;
  reply: FastifyReply;
  loaders: RequestLoaders;
}

/**
 * Where the code-first schema goes: GRAPHQL_SCHEMA_FILE when set, otherwise memory. Running the
 * app never writes the committed schema (a stale dist/ once rewrote it, and parallel suites must
 * not race on it); the drift test generates it on purpose (UPDATE_SCHEMA=1 npx jest test/e2e/admin-schema).
 */
export function schemaFileFor(config: Pick<AppConfig, 'GRAPHQL_SCHEMA_FILE'>): string | true {
  return config.GRAPHQL_SCHEMA_FILE ?? true;
}

/** The admin GraphQL API: Apollo Server 5 on the app's Fastify instance, at /graphql. */
@Module({
  imports: [
    GraphQLModule.forRootAsync<ApolloDriverConfig>({
      driver: ApolloDriver,
      inject: [AppConfigToken, { token: MetricsRegistryToken, optional: true }],
      useFactory: (config: AppConfig, registry?: Registry): ApolloDriverConfig => ({
        path: '/graphql',
        autoSchemaFile: schemaFileFor(config),
        sortSchema: true,
        // Guards also run on @ResolveField entry points; AdminGuard verifies the token once per request.
        fieldResolverEnhancers: ['guards'],
        // Fields a list resolver may fill in for its whole page (setPrefetched).
        transformSchema: prefetchedFields([['CapabilityManifest', 'usage']]),
        context: (req: FastifyRequest, reply: FastifyReply): GraphQLRequestContext => ({ req, reply, loaders: new RequestLoaders() }),
        // The parser stops at GRAPHQL_MAX_TOKENS, so no document is large enough to make validation slow.
        parseOptions: { maxTokens: config.GRAPHQL_MAX_TOKENS },
        validationRules: [
          depthLimitRule(config.GRAPHQL_MAX_DEPTH),
          operationShapeRule({
            maxAliases: config.GRAPHQL_MAX_ALIASES,
            maxRootFields: config.GRAPHQL_MAX_ROOT_FIELDS,
            // Every field costs at least 1, so more fields than the complexity limit can never pass it.
            maxNodes: config.GRAPHQL_MAX_COMPLEXITY,
          }),
        ],
        // @apollo/server ships ESM and CJS typings; Nest's config names the ESM ones.
        plugins: [
          // PostgreSQL cannot store NUL: refused for every argument here, named by its path (docs/security.md).
          nulCharacterPlugin() as NonNullable<ApolloDriverConfig['plugins']>[number],
          complexityLimitPlugin(config.GRAPHQL_MAX_COMPLEXITY) as NonNullable<ApolloDriverConfig['plugins']>[number],
          unavailableStatusPlugin() as NonNullable<ApolloDriverConfig['plugins']>[number],
          graphqlMetricsPlugin(registry) as NonNullable<ApolloDriverConfig['plugins']>[number],
          // No cache hints are used (no CDN in front of /graphql): without this, Apollo's default
          // cache-control plugin wraps every field resolver to read hints (a list of 100 items
          // with ten fields each pays it a thousand times; docs/performance.md).
          ApolloServerPluginCacheControlDisabled() as NonNullable<ApolloDriverConfig['plugins']>[number],
        ],
        // Nest's own plugin would reset every execution-error response to 200 after ours ran;
        // the only non-200 status an execution error gets is unavailableStatusPlugin's 503.
        preserveHttpStatusForExecutionErrors: false,
        formatError: createErrorFormatter(new Logger('GraphQL')),
        includeStacktraceInErrorResponses: false,
        playground: false,
        introspection: config.NODE_ENV !== 'production',
      }),
    }),
  ],
  providers: [
    {
      provide: APP_FILTER,
      inject: [AppConfigToken],
      useFactory: (config: AppConfig) => new ApiExceptionFilter(config.MAX_BODY_BYTES),
    },
  ],
})
export class GraphQLApiModule {}
