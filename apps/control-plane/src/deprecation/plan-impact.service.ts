import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { affectsTenant, planImpact, type CapabilityManifest } from '@cp/capabilities';
import { Clock } from '@cp/common';
import { ANONYMOUS_TENANT } from '@cp/node-protocol';
import { validateInput } from '../common/errors';
import type { PlanImpactModel } from './dto/impact.model';
import { ImpactRepository } from './impact.repository';

const DAY_MS = 86_400_000;
export const DEFAULT_IMPACT_DAYS = 30;
export const impactDaysSchema = z.number().int('must be an integer').min(1, 'must be at least 1').max(400, 'must be at most 400');

/**
 * "What would this plan affect": the core's planImpact (removed, narrowed by scopes or tenants,
 * hidden) joined with the callers of the last `days` days it takes the capability from. One
 * usage query for the whole plan.
 */
@Injectable()
export class PlanImpactService {
  constructor(
    private readonly usage: ImpactRepository,
    private readonly clock: Clock,
  ) {}

  async forPlan(
    agentId: string,
    before: readonly CapabilityManifest[],
    after: readonly CapabilityManifest[],
    days: number | null | undefined,
  ): Promise<PlanImpactModel[]> {
    const window = validateInput(impactDaysSchema, days ?? DEFAULT_IMPACT_DAYS, '$.impactDays');
    const changes = planImpact(before, after);
    if (changes.length === 0) return [];
    const since = new Date(this.clock.now().getTime() - window * DAY_MS);
    const callers = await this.usage.callers(agentId, [...new Set(changes.map((c) => c.capabilityId))], since);
    return changes.map((change) => {
      const affected = callers
        .filter((c) => c.capabilityId === change.capabilityId && affectsTenant(change.audience, c.tenantId, ANONYMOUS_TENANT))
        .map(({ tenantId, calls, lastCallAt }) => ({ tenantId, calls, lastCallAt }));
      return {
        capabilityId: change.capabilityId,
        kind: change.kind,
        detail: change.detail,
        calls: affected.reduce((sum, c) => sum + c.calls, 0),
        callers: affected,
      };
    });
  }
}
