import type { RetirementCandidate, NodeUsageState, RetirementSkipCode } from '@cp/capabilities';
import type { RetirementTrigger } from '../queues';

export const RETIREMENT_ACTOR = 'system:retirement';
export const RETIRE_ACTION = 'capability.retire';

/** The facts the rule needs for one agent, loaded set-based for every agent at once. */
export interface AgentRetirementInputs {
  agentId: string;
  candidates: RetirementCandidate[];
  nodes: NodeUsageState[];
}

export interface RetiredCapability {
  agentId: string;
  capabilityId: string;
  revision: number;
  removedAt: string;
}

export interface SkippedCapability {
  agentId: string;
  capabilityId: string;
  reasons: { code: RetirementSkipCode; message: string }[];
}

export interface RetirementRunError {
  agentId: string | null;
  message: string;
}

export type RetirementRunStatus = 'queued' | 'running' | 'succeeded' | 'failed';

export interface RetirementRunRecord {
  id: string;
  trigger: RetirementTrigger;
  requestedBy: string | null;
  status: RetirementRunStatus;
  asOf: Date | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  retiredCount: number;
  skippedCount: number;
  retired: RetiredCapability[];
  /** The first MAX_SKIPPED_RECORDED skipped capabilities (skippedCount has the total). */
  skipped: SkippedCapability[];
  errors: RetirementRunError[];
}

export const MAX_SKIPPED_RECORDED = 1000;
