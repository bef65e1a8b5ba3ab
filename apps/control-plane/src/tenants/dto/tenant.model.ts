import { Field, ID, InputType, ObjectType } from '@nestjs/graphql';
import { Connection } from '../../common/graphql/pagination';

@ObjectType('Tenant', { description: 'A caller organisation (the tenant claim of A2A tokens).' })
export class TenantModel {
  @Field(() => ID) id!: string;
  @Field() name!: string;
  @Field() createdAt!: Date;
}

export const TenantConnection = Connection(TenantModel, 'TenantConnection');

@InputType()
export class TenantInput {
  @Field({ description: 'Slug, e.g. "acme-partner"; the tenant claim tokens carry.' }) id!: string;
  @Field() name!: string;
}
