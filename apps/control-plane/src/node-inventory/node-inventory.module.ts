import { Module } from '@nestjs/common';
import { RegistryModule } from '@cp/db';
import { NodeInventoryRepository } from './node-inventory.repository';
import { ServabilityGate } from './servability-gate';

/** Handler inventories of nodes (issue 14): stored by the node API, read by the plan gate and the fleet view. */
@Module({
  imports: [RegistryModule],
  providers: [NodeInventoryRepository, ServabilityGate],
  exports: [NodeInventoryRepository, ServabilityGate],
})
export class NodeInventoryModule {}
