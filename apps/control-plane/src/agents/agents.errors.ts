import { ApiErrorCode, DomainError } from '../common/errors';

export enum AgentErrorCode {
  /** The id is taken (agent ids are one namespace): the same answer whoever's agent holds it. */
  IdUnavailable = 'AGENT_ID_UNAVAILABLE',
  /** The agent's card text would show text of its non-public skills. */
  PublicCardLeak = 'PUBLIC_CARD_LEAK',
}

const API_CODES: Record<AgentErrorCode, ApiErrorCode> = {
  [AgentErrorCode.IdUnavailable]: ApiErrorCode.Conflict,
  [AgentErrorCode.PublicCardLeak]: ApiErrorCode.BadUserInput,
};

export class AgentError extends DomainError<AgentErrorCode> {
  constructor(code: AgentErrorCode, message: string, extensions: Record<string, unknown> = {}) {
    super(code, API_CODES[code], message, extensions);
  }
}
