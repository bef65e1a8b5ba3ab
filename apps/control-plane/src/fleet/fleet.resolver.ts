import { UseGuards } from '@nestjs/common';
import { Args, ID, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import type { AdminPrincipal } from '@cp/auth';
import { AdminGuard } from '../auth/admin.guard';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { AgentModel } from '../agents/dto/agent.model';
import { Loaders, type RequestLoaders } from '../common/graphql/request-loaders';
import { FleetModel, FleetNodeModel } from './dto/fleet.model';
import { FleetService, toFleetNode } from './fleet.service';

@Resolver(() => FleetModel)
@UseGuards(AdminGuard)
export class FleetResolver {
  constructor(private readonly service: FleetService) {}

  @Query(() => FleetModel, { description: "Which of the agent's nodes serve which revision, their lag and when each was last seen." })
  fleet(@CurrentPrincipal() principal: AdminPrincipal, @Args('agentId', { type: () => ID }) agentId: string): Promise<FleetModel> {
    return this.service.get(principal, agentId);
  }
}

@Resolver(() => AgentModel)
@UseGuards(AdminGuard)
export class AgentNodesResolver {
  constructor(private readonly fleet: FleetService) {}

  @ResolveField(() => [FleetNodeModel], { description: "The agent's nodes (see also Query.fleet)." })
  nodes(@Parent() agent: AgentModel, @Loaders() loaders: RequestLoaders): Promise<FleetNodeModel[]> {
    // One query for every agent of the request; lag is relative to each parent's revision.
    const loader = loaders.get<{ id: string; revision: number }, FleetNodeModel[], string>(
      'fleet:nodes-by-agent',
      async (agents) => {
        const byAgent = await this.fleet.nodesByAgent(agents.map((a) => a.id));
        return agents.map((a) => (byAgent.get(a.id) ?? []).map((n) => toFleetNode(n, a.revision)));
      },
      { cacheKeyFn: (a) => `${a.id}@${a.revision}` },
    );
    return loader.load({ id: agent.id, revision: agent.revision });
  }
}
