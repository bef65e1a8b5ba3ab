import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { InjectQueue } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { dueNotices, retirementWindowStart } from '@cp/capabilities';
import { Clock, InjectConfig, type AppConfig } from '@cp/common';
import { NOTICE_DELIVER_JOB, NOTICES_QUEUE, type NoticeJobData } from '../queues';
import { RetirementPlanner } from '../retirement/retirement-planner';
import { retirementPolicy } from '../retirement/retirement-policy';
import { NoticesRepository, type NewNotice } from './notices.repository';

const MAX_ENQUEUED_PER_SCAN = 10_000;

/**
 * Finds the deprecation notices that are due (issue 21) and hands each to a delivery job. The
 * recipients are the tenants with an endpoint whose callers used the capability inside the
 * retirement window; the "removal imminent" date is the retirement rule's own `earliestAt`.
 * Idempotent: a notice found again is not recorded again (unique key), and every pending notice
 * is (re-)enqueued under its own id, so a crash between recording and enqueueing loses nothing.
 */
@Injectable()
export class NoticeScanService {
  private readonly logger = new Logger(NoticeScanService.name);

  constructor(
    private readonly notices: NoticesRepository,
    private readonly planner: RetirementPlanner,
    private readonly clock: Clock,
    @InjectConfig() private readonly config: AppConfig,
    @InjectQueue(NOTICES_QUEUE) private readonly queue: Queue<NoticeJobData>,
  ) {}

  async scan(): Promise<{ recorded: number; enqueued: number }> {
    const now = this.clock.now();
    const since = retirementWindowStart(now, retirementPolicy(this.config));
    const subjects = await this.notices.subjects(since);
    const earliest = new Map<string, Date | null>();
    if (subjects.length > 0)
      for (const { agentId, plan } of await this.planner.planAll(now))
        for (const d of [...plan.retire, ...plan.skip]) earliest.set(`${agentId}/${d.capabilityId}`, d.earliestAt);
    const found: NewNotice[] = subjects.flatMap((s) =>
      dueNotices(
        {
          agentId: s.agentId,
          capabilityId: s.capabilityId,
          tenantId: s.tenantId,
          deprecatedAt: s.deprecatedAt,
          sunsetAt: s.sunsetAt,
          replacedBy: s.replacementOpen ? s.replacedBy : null,
          deprecationReason: s.deprecationReason,
          earliestRemovalAt: earliest.get(`${s.agentId}/${s.capabilityId}`) ?? null,
          announcedSunsets: { count: s.sunsetNotices, latest: s.announcedSunset },
        },
        now,
      ).map((due) => ({ ...due, id: randomUUID(), tenantId: s.tenantId, agentId: s.agentId, capabilityId: s.capabilityId })),
    );
    const recorded = await this.notices.record(found);
    const enqueued = await this.enqueuePending();
    if (recorded + enqueued > 0) this.logger.log(`deprecation notices: ${recorded} new, ${enqueued} pending enqueued`);
    return { recorded, enqueued };
  }

  /**
   * One deliver job per pending notice, job id = notice id. BullMQ ignores an add whose id it
   * still holds, finished or not: a job still waiting, delayed or running is left alone, but a
   * finished one (a dead letter revived, a job that failed on something other than the endpoint)
   * is removed first, or the pending notice would never be sent.
   */
  async enqueuePending(): Promise<number> {
    const ids = await this.notices.pendingIds(MAX_ENQUEUED_PER_SCAN);
    await Promise.all(
      ids.map(async (noticeId) => {
        const job = await this.queue.getJob(noticeId);
        if (!job) return;
        const state = await job.getState();
        if (state === 'completed' || state === 'failed') await job.remove();
      }),
    );
    await this.queue.addBulk(
      ids.map((noticeId) => ({
        name: NOTICE_DELIVER_JOB,
        data: { kind: 'deliver' as const, noticeId },
        opts: {
          jobId: noticeId,
          attempts: this.config.DEPRECATION_NOTICE_ATTEMPTS,
          backoff: { type: 'exponential', delay: this.config.DEPRECATION_NOTICE_BACKOFF_MS },
        },
      })),
    );
    return ids.length;
  }
}
