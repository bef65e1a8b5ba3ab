import { Module } from '@nestjs/common';
import { FleetRepository } from './fleet.repository';
import { AgentNodesResolver, FleetResolver } from './fleet.resolver';
import { FleetService } from './fleet.service';

/** GraphQL: Query.fleet(agentId) and Agent.nodes. */
@Module({ providers: [FleetRepository, FleetService, FleetResolver, AgentNodesResolver] })
export class FleetModule {}
