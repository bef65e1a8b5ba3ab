/**
 * Where the A2A service reports what it saw: usage per capability and tenant, and clarifications
 * callers answered. Apart from a2a-service.ts so that its named steps (send/*) can name them without
 * an import cycle; a2a-service.ts re-exports them.
 */
import type { CallOutcome } from '@cp/node-protocol';
import type { A2AObserver } from '../observability/observer';

export interface UsageSink {
  record(capabilityId: string, tenant: string): void;
  /** How a routed call ended (`seconds`: its handler's duration; 0 when a limit refused it). Optional: older sinks only count. */
  outcome?(capabilityId: string, tenant: string, outcome: CallOutcome, seconds: number): void;
}

/**
 * The one hook where a call's outcome is known (ADR 0310): to the usage batches and the node's
 * metrics. No allocation: the outcome is a constant string, the rest are the caller's values.
 */
export function reportOutcome(
  usage: UsageSink | undefined,
  observer: A2AObserver,
  capabilityId: string,
  tenant: string,
  outcome: CallOutcome,
  seconds: number,
): void {
  usage?.outcome?.(capabilityId, tenant, outcome, seconds);
  observer.outcome?.(capabilityId, outcome);
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
