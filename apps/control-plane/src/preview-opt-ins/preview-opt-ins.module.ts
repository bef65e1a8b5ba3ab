import { Module } from '@nestjs/common';
import { RegistryModule } from '@cp/db';
import { AgentsModule } from '../agents/agents.module';
import { NodeInventoryModule } from '../node-inventory/node-inventory.module';
import { PreviewOptInsRepository } from './preview-opt-ins.repository';
import { PreviewOptInsResolver } from './preview-opt-ins.resolver';
import { PreviewOptInsService } from './preview-opt-ins.service';

@Module({
  imports: [RegistryModule, AgentsModule, NodeInventoryModule],
  providers: [PreviewOptInsRepository, PreviewOptInsService, PreviewOptInsResolver],
})
export class PreviewOptInsModule {}
