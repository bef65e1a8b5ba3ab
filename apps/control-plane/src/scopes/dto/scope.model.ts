import { Field, ID, InputType, ObjectType } from '@nestjs/graphql';
import { Connection } from '../../common/graphql/pagination';

@ObjectType('Scope', { description: 'A named permission manifests require and tokens carry.' })
export class ScopeModel {
  @Field(() => ID) name!: string;
  @Field() description!: string;
  @Field() createdAt!: Date;
}

export const ScopeConnection = Connection(ScopeModel, 'ScopeConnection');

@InputType()
export class ScopeInput {
  @Field({ description: 'e.g. "recon.run"' }) name!: string;
  @Field() description!: string;
}
