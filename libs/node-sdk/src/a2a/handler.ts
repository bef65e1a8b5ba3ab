/**
 * What a handler is and what it sees: its context, its updates, its result, its limits. Apart from
 * the registry so that the AgentExecutor adapter (agent-executor.ts), which the registry uses, can
 * name these types without an import cycle (issue 29).
 */
import type { Caller, GenericLimits, LimitType, PolicyEntry } from '@cp/capabilities';
import type { ToolInvoker } from '../tools/tool-gateway';
import type { WireArtifact, WireMessage } from './wire-types';

/** Limit keys a handler declares, with their types (reported to the control plane, checked at plan time). */
export type LimitDeclaration = Record<string, LimitType>;

/** The generic limits the SDK enforces itself, which every handler may read (named once, in @cp/capabilities). */
export type { GenericLimits };

/** The limits as the handler declared them: only those keys (plus the generic ones), each of its type. */
export type TypedLimits<L extends LimitDeclaration> = GenericLimits & { [K in keyof L]?: number };

export interface HandlerContext<L extends LimitDeclaration = LimitDeclaration> {
  /** The authenticated caller (never the node's own identity). null = anonymous. */
  caller: Caller;
  capability: { id: string; handler: string; state: PolicyEntry['state']; limits: TypedLimits<L> };
  /** Fires when the capability's timeout_s elapses: stop the work (the task has already failed). */
  signal: AbortSignal;
  message: WireMessage;
  /** All text parts, joined. */
  text: string;
  task: { id: string; contextId: string };
  /** The output mode to produce: the first of the capability's modes the caller accepts. */
  outputMode: string;
  acceptedOutputModes: readonly string[];
  activeExtensions: readonly string[];
  /** Tools, called with a credential downscoped to this caller (token exchange). */
  tools: ToolInvoker;
  /** Request metadata (SendMessageRequest.metadata). */
  metadata: Record<string, unknown>;
  /** Progress and artifact chunks, stored on the task and streamed to every subscriber. */
  updates: TaskUpdates;
}

/**
 * What a handler reports while it works. Each call is stored on the task and published to every
 * stream on it (on any replica) before the promise resolves; await them to keep their order.
 */
export interface TaskUpdates {
  /** A working status with this text as the agent's status message. */
  progress(text: string): Promise<void>;
  /**
   * An artifact, or a chunk of one: `append` adds the parts to the artifact with the same id,
   * `lastChunk` marks it whole. Returns the artifact id (generated when not given).
   */
  artifact(
    artifact: Omit<WireArtifact, 'artifactId'> & { artifactId?: string },
    chunk?: { append?: boolean; lastChunk?: boolean },
  ): Promise<string>;
}

export type HandlerResult =
  | { state: 'completed'; artifacts: Omit<WireArtifact, 'artifactId'>[]; text?: string }
  | { state: 'input-required'; text: string }
  | { state: 'failed' | 'rejected'; text: string };

export type Handler<L extends LimitDeclaration = LimitDeclaration> = (ctx: HandlerContext<L>) => Promise<HandlerResult>;
