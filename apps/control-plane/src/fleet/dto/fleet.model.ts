import { Field, ID, Int, ObjectType } from '@nestjs/graphql';

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
}

@ObjectType('Fleet', { description: "An agent's nodes and which revision each serves." })
export class FleetModel {
  @Field(() => ID) agentId!: string;
  @Field(() => Int, { description: "The agent's current registry revision." }) currentRevision!: number;
  @Field(() => [FleetNodeModel]) nodes!: FleetNodeModel[];
  @Field(() => Int, { description: 'Nodes serving the current revision.' }) upToDate!: number;
}
