import { Module } from '@nestjs/common';
import { AuditWriterModule } from '@cp/db';
import { AgentsModule } from '../agents/agents.module';
import { ManifestsModule } from '../manifests/manifests.module';
import { ApprovalGateModule } from './approval-gate.module';
import { ChangeRequestsResolver } from './change-requests.resolver';
import { ChangeRequestsService } from './change-requests.service';

/** Change requests in the admin API (issue 32, ADR 0300): list, approve, reject, and the approval policy. */
@Module({
  imports: [AuditWriterModule, ApprovalGateModule, ManifestsModule, AgentsModule],
  providers: [ChangeRequestsService, ChangeRequestsResolver],
})
export class ChangeRequestsModule {}
