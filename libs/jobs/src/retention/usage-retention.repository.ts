import { Injectable } from '@nestjs/common';
import { PrismaService } from '@cp/db';

@Injectable()
export class UsageRetentionRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** One set-based DELETE (the windowEnd index serves it per node; fine for a daily job). */
  async deleteBatchesEndedBefore(cutoff: Date): Promise<number> {
    return (await this.prisma.usageBatch.deleteMany({ where: { windowEnd: { lt: cutoff } } })).count;
  }

  /** Hourly health rows of hours that began before `cutoff` (one set-based DELETE, daily). */
  async deleteHealthBefore(cutoff: Date): Promise<number> {
    return (await this.prisma.capabilityHealthBucket.deleteMany({ where: { hour: { lt: cutoff } } })).count;
  }
}
