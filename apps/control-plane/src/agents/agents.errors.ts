import { ApiErrorCode, DomainError } from '../common/errors';

export enum AgentErrorCode {
  AlreadyExists = 'AGENT_ALREADY_EXISTS',
}

const API_CODES: Record<AgentErrorCode, ApiErrorCode> = {
  [AgentErrorCode.AlreadyExists]: ApiErrorCode.Conflict,
};

export class AgentError extends DomainError<AgentErrorCode> {
  constructor(code: AgentErrorCode, message: string, extensions: Record<string, unknown> = {}) {
    super(code, API_CODES[code], message, extensions);
  }
}
