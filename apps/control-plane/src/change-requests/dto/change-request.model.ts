import { Field, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { JSONScalar } from '../../common/graphql/json.scalar';
import { Connection } from '../../common/graphql/pagination';
import { CHANGE_KINDS, CHANGE_KIND_DESCRIPTIONS, type ChangeKind } from '../change-kinds';
import type { ChangeRequestStatus } from '../change-requests.repository';

export const ChangeKindEnum = Object.fromEntries(CHANGE_KINDS.map((k) => [k, k])) as Record<ChangeKind, ChangeKind>;
registerEnumType(ChangeKindEnum, {
  name: 'ChangeKind',
  description: 'A kind of change the approval policy may gate (ADR 0300, 0325).',
  valuesMap: Object.fromEntries(CHANGE_KINDS.map((k) => [k, { description: CHANGE_KIND_DESCRIPTIONS[k] }])),
});

export const CHANGE_REQUEST_STATUSES = ['pending', 'applied', 'rejected', 'stale'] as const;
export const ChangeRequestStatusEnum = Object.fromEntries(CHANGE_REQUEST_STATUSES.map((s) => [s, s])) as Record<
  ChangeRequestStatus,
  ChangeRequestStatus
>;
registerEnumType(ChangeRequestStatusEnum, {
  name: 'ChangeRequestStatus',
  description: 'pending: waits for a second admin; applied; rejected; stale: the agent moved past its base revision, plan again.',
});

@ObjectType('GatedChange', { description: 'One change of a plan that the approval policy gates.' })
export class GatedChangeModel {
  @Field(() => ChangeKindEnum) kind!: ChangeKind;
  @Field({ description: 'The capability changed; "*" for a change of the agent\'s settings (kind allowlist).' }) capabilityId!: string;
  @Field({ description: 'What changed, e.g. "visibility extended → public".' }) detail!: string;
}

@ObjectType('ChangeRequestPlan', { description: 'The plan the author saw, computed at the base revision.' })
export class ChangeRequestPlanModel {
  @Field(() => [String]) added!: string[];
  @Field(() => [String], { description: 'Changed capabilities, each "id (field, field)".' }) changed!: string[];
  @Field(() => [String]) deprecated!: string[];
  @Field(() => [String]) removed!: string[];
}

@ObjectType('ChangeRequestSettings', {
  description: "The change of an agent's settings a request holds (kind allowlist, ADR 0325): the whole card base before and after.",
})
export class ChangeRequestSettingsModel {
  @Field(() => [String], { description: 'The card-base fields that differ, e.g. "protocol.webhookAllow".' }) fields!: string[];
  @Field(() => JSONScalar, { description: 'The card base the request was made against: approval applies only while it is unchanged.' })
  before!: unknown;
  @Field(() => JSONScalar, { description: 'The card base approval writes.' }) after!: unknown;
}

@ObjectType('ChangeRequest', {
  description: "A gated manifest change, or a widening of an agent's allow list, held for a second admin (issue 32).",
})
export class ChangeRequestModel {
  @Field() id!: string;
  @Field() agentId!: string;
  @Field(() => Int, { description: 'The revision the plan was computed at: approval applies it only there.' }) baseRevision!: number;
  @Field(() => ChangeRequestStatusEnum) status!: ChangeRequestStatus;
  @Field({ description: 'Subject of the admin who applied the change.' }) author!: string;
  @Field(() => [ChangeKindEnum]) kinds!: ChangeKind[];
  @Field(() => [GatedChangeModel]) changes!: GatedChangeModel[];
  @Field(() => ChangeRequestPlanModel) plan!: ChangeRequestPlanModel;
  @Field(() => JSONScalar, { description: 'The manifest documents as submitted (the whole desired set); empty for a settings change.' })
  documents!: unknown;
  @Field(() => ChangeRequestSettingsModel, {
    nullable: true,
    description: 'The agent settings change it holds (kind allowlist); null for a manifest plan.',
  })
  settings!: ChangeRequestSettingsModel | null;
  @Field({ description: 'Applied at once by a platform admin, without a second admin.' }) breakGlass!: boolean;
  @Field(() => String, { nullable: true }) breakGlassReason!: string | null;
  @Field(() => String, { nullable: true, description: 'Who approved or rejected it.' }) decidedBy!: string | null;
  @Field(() => String, { nullable: true }) decisionComment!: string | null;
  @Field(() => Int, { nullable: true, description: 'The revision the approval made.' }) appliedRevision!: number | null;
  @Field() createdAt!: Date;
  @Field(() => Date, { nullable: true }) decidedAt!: Date | null;
  @Field({ description: 'Whether you may approve it now.' }) canApprove!: boolean;
  @Field(() => String, { nullable: true, description: 'Why you may not approve it (null when you may).' })
  cannotApproveReason!: string | null;
}

export const ChangeRequestConnection = Connection(ChangeRequestModel, 'ChangeRequestConnection');

@ObjectType('ApprovalPolicy', { description: 'Which kinds of change need a second admin.' })
export class ApprovalPolicyModel {
  @Field(() => [ChangeKindEnum]) kinds!: ChangeKind[];
  @Field({ description: 'True while no platform admin has set it: the configured APPROVAL_DEFAULT_KINDS apply.' }) isDefault!: boolean;
  @Field(() => String, { nullable: true }) updatedBy!: string | null;
  @Field(() => Date, { nullable: true }) updatedAt!: Date | null;
}
