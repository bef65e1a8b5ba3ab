import { ApiErrorCode, DomainError } from '../common/errors';

export enum PreviewOptInErrorCode {
  AlreadyOptedIn = 'PREVIEW_OPT_IN_EXISTS',
}

const API_CODES: Record<PreviewOptInErrorCode, ApiErrorCode> = {
  [PreviewOptInErrorCode.AlreadyOptedIn]: ApiErrorCode.Conflict,
};

export class PreviewOptInError extends DomainError<PreviewOptInErrorCode> {
  constructor(code: PreviewOptInErrorCode, message: string, extensions: Record<string, unknown> = {}) {
    super(code, API_CODES[code], message, extensions);
  }
}
