import { Field, InputType } from '@nestjs/graphql';
import type { ChangeKind } from '../change-kinds';
import type { ChangeRequestStatus } from '../change-requests.repository';
import { ChangeKindEnum, ChangeRequestStatusEnum } from './change-request.model';

@InputType()
export class ChangeRequestFilter {
  @Field(() => String, { nullable: true }) agentId?: string | null;
  @Field(() => ChangeRequestStatusEnum, { nullable: true }) status?: ChangeRequestStatus | null;
  @Field(() => String, { nullable: true, description: 'Subject of the author.' }) author?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Only break-glass applies (true) or only requests (false).' })
  breakGlass?: boolean | null;
}

@InputType()
export class DecideChangeRequestInput {
  @Field() id!: string;
  @Field(() => String, { nullable: true, description: 'Why (at most 2000 characters); required to reject.' }) comment?: string | null;
}

@InputType()
export class SetApprovalPolicyInput {
  @Field(() => [ChangeKindEnum], { description: 'The kinds that need a second admin; empty: none.' }) kinds!: ChangeKind[];
}
