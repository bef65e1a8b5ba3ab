import { bootstrapFastifyApp } from '@cp/common';
import { AgentNodeModule } from './agent-node.module';

void bootstrapFastifyApp(AgentNodeModule, (config) => config.AGENT_NODE_PORT, 'agent-node');
