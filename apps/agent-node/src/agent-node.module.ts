import { Global, Module } from '@nestjs/common';
import { AppConfigModule, AppConfigToken, HealthModule, LoggingModule, type AppConfig } from '@cp/common';
import { NodeSync, NodeSyncModule } from '@cp/node-sdk';
import { A2AEndpoints } from './a2a-endpoints';
import { nodeSyncProbes } from './node-health';
import { nodeIdentity, NodeIdentityToken } from './node-identity';
import { usageProviders } from './usage-reporting';

/** NodeSync for every module of the app (the health probe's factory injects it too). */
@Global()
@Module({ imports: [NodeSyncModule], exports: [NodeSyncModule] })
class NodeSyncGlobalModule {}

/**
 * Agent nodes never talk to PostgreSQL: they serve what they synced from the control plane.
 * Ready = a verified bundle is applied (from the control plane or the disk copy); Redis and the
 * control plane are reported in /healthz, not gated on (see node-health.ts).
 */
@Module({
  imports: [AppConfigModule, LoggingModule, NodeSyncGlobalModule, HealthModule.forRoot({ inject: [NodeSync], useFactory: nodeSyncProbes })],
  providers: [
    { provide: NodeIdentityToken, inject: [AppConfigToken], useFactory: (config: AppConfig) => nodeIdentity(config) },
    ...usageProviders,
    A2AEndpoints,
  ],
})
export class AgentNodeModule {}
