import { Injectable } from '@nestjs/common';
import { InjectConfig, type AppConfig } from '@cp/common';
import { Clock } from '@cp/common';
import { UsageRetentionRepository } from './usage-retention.repository';

/**
 * Keeps the usage-batch idempotency log bounded. A batch id is needed only while its batch could
 * still be resent and accepted; ingestion refuses windows that ended more than
 * USAGE_BATCH_RETENTION_DAYS ago, so ids of those windows can go without ever counting twice.
 * The daily buckets themselves are kept: they are the usage history.
 */
@Injectable()
export class UsageRetentionService {
  private readonly retentionMs: number;

  constructor(
    private readonly repository: UsageRetentionRepository,
    private readonly clock: Clock,
    @InjectConfig() config: AppConfig,
  ) {
    this.retentionMs = config.USAGE_BATCH_RETENTION_DAYS * 86_400_000;
  }

  /** Deletes the batch ids no retry can match any more; returns how many. */
  prune(): Promise<number> {
    return this.repository.deleteBatchesEndedBefore(new Date(this.clock.now().getTime() - this.retentionMs));
  }
}
