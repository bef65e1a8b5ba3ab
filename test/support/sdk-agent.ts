/**
 * An agent on the official `@a2a-js/sdk` server that answers every message at once: the task, one
 * data artifact, completed. The reference the benches measure the node against, and the existing
 * agent the onboarding suite imports.
 */
import { AgentCard, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import express from 'express';

/** Publishes the task in `firstState`, then `artifact(taskId)` as its one (last) chunk, then completed. */
export function answeringExecutor(artifact: (taskId: string) => Record<string, unknown>, firstState = 'TASK_STATE_WORKING'): AgentExecutor {
  return {
    async execute(rc, bus) {
      bus.publish(AgentEvent.task(Task.fromJSON({ id: rc.taskId, contextId: rc.contextId, status: { state: firstState } })));
      bus.publish(
        AgentEvent.artifactUpdate(
          TaskArtifactUpdateEvent.fromJSON({ taskId: rc.taskId, contextId: rc.contextId, artifact: artifact(rc.taskId), lastChunk: true }),
        ),
      );
      bus.publish(
        AgentEvent.statusUpdate(
          TaskStatusUpdateEvent.fromJSON({ taskId: rc.taskId, contextId: rc.contextId, status: { state: 'TASK_STATE_COMPLETED' } }),
        ),
      );
      bus.finished();
    },
    async cancelTask() {},
  };
}

/** A streaming agent's card with one A2A 1.0 JSON-RPC interface at `url`, text in, JSON out. */
export function jsonRpcCard(card: { name: string; description: string; version?: string; url: string; skills: unknown[] }): AgentCard {
  return AgentCard.fromJSON({
    name: card.name,
    description: card.description,
    version: card.version ?? '1.0.0',
    supportedInterfaces: [{ url: card.url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['application/json'],
    skills: card.skills,
  });
}

/**
 * The benches' SDK server: invoice-lookup answered with `answer` (the task first in `firstState`),
 * express and the SDK's jsonRpcHandler at /a2a/jsonrpc on 127.0.0.1:`port`, no auth.
 */
export function serveSdkInvoiceLookup(port: number, options: { name: string; answer: unknown; firstState: string }): void {
  const executor = answeringExecutor(
    (taskId) => ({ artifactId: `${taskId}-invoice`, name: 'invoice', parts: [{ data: options.answer, mediaType: 'application/json' }] }),
    options.firstState,
  );
  const card = jsonRpcCard({
    name: options.name,
    description: 'Invoice lookup',
    url: `http://127.0.0.1:${port}/a2a/jsonrpc`,
    skills: [{ id: 'invoice-lookup', name: 'Invoice lookup', description: 'Status of an invoice', tags: ['finance'] }],
  });
  const app = express();
  app.use(
    '/a2a/jsonrpc',
    jsonRpcHandler({
      requestHandler: new DefaultRequestHandler(card, new InMemoryTaskStore(), executor),
      userBuilder: UserBuilder.noAuthentication,
    }),
  );
  app.listen(port, '127.0.0.1');
}
