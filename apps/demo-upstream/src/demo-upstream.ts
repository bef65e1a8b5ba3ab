/**
 * The gateway demo's upstream (issue 28): an agent your team already runs, here an official
 * `@a2a-js/sdk` server, that an agent node fronts as a gateway (docs/gateway.md). It speaks A2A 1.0
 * over JSON-RPC at `/a2a/jsonrpc` (SendMessage and SendStreamingMessage, the way the node calls it)
 * and serves its own card at `/.well-known/agent-card.json` (the node's servability probe reads it).
 *
 * It runs on node:http with the SDK's own JSON-RPC transport rather than the SDK's express
 * handlers: express is only a development dependency here, and this script also runs from the
 * production image (the compose `gateway` profile).
 *
 * Its one skill, `match-po`, answers with a data artifact that repeats what the upstream received:
 * the text, and the claims of the bearer token the node sent (decoded, NOT verified: a real upstream
 * verifies it against the control plane's JWKS, docs/gateway.md §4). That is how a newcomer sees
 * the token exchange: the caller's token never arrives, an upstream token naming the caller does.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentCard, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
  UnauthenticatedUser,
  type AgentExecutor,
} from '@a2a-js/sdk/server';

export const DEMO_UPSTREAM_SKILL = 'match-po';
export const JSON_RPC_PATH = '/a2a/jsonrpc';
const CARD_PATH = '/.well-known/agent-card.json';
/** Requests larger than this are refused (a demo has no business reading more). */
const MAX_BODY_BYTES = 1024 * 1024;

export interface DemoUpstreamOptions {
  port: number;
  host: string;
  /** The origin callers (the gateway node) reach this server at; default http://<host>:<port>. */
  publicUrl?: string;
}

export interface DemoUpstream {
  /** The JSON-RPC endpoint as the card names it. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The JWT payload of a bearer token, without verifying it (see the file comment). */
function unverifiedClaims(authorization: string | undefined): Record<string, unknown> | null {
  const token = authorization?.match(/^Bearer (\S+)$/i)?.[1];
  const payload = token?.split('.')[1];
  if (!payload) return null;
  try {
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}

const HEADERS_KEY = 'demo-upstream.authorization';

const executor: AgentExecutor = {
  async execute(rc, bus) {
    const text = rc.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join(' ');
    const claims = unverifiedClaims(rc.context.state.get(HEADERS_KEY) as string | undefined);
    bus.publish(AgentEvent.task(Task.fromJSON({ id: rc.taskId, contextId: rc.contextId, status: { state: 'TASK_STATE_WORKING' } })));
    bus.publish(
      AgentEvent.artifactUpdate(
        TaskArtifactUpdateEvent.fromJSON({
          taskId: rc.taskId,
          contextId: rc.contextId,
          artifact: {
            artifactId: 'match',
            name: 'match',
            parts: [
              {
                data: {
                  matched: true,
                  by: 'demo-upstream',
                  asked: text,
                  // What reached the upstream: no token for an anonymous caller, else the exchanged one.
                  token: claims && {
                    sub: claims.sub ?? null,
                    act: (claims.act as { sub?: unknown } | undefined)?.sub ?? null,
                    aud: claims.aud ?? null,
                    scope: claims.scope ?? null,
                    token_use: claims.token_use ?? null,
                  },
                },
                mediaType: 'application/json',
              },
            ],
          },
          lastChunk: true,
        }),
      ),
    );
    bus.publish(
      AgentEvent.statusUpdate(
        TaskStatusUpdateEvent.fromJSON({ taskId: rc.taskId, contextId: rc.contextId, status: { state: 'TASK_STATE_COMPLETED' } }),
      ),
    );
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    bus.publish(
      AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ taskId, contextId: '', status: { state: 'TASK_STATE_CANCELED' } })),
    );
    bus.finished();
  },
};

function demoCard(url: string): AgentCard {
  return AgentCard.fromJSON({
    name: 'Demo purchase-order service',
    description: 'An existing A2A agent the gateway demo puts behind an agent node.',
    version: '1.0.0',
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['application/json'],
    skills: [
      {
        id: DEMO_UPSTREAM_SKILL,
        name: 'Match a purchase order',
        description: 'Finds the purchase order an invoice belongs to.',
        tags: ['finance'],
      },
    ],
  });
}

function readBody(req: http.IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(undefined);
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const json = (res: http.ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

export async function startDemoUpstream(options: DemoUpstreamOptions): Promise<DemoUpstream> {
  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const origin = (options.publicUrl ?? `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`).replace(
    /\/$/,
    '',
  );
  const url = `${origin}${JSON_RPC_PATH}`;
  const card = demoCard(url);
  const transport = new JsonRpcTransportHandler(new DefaultRequestHandler(card, new InMemoryTaskStore(), executor));

  server.on('request', (req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'GET' && path === CARD_PATH) return json(res, 200, AgentCard.toJSON(card));
      if (req.method === 'GET' && path === '/healthz') return json(res, 200, { status: 'ok' });
      if (req.method !== 'POST' || path !== JSON_RPC_PATH) return json(res, 404, { error: 'not found' });
      const raw = await readBody(req);
      if (raw === undefined) return json(res, 413, { error: 'request too large' });
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return json(res, 200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      }
      const context = new ServerCallContext({
        user: new UnauthenticatedUser(),
        requestedVersion: (req.headers['a2a-version'] as string | undefined) ?? '1.0',
      });
      context.state.set(HEADERS_KEY, req.headers.authorization);
      let answer: Awaited<ReturnType<JsonRpcTransportHandler['handle']>>;
      try {
        answer = await transport.handle(body, context);
      } catch (error) {
        return json(res, 200, { jsonrpc: '2.0', id: body.id ?? null, error: JsonRpcTransportHandler.mapToJSONRPCError(error) });
      }
      if (!(Symbol.asyncIterator in answer)) return json(res, 200, answer);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      try {
        for await (const event of answer) res.write(`data: ${JSON.stringify(event)}\n\n`);
      } catch (error) {
        res.write(
          `data: ${JSON.stringify({ jsonrpc: '2.0', id: body.id ?? null, error: JsonRpcTransportHandler.mapToJSONRPCError(error) })}\n\n`,
        );
      }
      res.end();
    })().catch(() => {
      if (!res.headersSent) json(res, 500, { error: 'internal error' });
      else res.end();
    });
  });

  return {
    url,
    port,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
