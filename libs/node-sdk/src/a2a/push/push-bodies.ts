/**
 * What a notification carrying a whole Task holds (0.3 webhooks get one per update; 1.0 webhooks
 * one when their config is created). Trimmed, because it is queued once per update while the
 * webhook is slow (ADR 0202): no history (the status message says where the task stands, and
 * the receiver reads the rest with GetTask), and the artifacts only while the task stays under
 * NOTIFICATION_TASK_MAX_BYTES; past it they are left out and `metadata` says so.
 */
import type { WireTask } from '../wire-types';

export const NOTIFICATION_TASK_MAX_BYTES = 65_536;

/** Set in a trimmed task's metadata when its artifacts were left out. */
export const ARTIFACTS_OMITTED = 'cp.artifactsOmitted';

export function notificationTask(task: WireTask, maxBytes = NOTIFICATION_TASK_MAX_BYTES): WireTask {
  const { history: _history, ...rest } = task;
  if (!rest.artifacts || Buffer.byteLength(JSON.stringify(rest), 'utf8') <= maxBytes) return rest;
  const { artifacts, ...bare } = rest;
  return { ...bare, metadata: { ...bare.metadata, [ARTIFACTS_OMITTED]: artifacts.length } };
}
