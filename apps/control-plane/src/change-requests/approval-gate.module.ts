import { Module } from '@nestjs/common';
import { AuditWriterModule } from '@cp/db';
import { NoticesCoreModule } from '@cp/jobs';
import { ApprovalGate } from './approval-gate.service';
import { ChangeRequestNotices } from './change-request-notices';
import { ChangeRequestsRepository } from './change-requests.repository';

/** What the apply path needs of change requests (ADR 0300): the policy, holding a request, break-glass. */
@Module({
  imports: [AuditWriterModule, NoticesCoreModule],
  providers: [ChangeRequestsRepository, ChangeRequestNotices, ApprovalGate],
  exports: [ChangeRequestsRepository, ChangeRequestNotices, ApprovalGate],
})
export class ApprovalGateModule {}
