import { Injectable } from '@nestjs/common';
import { PrismaService } from '@cp/db';

export interface CallerUsage {
  capabilityId: string;
  /** The tenant named in the callers' tokens (`anonymous` for callers without one). */
  tenantId: string;
  calls: number;
  lastCallAt: Date;
}

export interface NodeUsage {
  nodeId: string;
  calls: number;
  lastCallAt: Date;
}

export interface DayUsage {
  day: string;
  calls: number;
}

/**
 * Who called which capability since a time, read from the usage buckets (one SQL statement per
 * method, set-based over many capabilities). A bucket is a day; its lastCallAt tells whether any
 * of its calls fell after `since`, as in the retirement rule. Sums are float8 (see UsageRepository).
 */
@Injectable()
export class ImpactRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Calls per capability × tenant since `since`, for many capabilities of one agent at once. */
  async callers(agentId: string, capabilityIds: readonly string[], since: Date): Promise<CallerUsage[]> {
    if (capabilityIds.length === 0) return [];
    const rows = await this.prisma.$queryRaw<{ capabilityId: string; tenantId: string; calls: number; lastCallAt: Date }[]>`
      SELECT b."capabilityId", b."tenantId", SUM(b.count)::float8 AS calls, MAX(b."lastCallAt") AS "lastCallAt"
        FROM "UsageBucket" b
       WHERE b."agentId" = ${agentId} AND b."capabilityId" = ANY(${[...capabilityIds]}::text[])
         AND b.day >= ${day(since)}::date AND b."lastCallAt" >= ${since}::timestamp AND b.count > 0
       GROUP BY b."capabilityId", b."tenantId"
       ORDER BY b."capabilityId", MAX(b."lastCallAt") DESC, b."tenantId"`;
    return rows.map((r) => ({ ...r, calls: Number(r.calls) }));
  }

  /** Calls of one capability per node since `since` (nodes are keyed per agent: ADR 0070). */
  async nodes(agentId: string, capabilityId: string, since: Date): Promise<NodeUsage[]> {
    const rows = await this.prisma.$queryRaw<{ nodeId: string; calls: number; lastCallAt: Date }[]>`
      SELECT b."nodeId", SUM(b.count)::float8 AS calls, MAX(b."lastCallAt") AS "lastCallAt"
        FROM "UsageBucket" b
       WHERE b."agentId" = ${agentId} AND b."capabilityId" = ${capabilityId}
         AND b.day >= ${day(since)}::date AND b."lastCallAt" >= ${since}::timestamp AND b.count > 0
       GROUP BY b."nodeId"
       ORDER BY MAX(b."lastCallAt") DESC, b."nodeId"`;
    return rows.map((r) => ({ ...r, calls: Number(r.calls) }));
  }

  /** Calls of one capability per UTC day since `since`'s day, oldest first. */
  async daily(agentId: string, capabilityId: string, since: Date): Promise<DayUsage[]> {
    const rows = await this.prisma.$queryRaw<{ day: Date; calls: number }[]>`
      SELECT b.day, SUM(b.count)::float8 AS calls
        FROM "UsageBucket" b
       WHERE b."agentId" = ${agentId} AND b."capabilityId" = ${capabilityId} AND b.day >= ${day(since)}::date
       GROUP BY b.day
       ORDER BY b.day`;
    return rows.map((r) => ({ day: day(r.day), calls: Number(r.calls) }));
  }
}

const day = (d: Date) => d.toISOString().slice(0, 10);
