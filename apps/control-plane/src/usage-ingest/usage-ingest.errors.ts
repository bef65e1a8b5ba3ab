import type { ValidationIssue } from '@cp/capabilities';

export enum UsageIngestErrorCode {
  InvalidBody = 'INVALID_USAGE_BATCH',
  UnknownCapability = 'UNKNOWN_CAPABILITY',
  NodeOfAnotherAgent = 'NODE_OF_ANOTHER_AGENT',
  BatchIdReused = 'BATCH_ID_REUSED',
}

export const USAGE_INGEST_HTTP_STATUS: Record<UsageIngestErrorCode, number> = {
  [UsageIngestErrorCode.InvalidBody]: 400,
  [UsageIngestErrorCode.UnknownCapability]: 400,
  [UsageIngestErrorCode.NodeOfAnotherAgent]: 403,
  [UsageIngestErrorCode.BatchIdReused]: 409,
};

/** A usage batch that was refused; nothing of it was written. */
export class UsageIngestError extends Error {
  override readonly name = 'UsageIngestError';
  constructor(
    readonly code: UsageIngestErrorCode,
    message: string,
    readonly issues: ValidationIssue[] = [],
  ) {
    super(message);
  }
}
