/**
 * What a team registers: handler name (the manifests' `handler`) → an async function. The SDK
 * routes, re-checks entitlement and builds the context; the function only does the work.
 */
import type { Caller, DataShape, ManifestLimits, PolicyEntry } from '@cp/capabilities';
import type { ToolInvoker } from '../tools/tool-gateway';
import type { WireArtifact, WireMessage } from './wire-types';

export interface HandlerContext {
  /** The authenticated caller (never the node's own identity). null = anonymous. */
  caller: Caller;
  capability: { id: string; handler: string; state: PolicyEntry['state']; limits: ManifestLimits };
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

export type Handler = (ctx: HandlerContext) => Promise<HandlerResult>;

export interface HandlerRegistration {
  handle: Handler;
  /** A data part with these keys is recognised as meant for this handler (routing layer 4). */
  shape?: DataShape;
  /** Output modes the handler can produce; the router already matched the capability's modes. */
}

export class HandlerRegistry {
  private readonly handlers = new Map<string, HandlerRegistration>();
  private shapesMemo?: Map<string, DataShape>;

  register(name: string, handle: Handler, options: { shape?: DataShape } = {}): this {
    if (this.handlers.has(name)) throw new TypeError(`handler "${name}" is registered twice`);
    this.handlers.set(name, { handle, shape: options.shape });
    this.shapesMemo = undefined;
    return this;
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
