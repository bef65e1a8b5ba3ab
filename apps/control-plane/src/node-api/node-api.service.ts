import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Registry } from 'prom-client';
import { MetricsRegistryToken, serverCounter, serverHistogram } from '@cp/common';
import type { NodePrincipal } from '@cp/auth';
import type { AckBody, HeartbeatBody, RegisterNodeBody } from '@cp/node-protocol';
import { NodeApiError, NodeApiErrorCode } from './node-api.errors';
import { AckWriter } from './ack-writer';
import { NodeRepository, type NodeWrite } from './node.repository';
import { NodeInventoryRepository } from '../node-inventory/node-inventory.repository';

/** Revisions whose publication time is remembered (a fleet acks the few latest ones). */
const PUBLISHED_MEMO = 256;

/** Register, heartbeat and ack: each records the node under the token's agent, and only there. */
@Injectable()
export class NodeApiService {
  private readonly published = new Map<string, Date>();

  constructor(
    private readonly nodes: NodeRepository,
    private readonly acks: AckWriter,
    private readonly inventories: NodeInventoryRepository,
    @Optional() @Inject(MetricsRegistryToken) private readonly metrics?: Registry,
  ) {}

  async register(node: NodePrincipal, body: RegisterNodeBody): Promise<void> {
    await this.write(node, body.nodeId, { kind: 'register', hostname: body.hostname });
    if (body.handlers) await this.inventories.report(node.agentId, body.nodeId, body.handlers, false, body.upstreams);
  }

  async heartbeat(node: NodePrincipal, body: HeartbeatBody): Promise<void> {
    await this.write(node, body.nodeId, { kind: 'heartbeat' });
    // Only after the write above proved the node id is this agent's.
    if (body.handlers) await this.inventories.report(node.agentId, body.nodeId, body.handlers, body.stopping === true, body.upstreams);
    else if (body.stopping) await this.inventories.stopped(node.agentId, body.nodeId);
  }

  async ack(node: NodePrincipal, body: AckBody): Promise<void> {
    if ('servedHash' in body) {
      // Written with the other nodes' acks of the same moment, in one statement (ADR 0191).
      const result = await this.acks.write({
        agentId: node.agentId,
        nodeId: body.nodeId,
        revision: body.revision,
        servedHash: body.servedHash,
        unservable: body.unservable && [...new Set(body.unservable)].sort(),
      });
      if (result === 'agent-not-found') throw new NodeApiError(NodeApiErrorCode.AgentNotFound, `agent "${node.agentId}" not found`);
    } else {
      await this.write(node, body.nodeId, { kind: 'refused', error: `revision ${body.revision}: ${body.error}` });
    }
    await this.observeAck(node.agentId, body);
  }

  /** Publish-to-ack propagation per agent, and NACKs. The agent label is the token's agent, which exists (the write above checked). */
  private async observeAck(agentId: string, body: AckBody): Promise<void> {
    if (!this.metrics) return;
    if (!('servedHash' in body)) {
      serverCounter(this.metrics, 'nacks').labels(agentId).inc();
      return;
    }
    const published = await this.publishedAt(agentId, body.revision);
    if (published)
      serverHistogram(this.metrics, 'propagation')
        .labels(agentId)
        .observe(Math.max(0, (Date.now() - published.getTime()) / 1000));
  }

  /** Once set, a revision's publishedAt never changes (markPublished sets only a null one): read once, not per ack. */
  private async publishedAt(agentId: string, revision: number): Promise<Date | null> {
    const key = `${agentId}@${revision}`;
    const known = this.published.get(key);
    if (known) return known;
    const publication = await this.nodes.publishedAt(agentId, revision);
    if (publication?.final) {
      this.published.set(key, publication.at);
      if (this.published.size > PUBLISHED_MEMO) this.published.delete(this.published.keys().next().value!);
    }
    return publication?.at ?? null;
  }

  private async write(node: NodePrincipal, nodeId: string, change: NodeWrite): Promise<void> {
    const result = await this.nodes.write(node.agentId, nodeId, change);
    if (result === 'agent-not-found') throw new NodeApiError(NodeApiErrorCode.AgentNotFound, `agent "${node.agentId}" not found`);
  }
}
