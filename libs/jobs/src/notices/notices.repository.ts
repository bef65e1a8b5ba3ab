import { Injectable } from '@nestjs/common';
import { Prisma, PrismaService } from '@cp/db';
import { NoticeEvent, type DueNotice } from '@cp/capabilities';

/** A deprecated capability, a tenant with an endpoint that called it in the window, and its replacement's reach. */
export interface NoticeSubjectRow {
  agentId: string;
  capabilityId: string;
  tenantId: string;
  deprecatedAt: Date;
  sunsetAt: Date | null;
  replacedBy: string | null;
  deprecationReason: string | null;
  /** Whether this tenant may use the replacement (live, not internal, open to the tenant). */
  replacementOpen: boolean;
  /** How many sunset-scheduled notices were recorded for this tenant and capability (their keys number them: none = 1, then `#2`, …). */
  sunsetNotices: number;
  /** The latest one's `deprecatedAt` and `sunsetAt` (payload data), null when none. */
  announcedSunset: { deprecatedAt: string | null; sunsetAt: string | null } | null;
}

export type NoticeStatus = 'pending' | 'delivered' | 'dead';

export interface NoticeRecord {
  id: string;
  tenantId: string;
  agentId: string;
  capabilityId: string;
  event: string;
  eventKey: string;
  payload: unknown;
  status: NoticeStatus;
  attempts: number;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

export interface NewNotice extends DueNotice {
  id: string;
  tenantId: string;
  agentId: string;
  capabilityId: string;
}

/** Deprecation notices and the facts that make them due; every read and write is one statement. */
@Injectable()
export class NoticesRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Every (deprecated capability, tenant with an endpoint that called it since `since`), set-based. */
  async subjects(since: Date): Promise<NoticeSubjectRow[]> {
    return this.prisma.$queryRaw<NoticeSubjectRow[]>`
      WITH callers AS (
        SELECT DISTINCT b."agentId", b."capabilityId", b."tenantId"
          FROM "UsageBucket" b
         WHERE b.day >= ${since.toISOString().slice(0, 10)}::date AND b."lastCallAt" >= ${since}::timestamp AND b.count > 0
      )
      SELECT m."agentId", m."capabilityId", c."tenantId", m."deprecatedAt", m."sunsetAt", m."replacedBy", m."deprecationReason",
             COALESCE(r.state IN ('ga', 'deprecated') AND r.visibility <> 'internal'
                      AND (r."tenantsAll" OR c."tenantId" = ANY(r.tenants)), false) AS "replacementOpen",
             COALESCE(told.total, 0)::int AS "sunsetNotices", told.latest AS "announcedSunset"
        FROM "CapabilityManifest" m
        JOIN callers c ON c."agentId" = m."agentId" AND c."capabilityId" = m."capabilityId"
        JOIN "NotificationEndpoint" e ON e."tenantId" = c."tenantId"
        LEFT JOIN "CapabilityManifest" r ON r."agentId" = m."agentId" AND r."capabilityId" = m."replacedBy"
        LEFT JOIN LATERAL (
          SELECT count(*) AS total,
                 (array_agg(jsonb_build_object('deprecatedAt', n.payload->'data'->>'deprecatedAt', 'sunsetAt', n.payload->'data'->>'sunsetAt')
                            ORDER BY COALESCE(NULLIF(split_part(n."eventKey", '#', 2), '')::int, 1) DESC))[1] AS latest
            FROM "DeprecationNotice" n
           WHERE n."tenantId" = c."tenantId" AND n."agentId" = m."agentId" AND n."capabilityId" = m."capabilityId"
             AND n.event = ${NoticeEvent.SunsetScheduled}
        ) told ON true
       WHERE m.state = 'deprecated' AND m."deprecatedAt" IS NOT NULL
       ORDER BY m."agentId", m."capabilityId", c."tenantId"`;
  }

