import { Injectable } from '@nestjs/common';
import type { AdminPrincipal } from '@cp/auth';
import { Clock, InjectConfig, type AppConfig } from '@cp/common';
import { RetirementPlanner } from '@cp/jobs';
import { validateInput } from '../common/errors';
import { ManifestsService } from '../manifests/manifests.service';
import { toReasonModel } from '../retirement/retirement-admin.service';
import type { CapabilityImpactModel } from './dto/impact.model';
import { ImpactRepository } from './impact.repository';
import { impactDaysSchema } from './plan-impact.service';

const DAY_MS = 86_400_000;

/**
 * The impact report of one capability: who still calls it (tenants, nodes, per day), whether that
 * usage is known, and the earliest time the retirement job could remove it. The retirement
 * facts come from the job's own planner (the same rule, the same queries), never a second copy.
 */
@Injectable()
export class CapabilityImpactService {
  constructor(
    private readonly manifests: ManifestsService,
    private readonly usage: ImpactRepository,
    private readonly planner: RetirementPlanner,
    private readonly clock: Clock,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  async report(principal: AdminPrincipal, agentId: string, capabilityId: string, days?: number | null): Promise<CapabilityImpactModel> {
    const record = await this.manifests.get(principal, agentId, capabilityId);
    const windowDays = validateInput(impactDaysSchema, days ?? this.config.RETIREMENT_WINDOW_DAYS, '$.days');
    const now = this.clock.now();
    const since = new Date(now.getTime() - windowDays * DAY_MS);
    const [callers, nodes, daily, { plan }] = await Promise.all([
      this.usage.callers(agentId, [capabilityId], since),
      this.usage.nodes(agentId, capabilityId, since),
      this.usage.daily(agentId, capabilityId, since),
      this.planner.preview(agentId, now),
    ]);
    const decision = [...plan.retire, ...plan.skip].find((d) => d.capabilityId === capabilityId);
    const m = record.manifest;
    const lastCallAt = callers.reduce<Date | null>((last, c) => (last && last > c.lastCallAt ? last : c.lastCallAt), null);
    return {
      agentId,
      capabilityId,
      state: m.state,
      replacedBy: m.replacedBy ?? null,
      deprecatedAt: record.deprecatedAt,
      sunsetAt: m.sunsetAt ? new Date(m.sunsetAt) : null,
      asOf: now,
      windowDays,
      windowStart: since,
      calls: callers.reduce((sum, c) => sum + c.calls, 0),
      lastCallAt,
      tenants: callers.map(({ tenantId, calls, lastCallAt: last }) => ({ tenantId, calls, lastCallAt: last })),
      nodes,
      daily,
      usageComplete: plan.unknownUsage.length === 0,
      unknownUsage: plan.unknownUsage,
      earliestRetirementAt: decision?.earliestAt ?? null,
      retirementBlockers: decision ? decision.reasons.map(toReasonModel) : [],
    };
  }
}
