export enum RegistryErrorCode {
  AgentNotFound = 'AGENT_NOT_FOUND',
  StaleRevision = 'STALE_REVISION',
}

/** A registry change could not start: the agent is unknown, or the caller's view is stale. */
export class RegistryError extends Error {
  override readonly name = 'RegistryError';
  constructor(
    readonly code: RegistryErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}
