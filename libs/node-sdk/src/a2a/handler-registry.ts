/**
 * What a team registers: handler name (the manifests' `handler`) → an async function. The SDK
 * routes, re-checks entitlement and builds the context; the function only does the work.
 */
import type { DataShape, HandlerDeclaration, LimitType } from '@cp/capabilities';
import type { AgentExecutor } from '@a2a-js/sdk/server';
import { executorHandler } from './agent-executor';
import type { Handler, LimitDeclaration, TaskUpdates } from './handler';

export type { GenericLimits, Handler, HandlerContext, HandlerResult, LimitDeclaration, TaskUpdates, TypedLimits } from './handler';

export interface HandlerOptions<L extends LimitDeclaration> {
  /** A data part with these keys is recognised as meant for this handler (routing layer 4). */
  shape?: DataShape;
  /** Handler-specific limit keys it understands, with their types. */
  limits?: L;
  /** Media types the handler can produce (reported in the node's inventory). */
  outputModes?: string[];
}

/**
 * What a registration that keeps state on its task record may read and write (the gateway's
 * upstream task, ADR 0320). Not part of the handler API: handlers keep their state themselves.
 */
export interface TaskRecordAccess {
  /** The upstream task this task continues, as stored with it (none for a new task). */
  readonly upstream?: { taskId: string; contextId: string };
  /**
   * Stores the upstream task with the task's next save: in this turn or the next, alone if no
   * update comes; `alone` false: never alone, with whatever save comes next (the result's).
   */
  keepUpstream(link: { taskId: string; contextId: string }, alone?: boolean): Promise<void>;
  /** True once the task ended outside this run (a cancel on any replica): nothing more is stored. */
  ended(): boolean;
  /** The task's updates, each saved at the end of its turn with those made meanwhile (one save for several). */
  grouped?: TaskUpdates;
  /**
   * True when the caller streams this message's updates (SendStreamingMessage); false when it waits
   * for one answer (SendMessage): a gateway then asks its upstream for one answer too (ADR 0350).
   */
  readonly streamed?: boolean;
  /**
   * Marks the task working (saved lazily, with the updates of the same turn). A registration with
   * this access says when its work is under way (the gateway: when its upstream first answers, ADR
   * 0370); the result is preceded by it in any case, so the task's sequence is the same.
   */
  working(): void;
}

export interface HandlerRegistration {
  handle: Handler;
  /** Used instead of `handle` where the task's record is at hand (TaskExecution). */
  withRecord?: (access: TaskRecordAccess) => Handler;
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
