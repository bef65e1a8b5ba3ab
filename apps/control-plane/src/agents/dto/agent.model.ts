import { Field, ID, Int, ObjectType } from '@nestjs/graphql';
import { JSONScalar } from '../../common/graphql/json.scalar';
import { Connection } from '../../common/graphql/pagination';
import { ChangeRequestModel } from '../../change-requests/dto/change-request.model';

@ObjectType('AgentProvider')
export class ProviderModel {
  @Field() organization!: string;
  @Field() url!: string;
}

@ObjectType('AgentInterface')
export class InterfaceModel {
  @Field() url!: string;
  @Field() protocolBinding!: string;
  @Field() protocolVersion!: string;
  @Field(() => String, { nullable: true }) tenant?: string | null;
}

@ObjectType('AgentExtension')
export class ExtensionModel {
  @Field() uri!: string;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => Boolean, { nullable: true }) required?: boolean | null;
  @Field(() => JSONScalar, { nullable: true }) params?: Record<string, unknown> | null;
}

@ObjectType('AgentProtocol', { description: 'Protocol switches the card advertises.' })
export class ProtocolModel {
  @Field() streaming!: boolean;
  @Field() pushNotifications!: boolean;
  @Field({ description: 'When false the card never declares an extended card.' }) extendedAgentCard!: boolean;
  @Field(() => [String], { description: 'A2A versions served: "1.0", and "0.3" beside it on JSON-RPC and HTTP+JSON.' }) versions!: string[];
  @Field(() => [String], { description: 'Hosts, *.domains, IPs or CIDRs push webhooks may reach although private.' })
  webhookAllow!: string[];
  @Field(() => [String], { description: 'Hosts, *.domains, IPs or CIDRs upstream agents may be reached at although private.' })
  upstreamAllow!: string[];
}

@ObjectType('Agent', { description: "An A2A agent: the base of its card and its registry's current revision." })
export class AgentModel {
  @Field(() => ID) id!: string;
  @Field() teamId!: string;
  @Field() name!: string;
  @Field() description!: string;
  @Field() version!: string;
  @Field(() => ProviderModel, { nullable: true }) provider?: ProviderModel | null;
  @Field(() => String, { nullable: true }) documentationUrl?: string | null;
  @Field(() => String, { nullable: true }) iconUrl?: string | null;
  @Field(() => [InterfaceModel]) supportedInterfaces!: InterfaceModel[];
  @Field(() => JSONScalar, { nullable: true }) securitySchemes?: Record<string, unknown> | null;
  @Field(() => JSONScalar, { nullable: true }) securityRequirements?: unknown[] | null;
  @Field(() => [String]) defaultInputModes!: string[];
  @Field(() => [String]) defaultOutputModes!: string[];
  @Field(() => [ExtensionModel]) extensions!: ExtensionModel[];
  @Field(() => ProtocolModel) protocol!: ProtocolModel;
  @Field(() => Int, { description: 'The registry revision; pass it as expectedRevision when changing this agent.' }) revision!: number;
  @Field() createdAt!: Date;
  @Field() updatedAt!: Date;
  @Field(() => ChangeRequestModel, {
    nullable: true,
    description:
      'Only in the answer of updateAgent: the change request that now holds the update (status pending: nothing applied, the agent is shown as it is), or the break-glass record (status applied). Null otherwise.',
  })
  changeRequest?: ChangeRequestModel | null;
}

export const AgentConnection = Connection(AgentModel, 'AgentConnection');