  /** Records notices not recorded yet (the unique key makes a second finding a no-op); answers how many were new. */
  async record(notices: readonly NewNotice[]): Promise<number> {
    if (notices.length === 0) return 0;
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      INSERT INTO "DeprecationNotice" (id, "tenantId", "agentId", "capabilityId", event, "eventKey", payload)
      SELECT * FROM unnest(${notices.map((n) => n.id)}::text[], ${notices.map((n) => n.tenantId)}::text[],
                           ${notices.map((n) => n.agentId)}::text[], ${notices.map((n) => n.capabilityId)}::text[],
                           ${notices.map((n) => n.event)}::text[], ${notices.map((n) => n.eventKey)}::text[],
                           ${notices.map((n) => JSON.stringify(n.payload))}::jsonb[])
      ON CONFLICT ("tenantId", "agentId", "capabilityId", event, "eventKey") DO NOTHING
      RETURNING id`;
    return rows.length;
  }

  /** Ids of notices still to deliver, oldest first. */
  async pendingIds(limit: number): Promise<string[]> {
    const rows = await this.prisma.deprecationNotice.findMany({
      where: { status: 'pending' },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: limit,
      select: { id: true },
    });
    return rows.map((r) => r.id);
  }

  async find(id: string): Promise<NoticeRecord | null> {
    const row = await this.prisma.deprecationNotice.findUnique({ where: { id } });
    return row ? toRecord(row) : null;
  }

  async endpoint(tenantId: string): Promise<{ url: string; secret: string } | null> {
    return this.prisma.notificationEndpoint.findUnique({ where: { tenantId }, select: { url: true, secret: true } });
  }

  /**
   * Claims the next attempt of a pending notice for `leaseMs` of wall time: attempts + 1, unless
   * another delivery holds an unexpired claim. Answers the attempt number, or null when the notice
   * is no longer pending or is claimed (a job redelivered while the first still runs). A crashed
   * delivery's claim expires; the next job or scan takes the notice then.
   */
  async claimAttempt(id: string, leaseMs: number): Promise<number | null> {
    const rows = await this.prisma.$queryRaw<{ attempts: number }[]>`
      UPDATE "DeprecationNotice"
         SET attempts = attempts + 1, "claimedUntil" = (now() AT TIME ZONE 'UTC') + ${leaseMs} * interval '1 millisecond'
       WHERE id = ${id} AND status = 'pending' AND ("claimedUntil" IS NULL OR "claimedUntil" < (now() AT TIME ZONE 'UTC'))
      RETURNING attempts`;
    return rows[0]?.attempts ?? null;
  }

  /** pending → delivered, once: false when it was no longer pending (another delivery got there). */
  async markDelivered(id: string, at: Date, attempts: number): Promise<boolean> {
    const { count } = await this.prisma.deprecationNotice.updateMany({
      where: { id, status: 'pending' },
      data: { status: 'delivered', deliveredAt: at, attempts, lastError: null, claimedUntil: null },
    });
    return count === 1;
  }

  async recordFailure(id: string, attempts: number, error: string, dead: boolean): Promise<void> {
    await this.prisma.deprecationNotice.updateMany({
      where: { id, status: 'pending' },
      data: { attempts, lastError: error.slice(0, 1000), claimedUntil: null, ...(dead ? { status: 'dead' } : {}) },
    });
  }

  /** The dead-letter view (or any status), newest first. */
  async list(status: NoticeStatus | null, tenantId: string | null, take: number): Promise<NoticeRecord[]> {
    const where: Prisma.DeprecationNoticeWhereInput = {};
    if (status) where.status = status;
    if (tenantId) where.tenantId = tenantId;
    const rows = await this.prisma.deprecationNotice.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], take });
    return rows.map(toRecord);
  }

  /** dead → pending again (an operator fixed the endpoint); false when it was not dead. */
  async revive(id: string): Promise<boolean> {
    const { count } = await this.prisma.deprecationNotice.updateMany({
      where: { id, status: 'dead' },
      data: { status: 'pending', attempts: 0, claimedUntil: null },
    });
    return count === 1;
  }
}

type NoticeRow = Awaited<ReturnType<PrismaService['deprecationNotice']['findUniqueOrThrow']>>;

function toRecord(row: NoticeRow): NoticeRecord {
  return { ...row, status: row.status as NoticeStatus };
}
