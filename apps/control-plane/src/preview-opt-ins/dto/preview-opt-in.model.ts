import { Field, InputType, Int, ObjectType } from '@nestjs/graphql';

@ObjectType('PreviewOptIn', { description: "A tenant that sees an agent's preview capabilities." })
export class PreviewOptInModel {
  @Field() agentId!: string;
  @Field() tenantId!: string;
  @Field() createdAt!: Date;
}

@ObjectType('PreviewOptInChange')
export class PreviewOptInChangeModel {
  @Field(() => PreviewOptInModel) optIn!: PreviewOptInModel;
  @Field(() => Int, { description: "The agent's registry revision after the change." }) revision!: number;
}

@InputType()
export class PreviewOptInInput {
  @Field() agentId!: string;
  @Field() tenantId!: string;
  @Field(() => Int) expectedRevision!: number;
}
