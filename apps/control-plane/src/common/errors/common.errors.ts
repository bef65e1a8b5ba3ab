import type { ValidationIssue } from '@cp/capabilities';
import { ApiErrorCode } from './api-error-code';
import { DomainError } from './domain-error';

export enum CommonErrorCode {
  NotFound = 'NOT_FOUND',
  Forbidden = 'FORBIDDEN',
  InvalidInput = 'INVALID_INPUT',
  Unauthenticated = 'UNAUTHENTICATED',
}

const API_CODES: Record<CommonErrorCode, ApiErrorCode> = {
  [CommonErrorCode.NotFound]: ApiErrorCode.NotFound,
  [CommonErrorCode.Forbidden]: ApiErrorCode.Forbidden,
  [CommonErrorCode.InvalidInput]: ApiErrorCode.BadUserInput,
  [CommonErrorCode.Unauthenticated]: ApiErrorCode.Unauthenticated,
};

export class CommonError extends DomainError<CommonErrorCode> {
  constructor(code: CommonErrorCode, message: string, extensions: Record<string, unknown> = {}) {
    super(code, API_CODES[code], message, extensions);
  }
}

/**
 * The one "not found" answer. AccessPolicy throws exactly this for objects the caller may not
 * see, so a forbidden object and a missing one are indistinguishable.
 */
export function notFound(type: string, id: string): CommonError {
  return new CommonError(CommonErrorCode.NotFound, `${type} "${id}" not found`, { type, id });
}

/** Bad input: every problem, each with its path (`$.field`, `$[2].skill.name`). */
export class InputValidationError extends CommonError {
  constructor(
    readonly validationErrors: ValidationIssue[],
    message = `invalid input: ${validationErrors.length} problem(s), first: ${validationErrors[0]?.path ?? '$'} ${validationErrors[0]?.message ?? ''}`.trim(),
  ) {
    super(CommonErrorCode.InvalidInput, message, { validationErrors });
  }
}
