import { UseGuards } from '@nestjs/common';
import { Args, Mutation, Query, Resolver } from '@nestjs/graphql';
import type { AdminPrincipal } from '@cp/auth';
import { AdminGuard } from '../auth/admin.guard';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { PageInput } from '../common/graphql/pagination';
import { toChangeRequestModel } from '../change-requests/change-request.mapper';
import { AgentsService } from './agents.service';
import type { AgentRecord } from './agents.repository';
import { AgentConnection, AgentModel } from './dto/agent.model';
import { AgentFilter, CreateAgentInput, UpdateAgentInput } from './dto/agent.input';

const toModel = (a: AgentRecord): AgentModel => ({
  ...a.base,
  protocol: {
    ...a.base.protocol,
    versions: a.base.protocol.versions ?? ['1.0'],
    webhookAllow: a.base.protocol.webhookAllow ?? [],
    upstreamAllow: a.base.protocol.upstreamAllow ?? [],
  },
  id: a.id,
  teamId: a.teamId,
  revision: a.revision,
  createdAt: a.createdAt,
  updatedAt: a.updatedAt,
});

@Resolver(() => AgentModel)
@UseGuards(AdminGuard)
export class AgentsResolver {
  constructor(private readonly service: AgentsService) {}

  @Query(() => AgentModel)
  async agent(@CurrentPrincipal() principal: AdminPrincipal, @Args('id') id: string): Promise<AgentModel> {
    return toModel(await this.service.get(principal, id));
  }

  @Query(() => AgentConnection)
  async agents(
    @CurrentPrincipal() principal: AdminPrincipal,
    @Args('filter', { type: () => AgentFilter, nullable: true }) filter?: AgentFilter,
    @Args('page', { type: () => PageInput, nullable: true }) page?: PageInput,
  ) {
    const result = await this.service.list(principal, filter ?? {}, page);
    return { ...result, nodes: result.nodes.map(toModel) };
  }

  @Mutation(() => AgentModel, { description: 'Creates an agent at revision 1 (platform-admin, or team-admin of its team).' })
  async createAgent(@CurrentPrincipal() principal: AdminPrincipal, @Args('input') input: CreateAgentInput): Promise<AgentModel> {
    return toModel(await this.service.create(principal, input));
  }

  @Mutation(() => AgentModel, {
    description:
      'Changes the card base; refused with CONFLICT unless expectedRevision is current. A widening of an allow list the approval policy gates applies nothing: the answer carries the change request that holds it (ADR 0325).',
  })
  async updateAgent(@CurrentPrincipal() principal: AdminPrincipal, @Args('input') input: UpdateAgentInput): Promise<AgentModel> {
    const { changeRequest, ...agent } = await this.service.update(principal, input);
    if (!changeRequest) return toModel(agent);
    const applied = changeRequest.status === 'applied';
    return {
      ...toModel(agent),
      changeRequest: toChangeRequestModel(changeRequest, {
        canApprove: false,
        cannotApproveReason: applied ? 'it is applied' : 'you submitted it: another admin must approve it',
      }),
    };
  }
}
