import { UseGuards } from '@nestjs/common';
import { Field, ObjectType, Query, Resolver } from '@nestjs/graphql';
import type { AdminPrincipal } from '@cp/auth';
import { AdminGuard } from './admin.guard';
import { CurrentPrincipal } from './current-principal.decorator';

@ObjectType('Principal', { description: 'The caller, as its verified token says.' })
export class PrincipalModel {
  @Field() subject!: string;
  @Field(() => [String]) roles!: string[];
  @Field(() => [String]) teams!: string[];
}

@Resolver(() => PrincipalModel)
@UseGuards(AdminGuard)
export class MeResolver {
  @Query(() => PrincipalModel, { description: 'Who the API thinks you are.' })
  me(@CurrentPrincipal() principal: AdminPrincipal): PrincipalModel {
    return { subject: principal.subject, roles: principal.roles, teams: principal.teams };
  }
}
