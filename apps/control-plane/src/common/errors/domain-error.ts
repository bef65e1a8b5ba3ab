import type { ApiErrorCode } from './api-error-code';

/**
 * Base of every feature error. `code` is the feature's own enum value (kept in
 * `extensions.reason`); `apiCode` is what `extensions.code` says. Each feature maps its enum to
 * API codes exhaustively with a `Record<FeatureCode, ApiErrorCode>`, so adding a code without
 * deciding its API code does not compile.
 */
export abstract class DomainError<C extends string = string> extends Error {
  constructor(
    readonly code: C,
    readonly apiCode: ApiErrorCode,
    message: string,
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}
