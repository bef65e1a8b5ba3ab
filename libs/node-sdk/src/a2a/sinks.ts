/**
 * Where the A2A service reports what it saw: usage per capability and tenant, and clarifications
 * callers answered. Apart from a2a-service.ts so that its named steps (send/*) can name them without
 * an import cycle; a2a-service.ts re-exports them.
 */
export interface UsageSink {
  record(capabilityId: string, tenant: string): void;
}

/**
 * A caller resolved a clarification: the task asked which capability was meant and the caller
 * continued it naming one (metadata.skillId). Recorded for review and promotion (ADR 0094).
 */
export interface ClarificationChoice {
  /** The text of the message that needed clarifying. */
  text: string;
  capabilityId: string;
  tenant: string;
}

export interface ClarificationSink {
  record(choice: ClarificationChoice): void;
}
