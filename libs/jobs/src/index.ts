/** @cp/jobs: queue names, job payloads, the clock (re-exported from @cp/common), and the retirement use cases shared by the worker and the control plane. */
export { Clock, SystemClock, ClockModule } from './clock';
export { RETIREMENT_QUEUE, RETIREMENT_JOB, RETIREMENT_SCHEDULER_ID, bullPrefix, bullConnection, bullConnectionFor } from './queues';
export type { RetirementJobData, RetirementTrigger } from './queues';
export { JobsQueueModule } from './jobs-queue.module';
export { RetirementCoreModule } from './retirement/retirement.module';
export { RetirementService, type RunRequest } from './retirement/retirement.service';
export { RetirementPlanner, type AgentPlan } from './retirement/retirement-planner';
export { RetirementRepository } from './retirement/retirement.repository';
export { RetirementRunsRepository } from './retirement/retirement-runs.repository';
export { retirementPolicy } from './retirement/retirement-policy';
export { RetirementError, RetirementErrorCode } from './retirement/retirement.errors';
export * from './retirement/retirement.types';
export { UsageRetentionService } from './retention/usage-retention.service';
export { NOTICES_QUEUE, NOTICE_SCAN_JOB, NOTICE_DELIVER_JOB, NOTICE_SCHEDULER_ID } from './queues';
export type { NoticeJobData } from './queues';
export { NoticesCoreModule } from './notices/notices.module';
export { NoticesRepository, type NoticeRecord, type NoticeStatus } from './notices/notices.repository';
export { NoticeScanService } from './notices/notice-scan.service';
export {
  NoticeDeliveryService,
  RetryableDeliveryError,
  noticeWebhookPolicy,
  type DeliveryOutcome,
} from './notices/notice-delivery.service';
