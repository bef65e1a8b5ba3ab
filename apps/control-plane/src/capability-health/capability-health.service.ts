import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import type { AdminPrincipal } from '@cp/auth';
import { latencyQuantile } from '@cp/capabilities';
import { Clock } from '@cp/jobs';
import { LATENCY_BOUNDS_MS, LATENCY_BUCKETS } from '@cp/node-protocol';
import { AgentsService } from '../agents/agents.service';
import { InputValidationError, validateInput } from '../common/errors';
import { decodeCursor, pageSize, toPage, type PageInput } from '../common/graphql/pagination';
import { CapabilityHealthRepository, type HealthSums } from './capability-health.repository';
import type { CapabilityHealthFilter, CapabilityHealthModel, CapabilityHealthReportModel } from './dto/capability-health.model';

const HOUR_MS = 3_600_000;
/** The longest range one query sums (hourly buckets: 93 days is 2,232 per capability and tenant). */
export const MAX_HEALTH_RANGE_DAYS = 93;
const DEFAULT_RANGE_MS = 24 * HOUR_MS;

const dateTime = z.iso.datetime({ offset: true, message: 'must be an ISO-8601 date-time (e.g. 2026-12-01T10:00:00Z)' });
const rangeSchema = z.object({ from: dateTime.nullish(), to: dateTime.nullish() });

const floorHour = (t: number) => Math.floor(t / HOUR_MS) * HOUR_MS;
const ceilHour = (t: number) => Math.ceil(t / HOUR_MS) * HOUR_MS;

@Injectable()
export class CapabilityHealthService {
  constructor(
    private readonly health: CapabilityHealthRepository,
    private readonly agents: AgentsService,
    private readonly clock: Clock,
  ) {}

  /** The hour-aligned range [from, to): defaults to the last 24 hours; bounded; from before to. */
  range(filter: CapabilityHealthFilter): { from: Date; to: Date } {
    const r = validateInput(rangeSchema, { from: filter.from, to: filter.to }, '$.filter');
    const to = ceilHour(r.to ? Date.parse(r.to) : this.clock.now().getTime());
    const from = floorHour(r.from ? Date.parse(r.from) : to - DEFAULT_RANGE_MS);
    if (from >= to) throw new InputValidationError([{ path: '$.filter.from', message: 'must be before "to"' }]);
    if (to - from > MAX_HEALTH_RANGE_DAYS * 24 * HOUR_MS)
      throw new InputValidationError([
        { path: '$.filter.from', message: `the range must not be longer than ${MAX_HEALTH_RANGE_DAYS} days` },
      ]);
    return { from: new Date(from), to: new Date(to) };
  }

  async report(
    principal: AdminPrincipal,
    filter: CapabilityHealthFilter,
    page: PageInput | undefined,
  ): Promise<CapabilityHealthReportModel> {
    // The agent must be one the principal may see (team admins: their teams' agents), as usage.
    await this.agents.get(principal, filter.agentId);
    const { from, to } = this.range(filter);
    const size = pageSize(page);
    const cursor = decodeCursor(page?.after);
    const after = cursor?.length === 2 ? (cursor.map(String) as [string, string]) : undefined;
    const perTenant = filter.perTenant ?? true;
    const rows = await this.health.sums(
      {
        agentId: filter.agentId,
        capabilityId: filter.capabilityId ?? undefined,
        tenantId: filter.tenantId ?? undefined,
        from,
        to,
        perTenant,
      },
      after,
      size + 1,
    );
    const page_ = toPage(rows, size, (r) => [r.capabilityId, r.tenantId]);
    return { from, to, latencyBoundsMs: [...LATENCY_BOUNDS_MS], rows: { ...page_, nodes: page_.nodes.map((r) => figures(r, perTenant)) } };
  }
}

/** The figures of one row (ADR 0310): rates over the outcomes, percentiles from the buckets. */
export function figures(r: HealthSums, perTenant: boolean): CapabilityHealthModel {
  const latency = r.latencyMs.length === LATENCY_BUCKETS ? r.latencyMs.map(Number) : new Array<number>(LATENCY_BUCKETS).fill(0);
  const outcomes = {
    completed: r.completed,
    failed: r.failed,
    rejected: r.rejected,
    canceled: r.canceled,
    refused: r.refused,
    inputRequired: r.inputRequired,
  };
  const ended = Object.values(outcomes).reduce((s, n) => s + n, 0);
  const ran = ended - r.refused;
  const round = (ms: number | undefined) => (ms === undefined ? null : Math.round(ms * 10) / 10);
  return {
    capabilityId: r.capabilityId,
    tenantId: perTenant ? r.tenantId : null,
    calls: r.calls,
    outcomes,
    ended,
    errorRate: ran > 0 ? r.failed / ran : null,
    refusedRate: ended > 0 ? r.refused / ended : null,
    p50Ms: round(latencyQuantile(latency, LATENCY_BOUNDS_MS, 0.5)),
    p95Ms: round(latencyQuantile(latency, LATENCY_BOUNDS_MS, 0.95)),
    latencyBuckets: latency,
  };
}
