import { ApiErrorCode, DomainError } from '../common/errors';

export enum ChangeRequestErrorCode {
  /** The change needs a second admin and the mutation cannot hold it: submit it with applyManifests. */
  ApprovalRequired = 'APPROVAL_REQUIRED',
  /** The author (by subject, whatever the token) approving their own request. */
  SelfApproval = 'SELF_APPROVAL',
  /** Approving or rejecting a request that is no longer pending. */
  NotPending = 'NOT_PENDING',
  /** The agent moved past the request's base revision: the plan must be made again. */
  Stale = 'STALE_PLAN',
}

const API_CODES: Record<ChangeRequestErrorCode, ApiErrorCode> = {
  [ChangeRequestErrorCode.ApprovalRequired]: ApiErrorCode.Forbidden,
  [ChangeRequestErrorCode.SelfApproval]: ApiErrorCode.Forbidden,
  [ChangeRequestErrorCode.NotPending]: ApiErrorCode.Conflict,
  [ChangeRequestErrorCode.Stale]: ApiErrorCode.Conflict,
};

export class ChangeRequestError extends DomainError<ChangeRequestErrorCode> {
  constructor(code: ChangeRequestErrorCode, message: string, extensions: Record<string, unknown> = {}) {
    super(code, API_CODES[code], message, extensions);
  }
}
