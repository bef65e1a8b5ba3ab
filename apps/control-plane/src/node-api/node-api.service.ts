import { Injectable } from '@nestjs/common';
import type { NodePrincipal } from '@cp/auth';
import type { AckBody, HeartbeatBody, RegisterNodeBody } from '@cp/node-sdk';
import { NodeApiError, NodeApiErrorCode } from './node-api.errors';
import { NodeRepository, type NodeWrite } from './node.repository';

/** Register, heartbeat and ack: each records the node under the token's agent, and only there. */
@Injectable()
export class NodeApiService {
  constructor(private readonly nodes: NodeRepository) {}

  register(node: NodePrincipal, body: RegisterNodeBody): Promise<void> {
    return this.write(node, body.nodeId, { kind: 'register', hostname: body.hostname });
  }

  heartbeat(node: NodePrincipal, body: HeartbeatBody): Promise<void> {
    return this.write(node, body.nodeId, { kind: 'heartbeat' });
  }

  ack(node: NodePrincipal, body: AckBody): Promise<void> {
    const change: NodeWrite =
      'servedHash' in body
        ? { kind: 'applied', revision: body.revision, servedHash: body.servedHash }
        : { kind: 'refused', error: `revision ${body.revision}: ${body.error}` };
    return this.write(node, body.nodeId, change);
  }

  private async write(node: NodePrincipal, nodeId: string, change: NodeWrite): Promise<void> {
    const result = await this.nodes.write(node.agentId, nodeId, change);
    if (result === 'agent-not-found') throw new NodeApiError(NodeApiErrorCode.AgentNotFound, `agent "${node.agentId}" not found`);
  }
}
