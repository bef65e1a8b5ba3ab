import { NodeHttpError } from '../node-auth/node-http-error';

export enum TokenExchangeErrorCode {
  SubjectTokenInvalid = 'SUBJECT_TOKEN_INVALID',
  UnknownTool = 'UNKNOWN_TOOL',
  CapabilityNotEntitled = 'CAPABILITY_NOT_ENTITLED',
}

const STATUS: Record<TokenExchangeErrorCode, number> = {
  [TokenExchangeErrorCode.SubjectTokenInvalid]: 400,
  [TokenExchangeErrorCode.UnknownTool]: 400,
  [TokenExchangeErrorCode.CapabilityNotEntitled]: 403,
};

/** A refused exchange: no token was minted. */
export class TokenExchangeError extends NodeHttpError<TokenExchangeErrorCode> {
  override readonly name = 'TokenExchangeError';
  get status(): number {
    return STATUS[this.code];
  }
}
