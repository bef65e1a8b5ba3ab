export enum TokenExchangeErrorCode {
  InvalidBody = 'INVALID_TOKEN_EXCHANGE',
  SubjectTokenInvalid = 'SUBJECT_TOKEN_INVALID',
  UnknownTool = 'UNKNOWN_TOOL',
  CapabilityNotEntitled = 'CAPABILITY_NOT_ENTITLED',
}

export const TOKEN_EXCHANGE_HTTP_STATUS: Record<TokenExchangeErrorCode, number> = {
  [TokenExchangeErrorCode.InvalidBody]: 400,
  [TokenExchangeErrorCode.SubjectTokenInvalid]: 400,
  [TokenExchangeErrorCode.UnknownTool]: 400,
  [TokenExchangeErrorCode.CapabilityNotEntitled]: 403,
};

/** A refused exchange: no token was minted. */
export class TokenExchangeError extends Error {
  override readonly name = 'TokenExchangeError';
  constructor(
    readonly code: TokenExchangeErrorCode,
    message: string,
  ) {
    super(message);
  }
}
