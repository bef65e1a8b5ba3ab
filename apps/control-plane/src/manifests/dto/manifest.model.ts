import { Field, Int, ObjectType } from '@nestjs/graphql';
import type { AssertTrue, CapabilityState, SameKeys, SkillBlock, Visibility } from '@cp/capabilities';
import { JSONScalar } from '../../common/graphql/json.scalar';
import { Connection } from '../../common/graphql/pagination';
import { ChangeRequestModel, GatedChangeModel } from '../../change-requests/dto/change-request.model';
import { PlanImpactModel } from '../../deprecation/dto/impact.model';
import { CapabilityStateEnum, VisibilityEnum } from './manifest.enums';

@ObjectType('Skill', { description: 'The A2A AgentSkill the manifest advertises (without its id).' })
export class SkillModel {
  @Field() name!: string;
  @Field() description!: string;
  @Field(() => [String]) tags!: string[];
  @Field(() => [String], { nullable: true }) examples?: string[];
  @Field(() => [String], { nullable: true }) inputModes?: string[];
  @Field(() => [String], { nullable: true }) outputModes?: string[];
}
/** Compiles only while the GraphQL Skill has exactly the skill schema's fields (ADR 0213). */
export type SkillModelIsComplete = AssertTrue<SameKeys<SkillModel, SkillBlock>>;

@ObjectType('RoutingHints', { description: 'Routing-only hints: read by the router, never in any card (ADR 0091).' })
export class RoutingHintsModel {
  @Field(() => [String], { description: 'Synonyms and jargon that should route here.' }) terms!: string[];
  @Field(() => [String], { description: 'Words that mean "not this capability".' }) negativeTerms!: string[];
}

@ObjectType('CapabilityManifest')
export class ManifestModel {
  @Field() agentId!: string;
  @Field({ description: 'The stable capability id (the skill id).' }) id!: string;
  @Field(() => CapabilityStateEnum) state!: CapabilityState;
  @Field(() => VisibilityEnum) visibility!: Visibility;
  @Field(() => SkillModel) skill!: SkillModel;
  @Field(() => [String]) requiresScopes!: string[];
  @Field({ description: 'True when every tenant may call it (tenants: "*").' }) allTenants!: boolean;
  @Field(() => [String]) tenants!: string[];
  @Field() handler!: string;
  @Field(() => JSONScalar) limits!: Record<string, unknown>;
  @Field({ description: 'Owning team.' }) owner!: string;
  @Field(() => String, { nullable: true }) replacedBy?: string | null;
  @Field(() => String, { nullable: true }) deprecationReason?: string | null;
  @Field(() => Date, { nullable: true, description: 'The announced removal date (deprecated only): retirement waits for it.' })
  sunsetAt?: Date | null;
  @Field(() => RoutingHintsModel, { nullable: true, description: 'Routing-only hints; null when none.' })
  routing?: RoutingHintsModel | null;
  @Field(() => JSONScalar, { description: 'The manifest document (the format applyManifests takes).' }) document!: unknown;
  @Field() createdAt!: Date;
  @Field() updatedAt!: Date;
  @Field(() => Date, { nullable: true }) deprecatedAt?: Date | null;
  @Field(() => Date, { nullable: true }) removedAt?: Date | null;
}

export const ManifestConnection = Connection(ManifestModel, 'CapabilityManifestConnection');

@ObjectType('ManifestChangeResult')
export class ManifestChangeResult {
  @Field(() => ManifestModel) manifest!: ManifestModel;
  @Field(() => Int, { description: "The agent's registry revision after the change." }) revision!: number;
}

@ObjectType('FieldValueChange', { description: 'One changed field with its value before and after (null: not set).' })
export class FieldValueChangeModel {
  @Field({ description: 'The field, as in `fields`: handler, skill.description, …' }) field!: string;
  @Field(() => JSONScalar, { nullable: true }) before!: unknown;
  @Field(() => JSONScalar, { nullable: true }) after!: unknown;
}

@ObjectType('ManifestFieldChange')
export class ManifestFieldChangeModel {
  @Field() id!: string;
  @Field(() => [String], { description: 'Changed fields, e.g. handler, skill.description.' }) fields!: string[];
  @Field(() => [FieldValueChangeModel], { description: 'Each changed field, in the order of `fields`, with its old and new value.' })
  values!: FieldValueChangeModel[];
}

@ObjectType('CardChange')
export class CardChangeModel {
  @Field() kind!: string;
  @Field(() => String, { nullable: true }) skillId?: string | null;
  @Field(() => String, { nullable: true }) extensionUri?: string | null;
  @Field() breaking!: boolean;
  @Field() detail!: string;
}

@ObjectType('Leak', { description: 'Text of a non-public skill found in the public card.' })
export class LeakModel {
  @Field() skillId!: string;
  @Field() field!: string;
  @Field() text!: string;
}

@ObjectType('ApplyPlan')
export class ApplyPlanModel {
  @Field() dryRun!: boolean;
  @Field({ description: 'True when the plan was written.' }) applied!: boolean;
  @Field(() => Int, { description: 'The revision the plan was computed against (dry run) or the new revision (applied).' })
  revision!: number;
  @Field(() => [String]) added!: string[];
  @Field(() => [ManifestFieldChangeModel]) changed!: ManifestFieldChangeModel[];
  @Field(() => [String]) deprecated!: string[];
  @Field(() => [String]) removed!: string[];
  @Field(() => [String]) unchanged!: string[];
  @Field(() => [CardChangeModel], { description: 'diffCards(public card before, public card after).' }) publicCardDiff!: CardChangeModel[];
  @Field({ description: 'Some public card change may break a client.' }) breaking!: boolean;
  @Field(() => [LeakModel]) leaks!: LeakModel[];
  @Field(() => [PlanImpactModel], {
    description: 'Changes that remove, narrow (scopes, tenants) or hide a capability, each with the callers it affects.',
  })
  impact!: PlanImpactModel[];
  @Field(() => [GatedChangeModel], {
    description: 'Changes the approval policy gates (ADR 0300): applying them files a change request for a second admin.',
  })
  approvalRequired!: GatedChangeModel[];
  @Field(() => ChangeRequestModel, {
    nullable: true,
    description: 'The change request that now holds the plan (applied: false), or the break-glass record (applied: true).',
  })
  changeRequest!: ChangeRequestModel | null;
  @Field({ description: 'Applied at once by a platform admin with a reason (break-glass).' }) breakGlass!: boolean;
}
