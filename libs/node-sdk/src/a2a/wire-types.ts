/** A2A 1.0 wire JSON the server produces (camelCase, enums as strings, Part as a oneof). */
import type { WireMessage, WirePart } from '@cp/capabilities';

export type { WireMessage, WirePart };

export type TaskState =
  | 'TASK_STATE_SUBMITTED'
  | 'TASK_STATE_WORKING'
  | 'TASK_STATE_COMPLETED'
  | 'TASK_STATE_FAILED'
  | 'TASK_STATE_CANCELED'
  | 'TASK_STATE_REJECTED'
  | 'TASK_STATE_INPUT_REQUIRED'
  | 'TASK_STATE_AUTH_REQUIRED';

export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);

export interface WireArtifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: WirePart[];
  metadata?: Record<string, unknown>;
  extensions?: string[];
}

export interface WireTask {
  id: string;
  contextId: string;
  status: { state: TaskState; message?: WireMessage; timestamp: string };
  artifacts?: WireArtifact[];
  history?: WireMessage[];
  metadata?: Record<string, unknown>;
}

export interface SendMessageConfiguration {
  acceptedOutputModes?: string[];
  historyLength?: number;
  returnImmediately?: boolean;
  taskPushNotificationConfig?: unknown;
}

export interface SendMessageParams {
  tenant?: string;
  message: WireMessage;
  configuration?: SendMessageConfiguration;
  metadata?: Record<string, unknown>;
}
