import { Field, Int, ObjectType } from '@nestjs/graphql';
import { JSONScalar } from '../../common/graphql/json.scalar';
import { Connection } from '../../common/graphql/pagination';

@ObjectType('RevisionCapabilityChange', { description: 'A capability a revision changed, from its audit event.' })
export class RevisionCapabilityChangeModel {
  @Field() capabilityId!: string;
  @Field({ description: 'The audit action: manifest.create, manifest.update, manifest.deprecate, …' }) action!: string;
}

@ObjectType('RegistryRevision', { description: "One change of an agent's registry: who, when, what." })
export class RegistryRevisionModel {
  @Field() agentId!: string;
  @Field(() => Int) revision!: number;
  @Field() actor!: string;
  @Field() summary!: string;
  @Field() createdAt!: Date;
  @Field(() => [RevisionCapabilityChangeModel], { description: 'The capabilities this revision changed (none for agent-level changes).' })
  capabilities!: RevisionCapabilityChangeModel[];
}

export const RegistryRevisionConnection = Connection(RegistryRevisionModel, 'RegistryRevisionConnection');

@ObjectType('ManifestsAtRevision', {
  description:
    "The agent's manifest documents as of a revision: plan a rollback by sending them to applyManifests with expectedRevision = currentRevision.",
})
export class ManifestsAtRevisionModel {
  @Field() agentId!: string;
  @Field(() => Int) revision!: number;
  @Field(() => Int, { description: "The agent's revision now: the expectedRevision of the rollback's plan." }) currentRevision!: number;
  @Field(() => [JSONScalar], { description: 'Manifest documents (the seed format), by id; removed capabilities are left out.' })
  manifests!: unknown[];
}
