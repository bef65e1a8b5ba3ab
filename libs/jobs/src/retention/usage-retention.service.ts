import { Injectable } from '@nestjs/common';
import { batchIdRetentionCutoff } from '@cp/capabilities';
import { Clock, InjectConfig, type AppConfig } from '@cp/common';
import { UsageRetentionRepository } from './usage-retention.repository';

/**
 * Keeps the usage-batch idempotency log bounded. A batch id is needed only while its batch could
 * still be resent and accepted; ingestion refuses windows that ended before the same cutoff
 * (batchIdRetentionCutoff), so ids of those windows can go without ever counting twice.
 * The daily buckets themselves are kept: they are the usage history. Hourly health rows (issue
 * 32), 24 per capability and tenant a day, are kept HEALTH_RETENTION_DAYS.
 */
@Injectable()
export class UsageRetentionService {
  private readonly retentionDays: number;
  private readonly healthDays: number;

  constructor(
    private readonly repository: UsageRetentionRepository,
    private readonly clock: Clock,
    @InjectConfig() config: AppConfig,
  ) {
    this.retentionDays = config.USAGE_BATCH_RETENTION_DAYS;
    this.healthDays = config.HEALTH_RETENTION_DAYS;
  }

  /** Deletes the batch ids no retry can match any more; returns how many. */
  prune(): Promise<number> {
    return this.repository.deleteBatchesEndedBefore(batchIdRetentionCutoff(this.clock.now(), this.retentionDays));
  }

  /** Deletes the health rows of hours older than HEALTH_RETENTION_DAYS; returns how many. */
  pruneHealth(): Promise<number> {
    return this.repository.deleteHealthBefore(new Date(this.clock.now().getTime() - this.healthDays * 86_400_000));
  }
}
