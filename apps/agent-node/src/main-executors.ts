import { bootstrapFastifyApp } from '@cp/common';
import { ExecutorAgentNodeModule } from './agent-node.module';

/** The AgentExecutor example agent (ADR 0163): `node dist/apps/agent-node/src/main-executors.js`. */
void bootstrapFastifyApp(ExecutorAgentNodeModule, (config) => config.AGENT_NODE_PORT, 'agent-node-executors');
