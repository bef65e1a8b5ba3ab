import { ApiErrorCode, DomainError } from '../common/errors';

export enum TenantErrorCode {
  AlreadyExists = 'TENANT_ALREADY_EXISTS',
  InUse = 'TENANT_IN_USE',
}

const API_CODES: Record<TenantErrorCode, ApiErrorCode> = {
  [TenantErrorCode.AlreadyExists]: ApiErrorCode.Conflict,
  [TenantErrorCode.InUse]: ApiErrorCode.Conflict,
};

export class TenantError extends DomainError<TenantErrorCode> {
  constructor(code: TenantErrorCode, message: string, extensions: Record<string, unknown> = {}) {
    super(code, API_CODES[code], message, extensions);
  }
}
