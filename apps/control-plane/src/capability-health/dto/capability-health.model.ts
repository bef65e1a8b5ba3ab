import { Field, Float, InputType, ObjectType } from '@nestjs/graphql';
import { Connection } from '../../common/graphql/pagination';

@ObjectType('CapabilityOutcomes', { description: 'How the calls that ended in the range ended (ADR 0310).' })
export class CapabilityOutcomesModel {
  @Field(() => Float) completed!: number;
  @Field(() => Float) failed!: number;
  @Field(() => Float) rejected!: number;
  @Field(() => Float) canceled!: number;
  @Field(() => Float, { description: 'Refused by an execution limit before the handler ran.' }) refused!: number;
  @Field(() => Float, { description: 'The handler asked the caller for more input.' }) inputRequired!: number;
}

@ObjectType('CapabilityHealth', {
  description:
    'Health of one capability for one tenant (or all tenants) over a time range, summed over nodes: calls, outcomes, ' +
    'error rate and handler latency percentiles interpolated in the fixed latency buckets (ADR 0310).',
})
export class CapabilityHealthModel {
  @Field() capabilityId!: string;
  @Field(() => String, { nullable: true, description: 'Null when the row sums every tenant (perTenant: false).' }) tenantId!: string | null;
  @Field(() => Float, { description: 'Calls counted in the range (as usage counts them: refused ones included).' }) calls!: number;
  @Field(() => CapabilityOutcomesModel) outcomes!: CapabilityOutcomesModel;
  @Field(() => Float, { description: 'Calls that ended in the range (every outcome).' }) ended!: number;
  @Field(() => Float, {
    nullable: true,
    description: 'failed / (ended − refused): the share of calls whose handler ran that failed. Null when none ran.',
  })
  errorRate!: number | null;
  @Field(() => Float, { nullable: true, description: 'refused / ended. Null when none ended.' }) refusedRate!: number | null;
  @Field(() => Float, { nullable: true, description: 'Median handler duration (ms). Null when no handler ran.' }) p50Ms!: number | null;
  @Field(() => Float, {
    nullable: true,
    description: '95th percentile handler duration (ms); the last bound (60000) means "at least". Null when no handler ran.',
  })
  p95Ms!: number | null;
  @Field(() => [Float], { description: 'Calls per latency bucket (see latencyBoundsMs), the last one above the last bound.' })
  latencyBuckets!: number[];
}

export const CapabilityHealthConnection = Connection(CapabilityHealthModel, 'CapabilityHealthConnection');

@ObjectType('CapabilityHealthReport', { description: 'Health per capability (and tenant) over an hour-aligned UTC range.' })
export class CapabilityHealthReportModel {
  @Field({ description: 'Start of the range (inclusive), rounded down to the hour.' }) from!: Date;
  @Field({ description: 'End of the range (exclusive), rounded up to the hour.' }) to!: Date;
  @Field(() => [Float], { description: 'Upper bounds (ms, inclusive) of the latency buckets; one more bucket holds the rest.' })
  latencyBoundsMs!: number[];
  @Field(() => CapabilityHealthConnection) rows!: InstanceType<typeof CapabilityHealthConnection>;
}

@InputType()
export class CapabilityHealthFilter {
  @Field() agentId!: string;
  @Field(() => String, { nullable: true }) capabilityId?: string | null;
  @Field(() => String, { nullable: true }) tenantId?: string | null;
  @Field(() => String, { nullable: true, description: 'ISO-8601 date-time; default: 24 hours before `to`.' }) from?: string | null;
  @Field(() => String, { nullable: true, description: 'ISO-8601 date-time; default: now.' }) to?: string | null;
  @Field(() => Boolean, {
    nullable: true,
    defaultValue: true,
    description: 'One row per tenant (default) or per capability over all tenants.',
  })
  perTenant?: boolean | null;
}
