import { Field, InputType, Int, ObjectType } from '@nestjs/graphql';
import { JSONScalar } from '../../common/graphql/json.scalar';

@InputType('CallerInput', { description: 'The caller to compute a projection for, as an agent node would see its token.' })
export class CallerInput {
  @Field() tenant!: string;
  @Field(() => [String], { defaultValue: [] }) scopes!: string[];
  @Field(() => String, { nullable: true, defaultValue: 'admin-preview' }) principal?: string | null;
}

@ObjectType('Card', { description: 'An agent card exactly as served: canonical JSON bytes, version and strong ETag.' })
export class CardModel {
  @Field() agentId!: string;
  @Field(() => Int) revision!: number;
  @Field() version!: string;
  @Field() etag!: string;
  @Field(() => JSONScalar) card!: unknown;
}

@ObjectType('Projection', { description: 'A router index or execution policy for one caller.' })
export class ProjectionModel {
  @Field() agentId!: string;
  @Field(() => Int) revision!: number;
  @Field(() => JSONScalar) value!: unknown;
}

@ObjectType('VisibilityExplanation', {
  description: 'Why a capability is or is not visible and routable for a caller: the rule of the entitlement function that decided.',
})
export class VisibilityExplanationModel {
  @Field() agentId!: string;
  @Field() capabilityId!: string;
  @Field(() => Int) revision!: number;
  @Field({ description: 'e.g. public, internal, missing-scopes, preview-not-opted-in, tenant-not-allowed, entitled' }) rule!: string;
  @Field() reason!: string;
  @Field() inPublicCard!: boolean;
  @Field() inExtendedCard!: boolean;
  @Field() routable!: boolean;
}
