/**
 * What a team registers: handler name (the manifests' `handler`) → an async function. The SDK
 * routes, re-checks entitlement and builds the context; the function only does the work.
 */
import type { Caller, DataShape, GenericLimits, HandlerDeclaration, LimitType, PolicyEntry } from '@cp/capabilities';
import type { AgentExecutor } from '@a2a-js/sdk/server';
import type { ToolInvoker } from '../tools/tool-gateway';
import { executorHandler } from './agent-executor';
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

export interface HandlerOptions<L extends LimitDeclaration> {
  /** A data part with these keys is recognised as meant for this handler (routing layer 4). */
  shape?: DataShape;
  /** Handler-specific limit keys it understands, with their types. */
  limits?: L;
  /** Media types the handler can produce (reported in the node's inventory). */
  outputModes?: string[];
}

export interface HandlerRegistration {
  handle: Handler;
  shape?: DataShape;
  limits: LimitDeclaration;
  outputModes: string[];
}

export class HandlerRegistry {
  private readonly handlers = new Map<string, HandlerRegistration>();
  private shapesMemo?: Map<string, DataShape>;
  private inventoryMemo?: HandlerDeclaration[];

  register<L extends LimitDeclaration = Record<never, LimitType>>(name: string, handle: Handler<L>, options: HandlerOptions<L> = {}): this {
    if (this.handlers.has(name)) throw new TypeError(`handler "${name}" is registered twice`);
    this.handlers.set(name, {
      handle,
      shape: options.shape,
      limits: { ...(options.limits ?? {}) },
      outputModes: [...(options.outputModes ?? [])].sort(),
    });
    this.shapesMemo = undefined;
    this.inventoryMemo = undefined;
    return this;
  }

  /**
   * An existing `@a2a-js/sdk` AgentExecutor as the handler `name` (ADR 0163): routing,
   * entitlement, limits, tools and usage stay the node-sdk's; its events become the task's updates.
   */
  registerExecutor<L extends LimitDeclaration = Record<never, LimitType>>(
    name: string,
    executor: AgentExecutor,
    options: HandlerOptions<L> = {},
  ): this {
    return this.register<L>(name, executorHandler(executor), options);
  }

  /** What this node reports at register and every heartbeat: handler ids, limit keys and types, output modes. */
  inventory(): HandlerDeclaration[] {
    this.inventoryMemo ??= this.names().map((id) => {
      const r = this.handlers.get(id)!;
      return { id, limits: { ...r.limits }, outputModes: [...r.outputModes] };
    });
    return this.inventoryMemo;
  }

  get(name: string): HandlerRegistration | undefined {
    return this.handlers.get(name);
  }

  names(): string[] {
    return [...this.handlers.keys()].sort();
  }

  shapes(): ReadonlyMap<string, DataShape> {
    if (!this.shapesMemo) {
      this.shapesMemo = new Map([...this.handlers].filter(([, r]) => r.shape).map(([n, r]) => [n, r.shape!] as const));
    }
    return this.shapesMemo;
  }
}
