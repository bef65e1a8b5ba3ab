import { Injectable } from '@nestjs/common';
import { Prisma, PrismaService } from '@cp/db';
import type { RetirementTrigger } from '../queues';
import type { RetiredCapability, RetirementRunError, RetirementRunRecord, SkippedCapability } from './retirement.types';

export interface RunOutcome {
  status: 'succeeded' | 'failed';
  finishedAt: Date;
  retired: RetiredCapability[];
  skippedCount: number;
  skipped: SkippedCapability[];
  errors: RetirementRunError[];
}

/** Records of retirement runs (queued → running → succeeded | failed). */
@Injectable()
export class RetirementRunsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async createQueued(id: string, trigger: RetirementTrigger, requestedBy: string | null): Promise<RetirementRunRecord> {
    return toRecord(await this.prisma.retirementRun.create({ data: { id, trigger, requestedBy, status: 'queued' } }));
  }

  /**
   * Marks the run running (creating it for scheduled runs). Returns null when the run already
   * finished: a redelivered job then does nothing.
   */
  async start(id: string, trigger: RetirementTrigger, requestedBy: string | null, asOf: Date): Promise<RetirementRunRecord | null> {
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      INSERT INTO "RetirementRun" (id, trigger, "requestedBy", status, "asOf", "startedAt")
      VALUES (${id}, ${trigger}, ${requestedBy}, 'running', ${asOf}::timestamp, now())
      ON CONFLICT (id) DO UPDATE SET status = 'running', "asOf" = EXCLUDED."asOf", "startedAt" = now()
       WHERE "RetirementRun".status IN ('queued', 'running')
      RETURNING id`;
    if (rows.length === 0) return null;
    return this.find(id);
  }

  async finish(id: string, outcome: RunOutcome): Promise<RetirementRunRecord> {
    return toRecord(
      await this.prisma.retirementRun.update({
        where: { id },
        data: {
          status: outcome.status,
          finishedAt: outcome.finishedAt,
          retiredCount: outcome.retired.length,
          skippedCount: outcome.skippedCount,
          retired: outcome.retired as unknown as Prisma.InputJsonValue,
          skipped: outcome.skipped as unknown as Prisma.InputJsonValue,
          errors: outcome.errors as unknown as Prisma.InputJsonValue,
        },
      }),
    );
  }

  async find(id: string): Promise<RetirementRunRecord | null> {
    const row = await this.prisma.retirementRun.findUnique({ where: { id } });
    return row ? toRecord(row) : null;
  }

  async latest(limit: number): Promise<RetirementRunRecord[]> {
    const rows = await this.prisma.retirementRun.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], take: limit });
    return rows.map(toRecord);
  }
}

type RunRow = Awaited<ReturnType<PrismaService['retirementRun']['findUniqueOrThrow']>>;

function toRecord(row: RunRow): RetirementRunRecord {
  return {
    id: row.id,
    trigger: row.trigger as RetirementTrigger,
    requestedBy: row.requestedBy,
    status: row.status,
    asOf: row.asOf,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    retiredCount: row.retiredCount,
    skippedCount: row.skippedCount,
    retired: row.retired as unknown as RetiredCapability[],
    skipped: row.skipped as unknown as SkippedCapability[],
    errors: row.errors as unknown as RetirementRunError[],
  };
}
