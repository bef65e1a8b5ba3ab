/**
 * What differs between the four kinds of upstream a gateway node speaks to (issue 28, ADR 0270):
 * A2A 1.0 or 0.3, JSON-RPC or HTTP+JSON. Method names, paths and shapes only; the node's own
 * model is 1.0 everywhere else, so a 0.3 upstream's request is translated on the way out and each
 * of its events on the way in, through the node's one 0.3 translation (../v03, ADR 0221).
 */
import type { UpstreamSpec } from '@cp/capabilities';
import { A2AError } from '../a2a-errors';
import { eventFromV03, eventFromV03Proto, sendToV03, sendToV03Proto } from '../v03/upstream-shapes';
import type { WireMessage } from '../wire-types';

type Json = Record<string, unknown>;

export interface UpstreamProtocol {
  /** JSON-RPC method names (unused for HTTP+JSON). */
  sendMethod: string;
  streamMethod: string;
  subscribeMethod: string;
  getMethod: string;
  cancelMethod: string;
  /** HTTP+JSON paths below the upstream's URL (unused for JSON-RPC). */
  sendPath: string;
  streamPath: string;
  subscribePath(upstreamTaskId: string): string;
  /** GET, answered with the Task itself. */
  getPath(upstreamTaskId: string): string;
  cancelPath(upstreamTaskId: string): string;
  /** The forwarded message and accepted output modes → the upstream's send params. */
  send(message: WireMessage, acceptedOutputModes: readonly string[]): Json;
  /**
   * One upstream event (a JSON-RPC `result`, or an HTTP+JSON stream object), or the one answer to a
   * send (a Task or a Message, which a StreamResponse can also carry) → the 1.0 StreamResponse.
   */
  event(e: Json): Json;
}

const V10: UpstreamProtocol = {
  sendMethod: 'SendMessage',
  streamMethod: 'SendStreamingMessage',
  subscribeMethod: 'SubscribeToTask',
  getMethod: 'GetTask',
  cancelMethod: 'CancelTask',
  sendPath: '/message:send',
  streamPath: '/message:stream',
  subscribePath: (id) => `/tasks/${encodeURIComponent(id)}:subscribe`,
  getPath: (id) => `/tasks/${encodeURIComponent(id)}`,
  cancelPath: (id) => `/tasks/${encodeURIComponent(id)}:cancel`,
  send: (message, modes) => ({ message, configuration: { acceptedOutputModes: [...modes] } }),
  event: (e) => e,
};

/** 0.3: slash-separated method names, REST paths under `/v1`. */
const v03 = (send: UpstreamProtocol['send'], event: (e: unknown) => Json): UpstreamProtocol => ({
  sendMethod: 'message/send',
  streamMethod: 'message/stream',
  subscribeMethod: 'tasks/resubscribe',
  getMethod: 'tasks/get',
  cancelMethod: 'tasks/cancel',
  sendPath: '/v1/message:send',
  streamPath: '/v1/message:stream',
  subscribePath: (id) => `/v1/tasks/${encodeURIComponent(id)}:subscribe`,
  getPath: (id) => `/v1/tasks/${encodeURIComponent(id)}`,
  cancelPath: (id) => `/v1/tasks/${encodeURIComponent(id)}:cancel`,
  send,
  event,
});

const V03_RPC = v03(sendToV03, eventFromV03);
const V03_REST = v03(sendToV03Proto, eventFromV03Proto);

export function protocolOf(spec: Pick<UpstreamSpec, 'version' | 'binding'>): UpstreamProtocol {
  if (spec.version === '1.0') return V10;
  return spec.binding === 'jsonrpc' ? V03_RPC : V03_REST;
}

/** A translation refusal (an A2AError naming the 0.3 path) as the message an UpstreamError carries. */
export const malformed = (error: unknown): string | undefined =>
  error instanceof A2AError ? `the upstream sent a malformed 0.3 event (${error.message.slice(0, 200)})` : undefined;
