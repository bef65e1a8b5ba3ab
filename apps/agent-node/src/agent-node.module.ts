import { Global, Module } from '@nestjs/common';
import { AppConfigModule, AppConfigToken, HealthModule, LoggingModule, MetricsModule, RedisModule, type AppConfig } from '@cp/common';
import { HandlerRegistry, NodeSync, NodeSyncModule } from '@cp/node-sdk';
import { A2AEndpoints, AgentHandlersToken } from './a2a-endpoints';
import { registerFinanceExecutors } from './executor-example/finance-executors';
import { nodeSyncProbes } from './node-health';
import { nodeIdentity, NodeIdentityToken } from './node-identity';
import { nodeMetricsProvider } from './node-metrics.provider';
import { usageProviders } from './usage-reporting';

/** NodeSync for every module of the app (the health probe's factory injects it too). */
@Global()
@Module({ imports: [NodeSyncModule], exports: [NodeSyncModule] })
class NodeSyncGlobalModule {}

/**
 * Agent nodes never talk to PostgreSQL: they serve what they synced from the control plane.
 * Ready = a verified bundle is applied (from the control plane or the disk copy) and the control
 * plane has not refused this node's registration; Redis and the control plane's reachability are
 * reported in /healthz, not gated on (see node-health.ts). Redis is still a dependency: the task
 * store and the shared budgets use it, and answer their own errors when it is away.
 */
const imports = [
  AppConfigModule,
  LoggingModule,
  // /metrics on AGENT_NODE_METRICS_PORT (loopback), never on the A2A port.
  MetricsModule.forRoot({ app: 'agent-node', port: (config) => config.AGENT_NODE_METRICS_PORT }),
  RedisModule,
  NodeSyncGlobalModule,
  HealthModule.forRoot({ inject: [NodeSync], useFactory: nodeSyncProbes }),
];
const providers = [
  { provide: NodeIdentityToken, inject: [AppConfigToken], useFactory: (config: AppConfig) => nodeIdentity(config) },
  nodeMetricsProvider,
  ...usageProviders,
  A2AEndpoints,
];

@Module({ imports, providers })
export class AgentNodeModule {}

/**
 * The second example agent (ADR 0163): the same node with the finance capabilities served by
 * `@a2a-js/sdk` AgentExecutors (executor-example/), registered through the node-sdk adapter.
 */
@Module({
  imports,
  providers: [...providers, { provide: AgentHandlersToken, useFactory: () => registerFinanceExecutors(new HandlerRegistry()) }],
})
export class ExecutorAgentNodeModule {}
