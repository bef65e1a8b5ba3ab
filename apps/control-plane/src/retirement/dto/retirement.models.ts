import { Field, ID, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { RetirementSkipCode as Code } from '@cp/capabilities';

/** The core's skip codes, keyed by their wire names (GraphQL enum values are the keys). */
export enum RetirementSkipCode {
  STILL_CALLED = Code.StillCalled,
  DEPRECATED_TOO_RECENTLY = Code.DeprecatedTooRecently,
  USAGE_UNKNOWN = Code.UsageUnknown,
  SUNSET_NOT_REACHED = Code.SunsetNotReached,
}
registerEnumType(RetirementSkipCode, { name: 'RetirementSkipCode', description: 'Why the retirement job keeps a deprecated capability.' });

export enum RetirementRunStatusModel {
  queued = 'queued',
  running = 'running',
  succeeded = 'succeeded',
  failed = 'failed',
}
registerEnumType(RetirementRunStatusModel, { name: 'RetirementRunStatus' });

@ObjectType('UnknownUsage', { description: 'A stretch of time in which a node that served the agent has not reported its usage.' })
export class UnknownUsageModel {
  @Field() nodeId!: string;
  @Field() from!: Date;
  @Field() until!: Date;
}

@ObjectType('RetirementSkipReason')
export class RetirementSkipReasonModel {
  @Field(() => RetirementSkipCode) code!: RetirementSkipCode;
  @Field() message!: string;
  @Field(() => Int, { nullable: true, description: 'STILL_CALLED: calls inside the window.' }) calls?: number | null;
  @Field(() => Date, { nullable: true, description: 'STILL_CALLED: the last call inside the window.' }) lastCallAt?: Date | null;
  @Field(() => Date, { nullable: true, description: 'DEPRECATED_TOO_RECENTLY: when it becomes eligible.' }) eligibleAt?: Date | null;
  @Field(() => [UnknownUsageModel], { nullable: true, description: 'USAGE_UNKNOWN: which nodes, for which time.' }) unknownUsage?:
    UnknownUsageModel[] | null;
  @Field(() => Date, { nullable: true, description: 'SUNSET_NOT_REACHED: the announced sunset date it waits for.' }) sunsetAt?: Date | null;
}

@ObjectType('RetirementCandidate', { description: 'A deprecated capability the next run would retire, and why.' })
export class RetirementCandidateModel {
  @Field() capabilityId!: string;
  @Field() because!: string;
}

@ObjectType('RetirementSkip', { description: 'A deprecated capability the next run would keep, with every reason.' })
export class RetirementSkipModel {
  @Field() capabilityId!: string;
  @Field(() => [RetirementSkipReasonModel]) reasons!: RetirementSkipReasonModel[];
  @Field(() => Date, {
    nullable: true,
    description:
      'The earliest time a run could retire it if nobody calls it again (eligibility, sunset date, last call + window); null while usage is unknown.',
  })
  earliestAt!: Date | null;
}

@ObjectType('RetirementPreview')
export class RetirementPreviewModel {
  @Field() agentId!: string;
  @Field({ description: 'The time the preview was computed for.' }) asOf!: Date;
  @Field({ description: 'Calls since this time keep a capability.' }) windowStart!: Date;
  @Field(() => [RetirementCandidateModel]) retire!: RetirementCandidateModel[];
  @Field(() => [RetirementSkipModel]) skipped!: RetirementSkipModel[];
}

@ObjectType('RetiredCapability')
export class RetiredCapabilityModel {
  @Field() agentId!: string;
  @Field() capabilityId!: string;
  @Field(() => Int, { description: 'The agent revision that removed it.' }) revision!: number;
  @Field() removedAt!: Date;
}

@ObjectType('RunSkipReason')
export class RunSkipReasonModel {
  @Field(() => RetirementSkipCode) code!: RetirementSkipCode;
  @Field() message!: string;
}

@ObjectType('SkippedCapability')
export class SkippedCapabilityModel {
  @Field() agentId!: string;
  @Field() capabilityId!: string;
  @Field(() => [RunSkipReasonModel]) reasons!: RunSkipReasonModel[];
}

@ObjectType('RetirementRunError')
export class RetirementRunErrorModel {
  @Field(() => String, { nullable: true, description: 'The agent whose retirement failed; null when the run itself failed.' }) agentId!:
    string | null;
  @Field() message!: string;
}

@ObjectType('RetirementRun', { description: 'One run of the retirement job.' })
export class RetirementRunModel {
  @Field(() => ID) id!: string;
  @Field({ description: 'schedule or manual.' }) trigger!: string;
  @Field(() => String, { nullable: true }) requestedBy!: string | null;
  @Field(() => RetirementRunStatusModel) status!: RetirementRunStatusModel;
  @Field(() => Date, { nullable: true, description: 'The time the rule was evaluated for.' }) asOf!: Date | null;
  @Field() createdAt!: Date;
  @Field(() => Date, { nullable: true }) startedAt!: Date | null;
  @Field(() => Date, { nullable: true }) finishedAt!: Date | null;
  @Field(() => Int) retiredCount!: number;
  @Field(() => Int, { description: 'Skipped in total; `skipped` lists at most the first 1000.' }) skippedCount!: number;
  @Field(() => [RetiredCapabilityModel]) retired!: RetiredCapabilityModel[];
  @Field(() => [SkippedCapabilityModel]) skipped!: SkippedCapabilityModel[];
  @Field(() => [RetirementRunErrorModel]) errors!: RetirementRunErrorModel[];
}
