import { Injectable } from '@nestjs/common';
import { PrismaService, Prisma } from '@cp/db';

export interface UsageKey {
  agentId: string;
  capabilityId: string;
}

export interface UsageTotal {
  calls: number;
  lastCallAt: Date | null;
}

export interface UsageDay {
  capabilityId: string;
  tenantId: string;
  day: string;
  calls: number;
  lastCallAt: Date;
}

export interface UsageWindow {
  from?: string;
  to?: string;
}

const dayOf = (d: Date) => d.toISOString().slice(0, 10);

/**
 * Usage read side: UsageBucket rows summed over nodes. Every method is ONE SQL statement. Sums are
 * float8: a sum of bigints can exceed bigint, and a cast would fail the query for everyone.
 */
@Injectable()
export class UsageRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Totals per (agent, capability) for many keys at once (the DataLoader's batch): one index scan
   * per key (LATERAL). Joining the buckets to the unnested keys instead let the planner hash-join
   * a scan of the whole table (every bucket of every agent) for a page of 100: ~35x the time
   * on 30,000 buckets, growing with the table rather than with the page. A key without buckets
   * has no row (SUM over nothing is NULL), as before.
   */
  async totals(keys: readonly UsageKey[], window: UsageWindow): Promise<Map<string, UsageTotal>> {
    const agents = keys.map((k) => k.agentId);
    const capabilities = keys.map((k) => k.capabilityId);
    const rows = await this.prisma.$queryRaw<{ agentId: string; capabilityId: string; calls: number; lastCallAt: Date }[]>`
      SELECT k.agent AS "agentId", k.capability AS "capabilityId", t.calls, t."lastCallAt"
        FROM unnest(${agents}::text[], ${capabilities}::text[]) AS k(agent, capability)
       CROSS JOIN LATERAL (
             SELECT SUM(b.count)::float8 AS calls, MAX(b."lastCallAt") AS "lastCallAt"
               FROM "UsageBucket" b
              WHERE b."agentId" = k.agent AND b."capabilityId" = k.capability
                AND (${window.from ?? null}::date IS NULL OR b.day >= ${window.from ?? null}::date)
                AND (${window.to ?? null}::date IS NULL OR b.day <= ${window.to ?? null}::date)
             ) t
       WHERE t.calls IS NOT NULL`;
    return new Map(rows.map((r) => [usageKey(r), { calls: Number(r.calls), lastCallAt: r.lastCallAt }]));
  }

  /** Per capability × tenant × day of one agent, ordered (day desc, capability, tenant), `take` after the cursor. */
  async daily(
    scope: { agentId: string; capabilityId?: string; tenantId?: string } & UsageWindow,
    after: [string, string, string] | undefined,
    take: number,
  ): Promise<UsageDay[]> {
    const cursor = after
      ? Prisma.sql`AND (b.day < ${after[0]}::date OR (b.day = ${after[0]}::date AND (b."capabilityId", b."tenantId") > (${after[1]}, ${after[2]})))`
      : Prisma.empty;
    const rows = await this.prisma.$queryRaw<{ capabilityId: string; tenantId: string; day: Date; calls: number; lastCallAt: Date }[]>`
      SELECT b."capabilityId", b."tenantId", b.day, SUM(b.count)::float8 AS calls, MAX(b."lastCallAt") AS "lastCallAt"
        FROM "UsageBucket" b
       WHERE b."agentId" = ${scope.agentId}
         AND (${scope.capabilityId ?? null}::text IS NULL OR b."capabilityId" = ${scope.capabilityId ?? null})
         AND (${scope.tenantId ?? null}::text IS NULL OR b."tenantId" = ${scope.tenantId ?? null})
         AND (${scope.from ?? null}::date IS NULL OR b.day >= ${scope.from ?? null}::date)
         AND (${scope.to ?? null}::date IS NULL OR b.day <= ${scope.to ?? null}::date)
         ${cursor}
       GROUP BY b."capabilityId", b."tenantId", b.day
       ORDER BY b.day DESC, b."capabilityId", b."tenantId"
       LIMIT ${take}`;
    return rows.map((r) => ({
      capabilityId: r.capabilityId,
      tenantId: r.tenantId,
      day: dayOf(r.day),
      calls: Number(r.calls),
      lastCallAt: r.lastCallAt,
    }));
  }
}

export const usageKey = (k: UsageKey) => `${k.agentId}\u0000${k.capabilityId}`;
