export enum RegistryErrorCode {
  AgentNotFound = 'AGENT_NOT_FOUND',
  StaleRevision = 'STALE_REVISION',
  /** Another transaction held the agent row past the lock timeout: nothing was written; retry. */
  Busy = 'REGISTRY_BUSY',
}

/** A registry change could not start: the agent is unknown, the caller's view is stale, or the agent is held by another change. */
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
