import { Field, ID, InputType, ObjectType } from '@nestjs/graphql';
import { Connection } from '../../common/graphql/pagination';

@ObjectType('Team', { description: 'A team owns agents and capability manifests; team-admin tokens name the teams they administer.' })
export class TeamModel {
  @Field(() => ID) id!: string;
  @Field() name!: string;
  @Field() createdAt!: Date;
}

export const TeamConnection = Connection(TeamModel, 'TeamConnection');

@InputType()
export class TeamInput {
  @Field({ description: 'Slug, e.g. "finance-agents-team"; the value team-admin tokens carry in `teams`.' }) id!: string;
  @Field() name!: string;
}
