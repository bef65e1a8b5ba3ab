import { Field, InputType, Int } from '@nestjs/graphql';
import type { CapabilityState, Visibility } from '@cp/capabilities';
import { JSONScalar } from '../../common/graphql/json.scalar';
import { CapabilityStateEnum, VisibilityEnum } from './manifest.enums';

@InputType()
export class ManifestFilter {
  @Field(() => String, { nullable: true }) agentId?: string | null;
  @Field(() => CapabilityStateEnum, { nullable: true }) state?: CapabilityState | null;
  @Field(() => VisibilityEnum, { nullable: true }) visibility?: Visibility | null;
  @Field(() => String, { nullable: true }) tag?: string | null;
  @Field(() => String, { nullable: true, description: 'Owning team id.' }) owner?: string | null;
}

@InputType({
  description:
    'One manifest document (the seed format: id, state, visibility, skill, requires_scopes, tenants, handler, limits, owner, replaced_by, deprecation_reason, sunset_at).',
})
export class ManifestDocumentInput {
  @Field() agentId!: string;
  @Field(() => Int) expectedRevision!: number;
  @Field(() => JSONScalar) manifest!: unknown;
  @Field(() => [String], {
    nullable: true,
    description:
      'Capabilities to publish although some live node of the agent does not serve their handler yet (a staged rollout; recorded in the audit).',
  })
  allowUnserved?: string[] | null;
}

@InputType()
export class ApplyManifestsInput {
  @Field() agentId!: string;
  @Field(() => [JSONScalar], {
    description: 'The WHOLE desired set: ids absent here are removed (allowed from preview and deprecated only).',
  })
  manifests!: unknown[];
  @Field({ defaultValue: true }) dryRun!: boolean;
  @Field(() => Int, { nullable: true, description: 'Required unless dryRun.' }) expectedRevision?: number | null;
  @Field(() => Int, {
    nullable: true,
    description: 'The window of `impact`: callers of the last impactDays days (default 30, at most 400).',
  })
  impactDays?: number | null;
  @Field(() => [String], {
    nullable: true,
    description:
      'Capabilities to publish although some live node of the agent does not serve their handler yet (a staged rollout; recorded in the audit).',
  })
  allowUnserved?: string[] | null;
  @Field(() => String, {
    nullable: true,
    description:
      'Platform admins only: apply a change the approval policy gates at once, without a second admin (break-glass, ADR 0300). The reason (at most 2000 characters) is audited and announced.',
  })
  breakGlassReason?: string | null;
}

@InputType()
export class LifecycleInput {
  @Field() agentId!: string;
  @Field() capabilityId!: string;
  @Field(() => Int) expectedRevision!: number;
  @Field(() => [String], {
    nullable: true,
    description:
      'Capabilities to publish although some live node of the agent does not serve their handler yet (a staged rollout; recorded in the audit).',
  })
  allowUnserved?: string[] | null;
}

@InputType()
export class DeprecateInput extends LifecycleInput {
  @Field(() => String, { nullable: true, description: 'The capability that replaces this one.' }) replacedBy?: string | null;
  @Field(() => String, { nullable: true, description: 'Why, when there is no replacement.' }) reason?: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'The announced removal date (ISO 8601 date or date-time), at least DEPRECATION_SUNSET_MIN_NOTICE_DAYS ahead.',
  })
  sunsetAt?: string | null;
}

@InputType()
export class SetSunsetInput extends LifecycleInput {
  @Field(() => String, {
    nullable: true,
    description: 'The announced removal date (ISO 8601 date or date-time); null withdraws it. Deprecated capabilities only.',
  })
  sunsetAt?: string | null;
}
