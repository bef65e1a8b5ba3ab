import { Field, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { JSONScalar } from '../../common/graphql/json.scalar';

@ObjectType('NotificationEndpoint', { description: "A tenant's webhook for deprecation notices (one per tenant)." })
export class NotificationEndpointModel {
  @Field() tenantId!: string;
  @Field() url!: string;
  @Field() createdBy!: string;
  @Field() createdAt!: Date;
  @Field() updatedAt!: Date;
}

@ObjectType('NotificationEndpointWithSecret', {
  description: 'The endpoint as set, with its signing secret: shown this once (setting the endpoint again rotates it).',
})
export class NotificationEndpointWithSecretModel extends NotificationEndpointModel {
  @Field({ description: 'whsec_… (Standard Webhooks): verify webhook-signature with it.' }) secret!: string;
}

@InputType()
export class NotificationEndpointInput {
  @Field() tenantId!: string;
  @Field({ description: 'http(s) URL; it must resolve to public addresses unless DEPRECATION_NOTICE_ALLOW permits it.' }) url!: string;
}

export enum NoticeStatusModel {
  pending = 'pending',
  delivered = 'delivered',
  dead = 'dead',
}
registerEnumType(NoticeStatusModel, { name: 'DeprecationNoticeStatus', description: 'dead: retries exhausted (the dead-letter view).' });

@ObjectType('DeprecationNotice', { description: 'One signed notice to one tenant about one event of one capability.' })
export class DeprecationNoticeModel {
  @Field() id!: string;
  @Field() tenantId!: string;
  @Field() agentId!: string;
  @Field() capabilityId!: string;
  @Field({ description: 'capability.deprecated | capability.sunset_scheduled | capability.removal_imminent' }) event!: string;
  @Field() eventKey!: string;
  @Field(() => JSONScalar) payload!: unknown;
  @Field(() => NoticeStatusModel) status!: NoticeStatusModel;
  @Field(() => Int) attempts!: number;
  @Field(() => String, { nullable: true }) lastError!: string | null;
  @Field() createdAt!: Date;
  @Field(() => Date, { nullable: true }) deliveredAt!: Date | null;
}
