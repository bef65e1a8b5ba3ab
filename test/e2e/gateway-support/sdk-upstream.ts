/**
 * An official `@a2a-js/sdk` express server as a gateway's upstream (issue 28), serving A2A 1.0 and,
 * through the SDK's own v0.3 compat layer (`legacyCompat`), A2A 0.3, on both bindings: JSON-RPC
 * at `/a2a/jsonrpc`, HTTP+JSON at `/a2a/rest` (0.3 REST paths under `/a2a/rest/v1/…`). It records
 * what reached it (path, JSON-RPC method, A2A-Version, Authorization, body) so a spec can assert
 * what the upstream received as well as what the caller got.
 *
 * Its executor: "ask me" → input-required (a continuation completes it), "hold" → working until
 * canceled, "slow start" → nothing said until `gated` is opened; otherwise one data artifact, then
 * completed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { AgentCard, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';

export const UPSTREAM_RESULT = { reconciled: true, by: 'sdk-upstream' };

export interface SeenRequest {
  path: string;
  /** The JSON-RPC method (JSON-RPC binding only). */
  method?: string;
  version: string | undefined;
  authorization: string | undefined;
  body: unknown;
}

export interface SdkUpstream {
  /** Base URLs: JSON-RPC endpoint and HTTP+JSON base. */
  jsonrpc: string;
  rest: string;
  seen: SeenRequest[];
  canceled: string[];
  asked: string[];
  continued: string[];
  gated: Array<() => void>;
  close(): Promise<void>;
}

const status = (taskId: string, contextId: string, state: string, text?: string) =>
  AgentEvent.statusUpdate(
    TaskStatusUpdateEvent.fromJSON({
      taskId,
      contextId,
      status: { state, ...(text ? { message: { messageId: `s-${taskId}-${state}`, role: 'ROLE_AGENT', parts: [{ text }] } } : {}) },
    }),
  );

export async function sdkUpstream(): Promise<SdkUpstream> {
  const seen: SeenRequest[] = [];
  const canceled: string[] = [];
  const asked: string[] = [];
  const continued: string[] = [];
  const gated: Array<() => void> = [];
  const holds = new Map<string, () => void>();
  const executor: AgentExecutor = {
    async execute(rc, bus) {
      if (JSON.stringify(rc.userMessage).includes('slow start')) await new Promise<void>((resolve) => gated.push(resolve));
      bus.publish(AgentEvent.task(Task.fromJSON({ id: rc.taskId, contextId: rc.contextId, status: { state: 'TASK_STATE_WORKING' } })));
      const text = rc.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join(' ');
      if (rc.task) continued.push(rc.taskId);
      else if (text.includes('ask me')) {
        asked.push(rc.taskId);
        bus.publish(status(rc.taskId, rc.contextId, 'TASK_STATE_INPUT_REQUIRED', 'which purchase order?'));
        bus.finished();
        return;
      }
      if (text.includes('hold')) {
        // Said after the task event: once a caller sees it, the node has linked its task to this one.
        bus.publish(status(rc.taskId, rc.contextId, 'TASK_STATE_WORKING', 'held by the upstream'));
        await new Promise<void>((resolve) => holds.set(rc.taskId, resolve));
        return;
      }
      bus.publish(status(rc.taskId, rc.contextId, 'TASK_STATE_WORKING', 'matching lines'));
      bus.publish(
        AgentEvent.artifactUpdate(
          TaskArtifactUpdateEvent.fromJSON({
            taskId: rc.taskId,
            contextId: rc.contextId,
            artifact: {
              artifactId: 'reconciliation',
              name: 'reconciliation',
              parts: [{ data: UPSTREAM_RESULT, mediaType: 'application/json' }],
            },
            lastChunk: true,
          }),
        ),
      );
      bus.publish(status(rc.taskId, rc.contextId, 'TASK_STATE_COMPLETED'));
      bus.finished();
    },
    async cancelTask(taskId, bus) {
      canceled.push(taskId);
      bus.publish(status(taskId, '', 'TASK_STATE_CANCELED'));
      bus.finished();
      holds.get(taskId)?.();
    },
  };
  const app = express();
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const jsonrpc = `${origin}/a2a/jsonrpc`;
  const rest = `${origin}/a2a/rest`;
  const card = AgentCard.fromJSON({
    name: 'Reconciliation service',
    description: 'Reconciles invoices',
    version: '1.0.0',
    // The SDK's compat layer answers 0.3 only when the card declares a 0.3 interface of that binding.
    supportedInterfaces: [
      { url: jsonrpc, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: rest, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: jsonrpc, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: rest, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['application/json'],
    skills: [{ id: 'reconcile-invoice', name: 'Reconcile', description: 'Reconcile an invoice', tags: ['finance'] }],
  });
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const record =
    (base: string): express.RequestHandler =>
    (req, _res, next) => {
      const body = req.body as { method?: unknown } | undefined;
      seen.push({
        path: `${base}${req.path}`,
        method: base.endsWith('jsonrpc') ? String(body?.method) : undefined,
        version: req.headers['a2a-version'] as string | undefined,
        authorization: req.headers.authorization,
        body,
      });
      next();
    };
  const options = { requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } };
  app.use('/a2a/jsonrpc', express.json(), record('/a2a/jsonrpc'), jsonRpcHandler(options));
  app.use('/a2a/rest', express.json(), record('/a2a/rest'), restHandler(options));
  return {
    jsonrpc,
    rest,
    seen,
    canceled,
    asked,
    continued,
    gated,
    close: () => {
      for (const open of gated) open();
      for (const release of holds.values()) release();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
