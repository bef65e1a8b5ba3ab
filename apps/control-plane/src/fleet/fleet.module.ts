import { Module } from '@nestjs/common';
import { FleetRepository } from './fleet.repository';
import { AgentNodesResolver, FleetResolver } from './fleet.resolver';
import { FleetService } from './fleet.service';
import { NodeInventoryModule } from '../node-inventory/node-inventory.module';

/** GraphQL: Query.fleet(agentId) and Agent.nodes. */
@Module({ imports: [NodeInventoryModule], providers: [FleetRepository, FleetService, FleetResolver, AgentNodesResolver] })
export class FleetModule {}
