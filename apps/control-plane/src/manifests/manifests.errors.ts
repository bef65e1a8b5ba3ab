import { ApiErrorCode, DomainError } from '../common/errors';

export enum ManifestErrorCode {
  Invalid = 'MANIFEST_INVALID',
  PublicCardLeak = 'PUBLIC_CARD_LEAK',
  AlreadyExists = 'MANIFEST_ALREADY_EXISTS',
}

const API_CODES: Record<ManifestErrorCode, ApiErrorCode> = {
  [ManifestErrorCode.Invalid]: ApiErrorCode.BadUserInput,
  [ManifestErrorCode.PublicCardLeak]: ApiErrorCode.BadUserInput,
  [ManifestErrorCode.AlreadyExists]: ApiErrorCode.Conflict,
};

export class ManifestError extends DomainError<ManifestErrorCode> {
  constructor(code: ManifestErrorCode, message: string, extensions: Record<string, unknown> = {}) {
    super(code, API_CODES[code], message, extensions);
  }
}
