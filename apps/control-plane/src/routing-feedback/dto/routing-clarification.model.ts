import { Field, ID, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';

export enum PromoteAs {
  EXAMPLE = 'EXAMPLE',
  ROUTING_TERM = 'ROUTING_TERM',
}
registerEnumType(PromoteAs, { name: 'PromoteClarificationAs', description: 'Where a reviewed clarification goes in the manifest.' });

@ObjectType('RoutingClarification', {
  description: 'A message callers had to clarify, and the capability they then chose (per agent and tenant, counted).',
})
export class RoutingClarificationModel {
  @Field(() => ID) id!: string;
  @Field() agentId!: string;
  @Field() tenant!: string;
  @Field() capabilityId!: string;
  @Field() text!: string;
  @Field(() => Int) count!: number;
  @Field({ description: 'pending | promoted | dismissed' }) status!: string;
  @Field() firstSeenAt!: Date;
  @Field() lastSeenAt!: Date;
}

@InputType()
export class PromoteClarificationInput {
  @Field(() => ID) id!: string;
  @Field(() => PromoteAs) as!: PromoteAs;
  @Field({
    nullable: true,
    description: 'The reviewed text to add (default: the recorded message). Strip tenant data before it reaches a card as an example.',
  })
  text?: string;
  @Field(() => Int) expectedRevision!: number;
}

@ObjectType('PromoteClarificationResult')
export class PromoteClarificationResultModel {
  @Field(() => RoutingClarificationModel) clarification!: RoutingClarificationModel;
  @Field(() => Int, { description: "The agent's new revision (nodes pick it up like any change)." }) revision!: number;
}
