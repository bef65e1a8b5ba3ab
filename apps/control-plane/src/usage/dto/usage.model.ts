import { Field, Float, InputType, ObjectType } from '@nestjs/graphql';
import { Connection } from '../../common/graphql/pagination';

@ObjectType('UsageSummary', { description: 'Calls summed over tenants, nodes and the days of the window.' })
export class UsageSummaryModel {
  @Field(() => Float) calls!: number;
  @Field(() => Date, { nullable: true }) lastCallAt!: Date | null;
}

@ObjectType('UsageDay', { description: 'Calls of one capability by one tenant on one UTC day (all nodes).' })
export class UsageDayModel {
  @Field() capabilityId!: string;
  @Field() tenantId!: string;
  @Field({ description: 'YYYY-MM-DD (UTC)' }) day!: string;
  @Field(() => Float) calls!: number;
  @Field() lastCallAt!: Date;
}

export const UsageDayConnection = Connection(UsageDayModel, 'UsageDayConnection');

@InputType()
export class UsageWindowInput {
  @Field(() => String, { nullable: true, description: 'First day, YYYY-MM-DD (inclusive).' }) from?: string | null;
  @Field(() => String, { nullable: true, description: 'Last day, YYYY-MM-DD (inclusive).' }) to?: string | null;
}

@InputType()
export class UsageFilter extends UsageWindowInput {
  @Field() agentId!: string;
  @Field(() => String, { nullable: true }) capabilityId?: string | null;
  @Field(() => String, { nullable: true }) tenantId?: string | null;
}
