import { Field, InputType, Int } from '@nestjs/graphql';
import { JSONScalar } from '../../common/graphql/json.scalar';

@InputType()
export class ProviderInput {
  @Field() organization!: string;
  @Field() url!: string;
}

@InputType()
export class InterfaceInput {
  @Field() url!: string;
  @Field({ description: 'JSONRPC, GRPC or HTTP+JSON' }) protocolBinding!: string;
  @Field({ description: 'e.g. "1.0"' }) protocolVersion!: string;
  @Field(() => String, { nullable: true }) tenant?: string | null;
}

@InputType()
export class ExtensionInput {
  @Field() uri!: string;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => Boolean, { nullable: true }) required?: boolean | null;
  @Field(() => JSONScalar, { nullable: true }) params?: Record<string, unknown> | null;
}

@InputType()
export class ProtocolInput {
  @Field(() => Boolean, { nullable: true }) streaming?: boolean | null;
  @Field(() => Boolean, { nullable: true }) pushNotifications?: boolean | null;
  @Field(() => Boolean, { nullable: true }) extendedAgentCard?: boolean | null;
  @Field(() => [String], { nullable: true, description: 'A2A versions served: "1.0", and "0.3" beside it.' })
  versions?: string[] | null;
  @Field(() => [String], { nullable: true, description: 'Hosts, *.domains, IPs or CIDRs push webhooks may reach although private.' })
  webhookAllow?: string[] | null;
  @Field(() => [String], {
    nullable: true,
    description: 'Hosts, *.domains, IPs or CIDRs upstream agents may be reached at although private (platform admins only).',
  })
  upstreamAllow?: string[] | null;
}

/** The card base fields; every field optional so one type serves create (checked for completeness) and update (a patch). */
@InputType()
export class AgentCardInput {
  @Field(() => String, { nullable: true }) name?: string | null;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => String, { nullable: true }) version?: string | null;
  @Field(() => ProviderInput, { nullable: true }) provider?: ProviderInput | null;
  @Field(() => String, { nullable: true }) documentationUrl?: string | null;
  @Field(() => String, { nullable: true }) iconUrl?: string | null;
  @Field(() => [InterfaceInput], { nullable: true }) supportedInterfaces?: InterfaceInput[] | null;
  @Field(() => JSONScalar, { nullable: true, description: 'A2A securitySchemes map' }) securitySchemes?: Record<string, unknown> | null;
  @Field(() => JSONScalar, { nullable: true, description: 'A2A securityRequirements list' }) securityRequirements?: unknown[] | null;
  @Field(() => [String], { nullable: true }) defaultInputModes?: string[] | null;
  @Field(() => [String], { nullable: true }) defaultOutputModes?: string[] | null;
  @Field(() => [ExtensionInput], { nullable: true }) extensions?: ExtensionInput[] | null;
  @Field(() => ProtocolInput, { nullable: true }) protocol?: ProtocolInput | null;
}

@InputType()
export class CreateAgentInput extends AgentCardInput {
  @Field({ description: 'Slug, e.g. "finance-agent"; never changes.' }) id!: string;
  @Field({ description: 'The owning team.' }) teamId!: string;
}

@InputType()
export class UpdateAgentInput extends AgentCardInput {
  @Field() id!: string;
  @Field(() => Int) expectedRevision!: number;
  @Field(() => String, {
    nullable: true,
    description:
      'Platform admins only: apply a widening of an allow list the approval policy gates at once, without a second admin (break-glass, ADR 0325). The reason (at most 2000 characters) is audited and announced.',
  })
  breakGlassReason?: string | null;
}

@InputType()
export class AgentFilter {
  @Field(() => String, { nullable: true }) teamId?: string | null;
}
