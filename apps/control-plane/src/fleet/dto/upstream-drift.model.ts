import { Field, ObjectType } from '@nestjs/graphql';

@ObjectType('UpstreamSkill', { description: "A skill as an upstream agent's own card lists it." })
export class UpstreamSkillModel {
  @Field() id!: string;
  @Field(() => String, { nullable: true }) name?: string;
}

@ObjectType('UpstreamServedCapability', { description: 'A capability forwarded to an upstream, and the skill of its card it is.' })
export class UpstreamServedCapabilityModel {
  @Field() capabilityId!: string;
  @Field() skill!: string;
}

@ObjectType('UpstreamDrift', {
  description: "One upstream agent's own card compared with the registry, as the agent's gateway nodes last fetched it (ADR 0275).",
})
export class UpstreamDriftModel {
  @Field({ description: "The upstream's card URL (the manifests' upstream.card, else /.well-known/agent-card.json at the URL's origin)." })
  card!: string;
  @Field({ description: 'ok: it answered; unreachable: it did not (see reason); unchecked: no live node has fetched it yet.' })
  status!: 'ok' | 'unreachable' | 'unchecked';
  @Field(() => String, { nullable: true }) reason!: string | null;
  @Field(() => Date, { nullable: true, description: 'When a node last fetched it.' }) checkedAt!: Date | null;
  @Field(() => [UpstreamServedCapabilityModel], { description: 'Capabilities whose skill the card lists.' })
  covered!: UpstreamServedCapabilityModel[];
  @Field(() => [UpstreamSkillModel], { description: 'Skills the upstream offers that no manifest covers.' })
  uncovered!: UpstreamSkillModel[];
  @Field(() => [UpstreamServedCapabilityModel], { description: 'Manifests whose upstream card no longer lists their skill.' })
  missing!: UpstreamServedCapabilityModel[];
  @Field({ description: 'The card listed more skills than nodes report: uncovered is partial and missing is not computed.' })
  truncated!: boolean;
}
