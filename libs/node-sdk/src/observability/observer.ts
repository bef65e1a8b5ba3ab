/**
 * What the node's layers report as they work (ADR 0140): the A2A server, the tool gateway, usage
 * reporting and NodeSync call these; NodeMetrics turns them into Prometheus series. Every method
 * is called on the request path, so implementations must be cheap (pre-bound label children).
 */
import type { CallOutcome } from '@cp/node-protocol';

export type CardKind = 'public' | 'extended';
export type A2ABinding = 'jsonrpc' | 'rest';
export type RoutingOutcome = 'routed' | 'input-required' | 'refused';
export type ToolTokenOutcome = 'exchanged' | 'cached' | 'refused' | 'unavailable';
export type ToolCallOutcome = 'ok' | 'failed' | 'refused';
export type UsageBatchOutcome = 'spooled' | 'sent' | 'refused';

export interface A2AObserver {
  /** A card answered: status 200, 304, or an error status. */
  card(kind: CardKind, status: number): void;
  /** Public-card answer time, timed in the handler around the send (never an onResponse hook); when absent, not timed at all. */
  cardLatency?(seconds: number): void;
  /** An A2A operation answered: outcome `ok` or the A2A error name. */
  request(method: string, binding: A2ABinding, outcome: string): void;
  /** The router decided (layer: a route layer, `clarification`, or `none` when refused). */
  routed(layer: string, outcome: RoutingOutcome): void;
  /** Enforcement at execution refused the capability the router chose. */
  denied(capabilityId: string): void;
  /** A handler finished (state: completed, failed, input-required, rejected, timed-out). */
  handled(capabilityId: string, state: string, seconds: number): void;
  /** A routed call ended, or a limit refused it (outcome: completed, failed, rejected, canceled, refused, inputRequired). */
  outcome?(capabilityId: string, outcome: CallOutcome): void;
}

export interface ToolObserver {
  token(outcome: ToolTokenOutcome): void;
  call(tool: string, outcome: ToolCallOutcome): void;
}

export interface UsageObserver {
  batch(outcome: UsageBatchOutcome): void;
}

export const NO_A2A_OBSERVER: A2AObserver = {
  card: () => undefined,
  request: () => undefined,
  routed: () => undefined,
  denied: () => undefined,
  handled: () => undefined,
};

export const NO_TOOL_OBSERVER: ToolObserver = { token: () => undefined, call: () => undefined };
