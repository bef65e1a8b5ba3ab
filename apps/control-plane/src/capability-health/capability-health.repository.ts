import { Injectable } from '@nestjs/common';
import { Prisma, PrismaService } from '@cp/db';

export interface HealthScope {
  agentId: string;
  capabilityId?: string;
  tenantId?: string;
  from: Date;
  to: Date;
  perTenant: boolean;
}

/** Sums of one (capability, tenant) over a range; tenantId is '' when summed over tenants. */
export interface HealthSums {
  capabilityId: string;
  tenantId: string;
  calls: number;
  completed: number;
  failed: number;
  rejected: number;
  canceled: number;
  refused: number;
  inputRequired: number;
  latencyMs: number[];
}

/**
 * Health read side (ADR 0310): hourly buckets summed over the range in ONE statement, the latency
 * arrays element-wise. Sums are float8, as usage's: a sum of bigints can exceed bigint.
 */
@Injectable()
export class CapabilityHealthRepository {
  constructor(private readonly prisma: PrismaService) {}

  async sums(scope: HealthScope, after: [string, string] | undefined, take: number): Promise<HealthSums[]> {
    const tenant = scope.perTenant ? Prisma.sql`b."tenantId"` : Prisma.sql`''`;
    const cursor = after ? Prisma.sql`AND (s."capabilityId", s."tenantId") > (${after[0]}, ${after[1]})` : Prisma.empty;
    return this.prisma.$queryRaw<HealthSums[]>`
      WITH b AS (
        SELECT b."capabilityId", ${tenant} AS "tenantId", b.calls, b.completed, b.failed, b.rejected, b.canceled, b.refused,
               b."inputRequired", b."latencyMs"
          FROM "CapabilityHealthBucket" b
         WHERE b."agentId" = ${scope.agentId}
           AND b.hour >= ${scope.from}::timestamp AND b.hour < ${scope.to}::timestamp
           AND (${scope.capabilityId ?? null}::text IS NULL OR b."capabilityId" = ${scope.capabilityId ?? null})
           AND (${scope.tenantId ?? null}::text IS NULL OR b."tenantId" = ${scope.tenantId ?? null})
      ), s AS (
        SELECT "capabilityId", "tenantId", SUM(calls)::float8 AS calls, SUM(completed)::float8 AS completed,
               SUM(failed)::float8 AS failed, SUM(rejected)::float8 AS rejected, SUM(canceled)::float8 AS canceled,
               SUM(refused)::float8 AS refused, SUM("inputRequired")::float8 AS "inputRequired"
          FROM b GROUP BY "capabilityId", "tenantId"
      )
      SELECT s.*, ARRAY(
               SELECT SUM(l.v)::float8 FROM b CROSS JOIN LATERAL unnest(b."latencyMs") WITH ORDINALITY AS l(v, n)
                WHERE b."capabilityId" = s."capabilityId" AND b."tenantId" = s."tenantId"
                GROUP BY l.n ORDER BY l.n) AS "latencyMs"
        FROM s
       WHERE TRUE ${cursor}
       ORDER BY s."capabilityId", s."tenantId"
       LIMIT ${take}`;
  }
}
