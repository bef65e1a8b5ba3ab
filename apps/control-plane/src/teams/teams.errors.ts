import { ApiErrorCode, DomainError } from '../common/errors';

export enum TeamErrorCode {
  AlreadyExists = 'TEAM_ALREADY_EXISTS',
}

const API_CODES: Record<TeamErrorCode, ApiErrorCode> = {
  [TeamErrorCode.AlreadyExists]: ApiErrorCode.Conflict,
};

export class TeamError extends DomainError<TeamErrorCode> {
  constructor(code: TeamErrorCode, message: string, extensions: Record<string, unknown> = {}) {
    super(code, API_CODES[code], message, extensions);
  }
}
