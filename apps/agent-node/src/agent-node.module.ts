import { Global, Module } from '@nestjs/common';
import { AppConfigModule, AppConfigToken, HealthModule, LoggingModule, RedisModule, type AppConfig } from '@cp/common';
import { NodeSync, nodeSyncHealthCheck, NodeSyncModule } from '@cp/node-sdk';
import { A2AEndpoints } from './a2a-endpoints';
import { nodeIdentity, NodeIdentityToken } from './node-identity';
import { usageProviders } from './usage-reporting';

/** NodeSync for every module of the app (the health probe's factory injects it too). */
@Global()
@Module({ imports: [NodeSyncModule], exports: [NodeSyncModule] })
class NodeSyncGlobalModule {}

/**
 * Agent nodes never talk to PostgreSQL: they serve what they synced from the control plane.
 * Ready = a bundle is applied (from the control plane or the disk copy), the control plane has
 * not refused this node's registration, and Redis answers.
 */
@Module({
  imports: [
    AppConfigModule,
    LoggingModule,
    RedisModule,
    NodeSyncGlobalModule,
    HealthModule.forRoot({
      inject: [NodeSync],
      useFactory: (sync: NodeSync) => [{ name: 'bundle', check: nodeSyncHealthCheck(sync) }],
    }),
  ],
  providers: [
    { provide: NodeIdentityToken, inject: [AppConfigToken], useFactory: (config: AppConfig) => nodeIdentity(config) },
    ...usageProviders,
    A2AEndpoints,
  ],
})
export class AgentNodeModule {}
