/**
 * The batch-id retention cutoff, in ONE place. Exactly-once counting of usage batches rests on
 * two sides agreeing: ingestion refuses a batch whose window ended before the cutoff (a retry of
 * it could no longer be told apart), and the daily job deletes the ids of batches whose window
 * ended before the cutoff. Both call this function, so an id is deleted only once every retry of
 * its batch would be refused anyway.
 */
const DAY_MS = 86_400_000;

/** Windows ending before this instant are past retention. */
export function batchIdRetentionCutoff(now: Date, retentionDays: number): Date {
  return new Date(now.getTime() - retentionDays * DAY_MS);
}

/** True when a batch with this window end is past retention at `now`: refused by ingestion, its id prunable. */
export function isPastBatchIdRetention(windowEnd: Date, now: Date, retentionDays: number): boolean {
  return windowEnd.getTime() < batchIdRetentionCutoff(now, retentionDays).getTime();
}
