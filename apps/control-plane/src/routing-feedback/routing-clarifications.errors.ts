import type { ValidationIssue } from '@cp/capabilities';
import { NodeHttpError } from '../node-auth/node-http-error';

export enum ClarificationIngestErrorCode {
  UnknownCapability = 'UNKNOWN_CAPABILITY',
}

/** A node's clarification report that was refused; nothing of it was written. */
export class ClarificationIngestError extends NodeHttpError<ClarificationIngestErrorCode> {
  override readonly name = 'ClarificationIngestError';
  constructor(code: ClarificationIngestErrorCode, message: string, issues: ValidationIssue[] = []) {
    super(code, message, issues);
  }
  get status(): number {
    return 400;
  }
}
