export enum RetirementErrorCode {
  AgentNotFound = 'AGENT_NOT_FOUND',
}

/** A retirement request that cannot be served (the agent does not exist). */
export class RetirementError extends Error {
  override readonly name = 'RetirementError';
  constructor(
    readonly code: RetirementErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}
