import { Field, ID, InputType, Int, ObjectType } from '@nestjs/graphql';
import { JSONScalar } from '../../common/graphql/json.scalar';
import { Connection } from '../../common/graphql/pagination';

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
}
