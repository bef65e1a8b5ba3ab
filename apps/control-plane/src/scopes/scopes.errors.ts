import { ApiErrorCode, DomainError } from '../common/errors';

export enum ScopeErrorCode {
  AlreadyExists = 'SCOPE_ALREADY_EXISTS',
  InUse = 'SCOPE_IN_USE',
}

const API_CODES: Record<ScopeErrorCode, ApiErrorCode> = {
  [ScopeErrorCode.AlreadyExists]: ApiErrorCode.Conflict,
  [ScopeErrorCode.InUse]: ApiErrorCode.Conflict,
};

export class ScopeError extends DomainError<ScopeErrorCode> {
  constructor(code: ScopeErrorCode, message: string, extensions: Record<string, unknown> = {}) {
    super(code, API_CODES[code], message, extensions);
  }
}
