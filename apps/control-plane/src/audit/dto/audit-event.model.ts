import { Field, ID, InputType, Int, ObjectType } from '@nestjs/graphql';
import { JSONScalar } from '../../common/graphql/json.scalar';
import { Connection } from '../../common/graphql/pagination';

@ObjectType('Delegation', {
  description: 'On whose behalf: caller principal → agent (node credential) → capability → tool, with the scopes granted.',
})
export class DelegationModel {
  @Field() principal!: string;
  @Field() tenant!: string;
  @Field() agentId!: string;
  @Field({ description: 'Subject of the node credential that asked.' }) node!: string;
  @Field() capabilityId!: string;
  @Field() tool!: string;
  @Field(() => [String]) scopes!: string[];
}

@ObjectType('AuditEvent', { description: 'One change: who did what to which object, before and after.' })
export class AuditEventModel {
  @Field(() => ID) id!: string;
  @Field() at!: Date;
  @Field() actor!: string;
  @Field() action!: string;
  @Field() targetType!: string;
  @Field() targetId!: string;
  @Field(() => String, { nullable: true }) agentId!: string | null;
  @Field(() => Int, { nullable: true, description: 'The registry revision the change produced (agent changes).' }) revision!: number | null;
  @Field(() => JSONScalar, { nullable: true }) before!: unknown;
  @Field(() => JSONScalar, { nullable: true }) after!: unknown;
  @Field(() => String, { nullable: true, description: 'W3C trace id of the request that made the change (null when untraced).' })
  traceId!: string | null;
  @Field(() => String, { nullable: true, description: 'The principal the actor acted for (tool-token exchanges: the A2A caller).' })
  onBehalfOf!: string | null;
  @Field(() => DelegationModel, { nullable: true }) delegation!: DelegationModel | null;
}

export const AuditEventConnection = Connection(AuditEventModel, 'AuditEventConnection');

@InputType()
export class AuditFilter {
  @Field(() => String, { nullable: true }) agentId?: string | null;
  @Field(() => String, { nullable: true }) actor?: string | null;
  @Field(() => String, { nullable: true, description: 'e.g. manifest.deprecate' }) action?: string | null;
  @Field(() => String, { nullable: true }) targetType?: string | null;
  @Field(() => String, { nullable: true }) targetId?: string | null;
  @Field(() => Date, { nullable: true }) from?: Date | null;
  @Field(() => Date, { nullable: true }) to?: Date | null;
  @Field(() => String, { nullable: true, description: 'Events of one trace (32 hex digits).' }) traceId?: string | null;
  @Field(() => String, { nullable: true, description: 'Events done on behalf of this principal.' }) onBehalfOf?: string | null;
}
