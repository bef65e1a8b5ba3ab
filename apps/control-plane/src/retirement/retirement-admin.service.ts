import { Injectable } from '@nestjs/common';
import { InjectQueue } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import type { AdminPrincipal } from '@cp/auth';
import { RetirementSkipCode, type RetirementSkipReason } from '@cp/capabilities';
import {
  Clock,
  RETIREMENT_JOB,
  RETIREMENT_QUEUE,
  RetirementPlanner,
  RetirementService,
  type RetirementJobData,
  type RetirementRunRecord,
} from '@cp/jobs';
import { notFound } from '../common/errors';
import { AccessPolicy } from '../auth/access-policy';
import type {
  RetirementPreviewModel,
  RetirementRunModel,
  RetirementSkipCode as SkipCodeModel,
  RetirementSkipReasonModel,
} from './dto/retirement.models';

/** The admin side of retirement: preview (access-checked), queue a run, read the run records. */
@Injectable()
export class RetirementAdminService {
  constructor(
    private readonly planner: RetirementPlanner,
    private readonly retirement: RetirementService,
    private readonly access: AccessPolicy,
    private readonly clock: Clock,
    @InjectQueue(RETIREMENT_QUEUE) private readonly queue: Queue<RetirementJobData>,
  ) {}

  async preview(principal: AdminPrincipal, agentId: string): Promise<RetirementPreviewModel> {
    const team = await this.planner.agentTeam(agentId);
    if (team === null) throw notFound('agent', agentId);
    this.access.assertCanRead(principal, team, { type: 'agent', id: agentId });
    const { plan } = await this.planner.preview(agentId, this.clock.now());
    return {
      agentId,
      asOf: plan.asOf,
      windowStart: plan.windowStart,
      retire: plan.retire.map((d) => ({ capabilityId: d.capabilityId, because: d.because })),
      skipped: plan.skip.map((d) => ({ capabilityId: d.capabilityId, reasons: d.reasons.map(toReasonModel), earliestAt: d.earliestAt })),
    };
  }

  /** Records a queued run and hands it to the worker (job id = run id, so it is enqueued once). */
  async runNow(principal: AdminPrincipal): Promise<RetirementRunModel> {
    const run = await this.retirement.queue(principal.subject);
    await this.queue.add(
      RETIREMENT_JOB,
      { trigger: 'manual', runId: run.id, requestedBy: principal.subject },
      { jobId: run.id, attempts: 3, backoff: { type: 'exponential', delay: 10_000 } },
    );
    return toRunModel(run);
  }

  async runs(limit: number): Promise<RetirementRunModel[]> {
    return (await this.retirement.latestRuns(limit)).map(toRunModel);
  }
}

export function toReasonModel(reason: RetirementSkipReason): RetirementSkipReasonModel {
  switch (reason.code) {
    case RetirementSkipCode.StillCalled:
      return { code: wire(reason.code), message: reason.message, calls: reason.calls, lastCallAt: reason.lastCallAt };
    case RetirementSkipCode.DeprecatedTooRecently:
      return { code: wire(reason.code), message: reason.message, eligibleAt: reason.eligibleAt };
    case RetirementSkipCode.UsageUnknown:
      return { code: wire(reason.code), message: reason.message, unknownUsage: reason.unknown };
    case RetirementSkipCode.SunsetNotReached:
      return { code: wire(reason.code), message: reason.message, sunsetAt: reason.sunsetAt };
  }
}

function toRunModel(run: RetirementRunRecord): RetirementRunModel {
  return {
    ...run,
    status: run.status as RetirementRunModel['status'],
    retired: run.retired.map((r) => ({ ...r, removedAt: new Date(r.removedAt) })),
    skipped: run.skipped.map((s) => ({ ...s, reasons: s.reasons.map((r) => ({ code: wire(r.code), message: r.message })) })),
  };
}

/** Same strings on both sides (the model's enum is keyed by the core's values). */
function wire(code: RetirementSkipCode): SkipCodeModel {
  return code as unknown as SkipCodeModel;
}
