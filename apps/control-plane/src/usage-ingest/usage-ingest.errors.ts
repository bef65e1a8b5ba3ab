import type { ValidationIssue } from '@cp/capabilities';
import { NodeHttpError } from '../node-auth/node-http-error';

export enum UsageIngestErrorCode {
  UnknownCapability = 'UNKNOWN_CAPABILITY',
  BatchIdReused = 'BATCH_ID_REUSED',
}

const STATUS: Record<UsageIngestErrorCode, number> = {
  [UsageIngestErrorCode.UnknownCapability]: 400,
  [UsageIngestErrorCode.BatchIdReused]: 409,
};

/** A usage batch that was refused; nothing of it was written. */
export class UsageIngestError extends NodeHttpError<UsageIngestErrorCode> {
  override readonly name = 'UsageIngestError';
  constructor(code: UsageIngestErrorCode, message: string, issues: ValidationIssue[] = []) {
    super(code, message, issues);
  }
  get status(): number {
    return STATUS[this.code];
  }
}
