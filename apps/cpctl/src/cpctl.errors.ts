import { ExitCode } from './exit-codes';
import type { ValidationIssue } from '@cp/capabilities';

export enum CpctlErrorCode {
  InvalidFiles = 'INVALID_FILES',
  Usage = 'USAGE',
  PlanRefused = 'PLAN_REFUSED',
  StaleRevision = 'STALE_REVISION',
  BadToken = 'BAD_TOKEN',
  Forbidden = 'FORBIDDEN',
  Unreachable = 'UNREACHABLE',
  NotFound = 'NOT_FOUND',
  ServerError = 'SERVER_ERROR',
  Io = 'IO',
  NotPending = 'NOT_PENDING',
}

const EXIT: Record<CpctlErrorCode, ExitCode> = {
  [CpctlErrorCode.InvalidFiles]: ExitCode.InvalidFiles,
  [CpctlErrorCode.Usage]: ExitCode.Usage,
  [CpctlErrorCode.PlanRefused]: ExitCode.PlanRefused,
  [CpctlErrorCode.StaleRevision]: ExitCode.StaleRevision,
  [CpctlErrorCode.BadToken]: ExitCode.BadToken,
  [CpctlErrorCode.Forbidden]: ExitCode.BadToken,
  [CpctlErrorCode.Unreachable]: ExitCode.Unreachable,
  [CpctlErrorCode.NotFound]: ExitCode.NotFound,
  [CpctlErrorCode.ServerError]: ExitCode.Failure,
  [CpctlErrorCode.Io]: ExitCode.Failure,
  [CpctlErrorCode.NotPending]: ExitCode.ChangeRequestNotPending,
};

/** An expected failure: `message` is what the user reads, `issues` the detail lines under it. */
export class CpctlError extends Error {
  override readonly name = 'CpctlError';
  constructor(
    readonly code: CpctlErrorCode,
    message: string,
    readonly issues: (ValidationIssue & { file?: string })[] = [],
  ) {
    super(message);
  }

  get exitCode(): ExitCode {
    return EXIT[this.code];
  }
}
