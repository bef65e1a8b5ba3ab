import { Field, Float, Int, ObjectType } from '@nestjs/graphql';
import { CapabilityStateEnum } from '../../manifests/dto/manifest.enums';
import { RetirementSkipReasonModel, UnknownUsageModel } from '../../retirement/dto/retirement.models';
import type { CapabilityState } from '@cp/capabilities';

@ObjectType('ImpactCaller', { description: 'A tenant whose callers used the capability in the window.' })
export class ImpactCallerModel {
  @Field({ description: 'The tenant named in the callers\u2019 tokens; "anonymous" for callers without a token.' }) tenantId!: string;
  @Field(() => Float) calls!: number;
  @Field() lastCallAt!: Date;
}

@ObjectType('ImpactNode', { description: 'A node of the agent that served the capability in the window.' })
export class ImpactNodeModel {
  @Field() nodeId!: string;
  @Field(() => Float) calls!: number;
  @Field() lastCallAt!: Date;
}

@ObjectType('ImpactDay')
export class ImpactDayModel {
  @Field({ description: 'YYYY-MM-DD (UTC)' }) day!: string;
  @Field(() => Float) calls!: number;
}

@ObjectType('CapabilityImpact', {
  description:
    'Who still calls a capability and when it could be retired. Usage is counted per tenant and node; the principals inside a tenant are not recorded.',
})
export class CapabilityImpactModel {
  @Field() agentId!: string;
  @Field() capabilityId!: string;
  @Field(() => CapabilityStateEnum) state!: CapabilityState;
  @Field(() => String, { nullable: true }) replacedBy!: string | null;
  @Field(() => Date, { nullable: true }) deprecatedAt!: Date | null;
  @Field(() => Date, { nullable: true }) sunsetAt!: Date | null;
  @Field() asOf!: Date;
  @Field(() => Int) windowDays!: number;
  @Field({ description: 'Calls since this time are reported.' }) windowStart!: Date;
  @Field(() => Float) calls!: number;
  @Field(() => Date, { nullable: true }) lastCallAt!: Date | null;
  @Field(() => [ImpactCallerModel], { description: 'Most recent caller first.' }) tenants!: ImpactCallerModel[];
  @Field(() => [ImpactNodeModel]) nodes!: ImpactNodeModel[];
  @Field(() => [ImpactDayModel], { description: 'Calls per UTC day over the window, oldest first (days without calls left out).' })
  daily!: ImpactDayModel[];
  @Field({ description: 'Every node that served the agent reported its usage through now (minus the grace): zero calls mean zero.' })
  usageComplete!: boolean;
  @Field(() => [UnknownUsageModel]) unknownUsage!: UnknownUsageModel[];
  @Field(() => Date, {
    nullable: true,
    description:
      'The earliest time the retirement job could remove it if nobody calls it again (the retirement rule, sunset included); null when it is not deprecated or its usage is not known.',
  })
  earliestRetirementAt!: Date | null;
  @Field(() => [RetirementSkipReasonModel], { description: 'Why the next retirement run would keep it (empty when it would retire it).' })
  retirementBlockers!: RetirementSkipReasonModel[];
}

@ObjectType('PlanImpact', {
  description: 'A change of the plan that takes a capability from some callers, with the callers of the last impactDays affected by it.',
})
export class PlanImpactModel {
  @Field() capabilityId!: string;
  @Field({ description: 'removed | narrowed-scopes | narrowed-tenants | hidden' }) kind!: string;
  @Field() detail!: string;
  @Field(() => Float, { description: 'Calls of the affected callers in the window.' }) calls!: number;
  @Field(() => [ImpactCallerModel], { description: 'Affected tenants, most recent caller first (all callers for scope changes).' })
  callers!: ImpactCallerModel[];
}
