import { UseGuards } from '@nestjs/common';
import { Args, Int, Mutation, Query, Resolver } from '@nestjs/graphql';
import type { AdminPrincipal } from '@cp/auth';
import { AdminGuard } from '../auth/admin.guard';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { Roles } from '../auth/roles.decorator';
import { validateInput } from '../common/errors';
import { z } from 'zod';
import { RetirementAdminService } from './retirement-admin.service';
import { RetirementPreviewModel, RetirementRunModel } from './dto/retirement.models';

const limitSchema = z.number().int().min(1, 'must be at least 1').max(100, 'must be at most 100');

@Resolver(() => RetirementRunModel)
@UseGuards(AdminGuard)
export class RetirementResolver {
  constructor(private readonly retirement: RetirementAdminService) {}

  @Query(() => RetirementPreviewModel, {
    description: 'What the next retirement run would retire for this agent and why, and what it would keep and why.',
  })
  async retirementPreview(
    @CurrentPrincipal() principal: AdminPrincipal,
    @Args('agentId') agentId: string,
  ): Promise<RetirementPreviewModel> {
    return this.retirement.preview(principal, agentId);
  }

  @Query(() => [RetirementRunModel], {
    description: 'The latest retirement runs, newest first (platform-admin, viewer: runs span every team).',
  })
  @Roles('platform-admin', 'viewer')
  async retirementRuns(@Args('limit', { type: () => Int, defaultValue: 10 }) limit: number): Promise<RetirementRunModel[]> {
    return this.retirement.runs(validateInput(limitSchema, limit, '$.limit'));
  }

  @Mutation(() => RetirementRunModel, {
    description: 'Queues a retirement run over every agent now (platform-admin); the worker runs it. Poll retirementRuns for its result.',
  })
  @Roles('platform-admin')
  async runRetirementNow(@CurrentPrincipal() principal: AdminPrincipal): Promise<RetirementRunModel> {
    return this.retirement.runNow(principal);
  }
}
