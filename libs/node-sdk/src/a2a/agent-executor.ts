/**
 * Bring your own executor (ADR 0163): an `AgentExecutor` written against the official
 * `@a2a-js/sdk` server registers as a handler, so the node-sdk still does what the SDK's own
 * request handler would not: the registry's card, routing, entitlement at execution, limits,
 * downscoped tools and usage counting. The executor sees the SDK's own types: a `RequestContext`
 * (its `context.state` carries the caller, the capability and the tool invoker, see
 * `nodeContextOf`) and an `ExecutionEventBus` whose events become the task's stored and streamed
 * updates; its last status becomes the handler's result.
 */
import { Message, SendMessageRequest, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import {
  DefaultExecutionEventBus,
  RequestContext as SdkRequestContext,
  ServerCallContext,
  type AgentExecutionEvent,
  type AgentExecutor,
} from '@a2a-js/sdk/server';
import type { Caller } from '@cp/capabilities';
import type { ToolInvoker } from '../tools/tool-gateway';
import type { Handler, HandlerContext, HandlerResult } from './handler';
import type { WireArtifact, WireMessage } from './wire-types';

/** Where the node's context sits in the SDK ServerCallContext's state bag. */
export const NODE_CONTEXT_KEY = 'cp.node';

export interface NodeContext {
  caller: Caller;
  capability: HandlerContext['capability'];
  /** Tools with a credential downscoped to this caller (token exchange). */
  tools: ToolInvoker;
  outputMode: string;
  signal: AbortSignal;
}

/** The node's context for this call, from inside an executor. */
export function nodeContextOf(requestContext: SdkRequestContext): NodeContext {
  const ctx = requestContext.context.state.get(NODE_CONTEXT_KEY) as NodeContext | undefined;
  if (!ctx) throw new TypeError('this RequestContext was not created by the node-sdk executor adapter');
  return ctx;
}

type Json = Record<string, unknown>;
const textOf = (m: Json | undefined): string | undefined => {
  const parts = (m?.parts ?? []) as { text?: unknown }[];
  const text = parts
    .map((p) => (typeof p.text === 'string' ? p.text : ''))
    .filter(Boolean)
    .join('\n');
  return text === '' ? undefined : text;
};

/** Wraps an executor as a handler. The executor's `cancelTask` runs when the capability's time limit fires. */
export function executorHandler(executor: AgentExecutor): Handler {
  return async (ctx) => {
    const request = SendMessageRequest.fromJSON({
      message: ctx.message,
      metadata: ctx.metadata,
      configuration: { acceptedOutputModes: [...ctx.acceptedOutputModes] },
    });
    const node: NodeContext = {
      caller: ctx.caller,
      capability: ctx.capability,
      tools: ctx.tools,
      outputMode: ctx.outputMode,
      signal: ctx.signal,
    };
    const call = new ServerCallContext({
      tenant: ctx.caller?.tenant,
      requestedVersion: '1.0',
      state: new Map<string, unknown>([[NODE_CONTEXT_KEY, node]]),
    });
    const requestContext = new SdkRequestContext(request, ctx.task.id, ctx.task.contextId, call);
    const bus = new DefaultExecutionEventBus();
    let final: HandlerResult | undefined;
    let chain: Promise<unknown> = Promise.resolve();
    const failures: Error[] = [];
    // Events are applied one at a time in publish order (stored, then streamed).
    const apply = (fn: () => Promise<unknown>) => {
      chain = chain.then(fn).catch((error: unknown) => failures.push(error as Error));
    };
    bus.on('event', (event: AgentExecutionEvent) => {
      switch (event.kind) {
        case 'task':
          // The node created the task already; a first `task` event only announces it.
          return;
        case 'message': {
          const m = Message.toJSON(event.data) as WireMessage;
          final = { state: 'completed', artifacts: [{ name: 'response', parts: m.parts }] };
          return;
        }
        case 'artifactUpdate': {
          const wire = TaskArtifactUpdateEvent.toJSON(event.data) as { artifact: WireArtifact; append?: boolean; lastChunk?: boolean };
          apply(() => ctx.updates.artifact(wire.artifact, { append: wire.append === true, lastChunk: wire.lastChunk === true }));
          return;
        }
        case 'statusUpdate': {
          const wire = TaskStatusUpdateEvent.toJSON(event.data) as { status: { state: string; message?: Json } };
          const text = textOf(wire.status.message);
          const state = wire.status.state;
          if (state === 'TASK_STATE_WORKING' || state === 'TASK_STATE_SUBMITTED') {
            if (text) apply(() => ctx.updates.progress(text));
          } else if (state === 'TASK_STATE_COMPLETED') final = { state: 'completed', artifacts: [], text };
          else if (state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_AUTH_REQUIRED')
            final = { state: 'input-required', text: text ?? 'the agent needs more input' };
          else if (state === 'TASK_STATE_REJECTED') final = { state: 'rejected', text: text ?? 'the agent rejected this task' };
          else final = { state: 'failed', text: text ?? `the agent ended the task ${state}` };
          return;
        }
      }
    });
    const onAbort = () => void executor.cancelTask(ctx.task.id, bus).catch(() => undefined);
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    try {
      await executor.execute(requestContext, bus);
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
      bus.removeAllListeners();
    }
    await chain;
    if (failures.length > 0) throw failures[0];
    return final ?? { state: 'failed', text: 'the agent ended without a final status' };
  };
}
