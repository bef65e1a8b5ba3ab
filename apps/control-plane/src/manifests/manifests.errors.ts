import { ApiErrorCode, DomainError } from '../common/errors';

export enum ManifestErrorCode {
  PublicCardLeak = 'PUBLIC_CARD_LEAK',
}

const API_CODES: Record<ManifestErrorCode, ApiErrorCode> = {
  [ManifestErrorCode.PublicCardLeak]: ApiErrorCode.BadUserInput,
};

export class ManifestError extends DomainError<ManifestErrorCode> {
  constructor(code: ManifestErrorCode, message: string, extensions: Record<string, unknown> = {}) {
    super(code, API_CODES[code], message, extensions);
  }
}
