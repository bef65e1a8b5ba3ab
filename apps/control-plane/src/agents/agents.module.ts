import { Module } from '@nestjs/common';
import { RegistryModule } from '@cp/db';
import { ApprovalGateModule } from '../change-requests/approval-gate.module';
import { AgentsRepository } from './agents.repository';
import { AgentsResolver } from './agents.resolver';
import { AgentsService } from './agents.service';

@Module({
  imports: [RegistryModule, ApprovalGateModule],
  providers: [AgentsRepository, AgentsService, AgentsResolver],
  exports: [AgentsService],
})
export class AgentsModule {}
