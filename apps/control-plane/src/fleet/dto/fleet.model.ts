import { Field, ID, Int, ObjectType } from '@nestjs/graphql';
import { JSONScalar } from '../../common/graphql/json.scalar';
import { UpstreamDriftModel } from './upstream-drift.model';

@ObjectType('NodeHandler', { description: "A handler a node's code has, as the node reports it (register and every heartbeat)." })
export class NodeHandlerModel {
  @Field() id!: string;
  @Field(() => JSONScalar, { description: 'Limit keys the handler understands and their types ({ "max_pdf_pages": "integer" }).' })
  limits!: Record<string, string>;
  @Field(() => [String], { description: 'Media types it can produce.' }) outputModes!: string[];
}

@ObjectType('FleetNode', { description: 'One agent node, as its last heartbeat and ack reported it.' })
export class FleetNodeModel {
  @Field(() => ID) nodeId!: string;
  @Field(() => String, { nullable: true }) hostname!: string | null;
  @Field(() => Int, { nullable: true, description: 'The revision the node serves (null until its first ack).' }) appliedRevision!:
    number | null;
  @Field(() => String, { nullable: true, description: 'sha256 of the bundle content the node serves.' }) servedHash!: string | null;
  @Field(() => Int, { nullable: true, description: "The agent's current revision minus the applied one (null until the first ack)." })
  lag!: number | null;
  @Field() registeredAt!: Date;
  @Field() lastSeenAt!: Date;
  @Field(() => String, {
    nullable: true,
    description: 'Why the node refused the last bundle it was offered; cleared by the next good one.',
  })
  lastError!: string | null;
  @Field(() => Date, { nullable: true }) lastErrorAt!: Date | null;
  @Field(() => [NodeHandlerModel], { nullable: true, description: 'The handlers it serves (null: the node never reported them).' })
  handlers!: NodeHandlerModel[] | null;
  @Field({ description: 'Reported within the last 30 s and not stopped: its inventory counts when a plan is checked.' })
  live!: boolean;
  @Field(() => [String], {
    description:
      "The agent's capabilities (not removed) whose handler this node does not serve; callers routed to one get a temporarily-unavailable error.",
  })
  unservable!: string[];
  @Field(() => [String], { description: 'What the node warned about in its last ack (capabilities of its bundle it cannot serve).' })
  warnings!: string[];
}

@ObjectType('Fleet', { description: "An agent's nodes and which revision each serves." })
export class FleetModel {
  @Field(() => ID) agentId!: string;
  @Field(() => Int, { description: "The agent's current registry revision." }) currentRevision!: number;
  @Field(() => [FleetNodeModel]) nodes!: FleetNodeModel[];
  @Field(() => Int, { description: 'Nodes serving the current revision.' }) upToDate!: number;
  @Field(() => [UpstreamDriftModel], {
    description:
      "Each upstream agent's own card against the registry: skills no manifest covers, manifests whose skill it no longer lists.",
  })
  upstreamDrift!: UpstreamDriftModel[];
}
