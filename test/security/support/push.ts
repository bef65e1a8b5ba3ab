/**
 * Push-notification helpers for the security suite: a real webhook receiver (node:http on a free
 * port) that records everything it gets, switching push on for the finance agent through the admin
 * API (as a platform admin, the only role that may widen its webhook allow-list), and a task that
 * waits for input, so configs can be attached to it and a cancel sends one update.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { mintA2AToken, mintAdminToken } from '@cp/auth';
import { gqlOk } from '../../support/graphql-client';
import { until } from '../../support/until';
import { a2aRpc, AGENT, bearer, type SecurityStack } from './stack';

export interface Received {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  got: Received[];
  close(): Promise<void>;
}

/** A webhook receiver on `host`; `answer` picks the response (default 204). */
export async function receiver(host: string, answer?: (req: http.IncomingMessage, res: http.ServerResponse) => boolean): Promise<Receiver> {
  const got: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      got.push({ path: req.url ?? '', method: req.method ?? '', headers: req.headers, body });
      if (!answer?.(req, res)) res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`,
    got,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections()),
  };
}

export const platformAdmin = (stack: SecurityStack) => mintAdminToken(stack.cpConfig, 'sec:platform-admin', ['platform-admin']);

/** Push on, `webhookAllow` as given (a platform admin's change), and waits until the node serves it. */
export async function enablePush(stack: SecurityStack, webhookAllow: string[]): Promise<void> {
  const token = platformAdmin(stack);
  const { agent } = await gqlOk(stack.cpUrl, token, `{ agent(id: "${AGENT}") { revision } }`);
  await gqlOk(stack.cpUrl, token, `mutation($input: UpdateAgentInput!) { updateAgent(input: $input) { revision } }`, {
    input: { id: AGENT, expectedRevision: agent.revision, protocol: { pushNotifications: true, webhookAllow } },
  });
  await until(
    'the node to serve push notifications',
    async () => {
      const card = (await (await fetch(`${stack.nodeUrl}/.well-known/agent-card.json`)).json()) as {
        capabilities?: { pushNotifications?: boolean };
      };
      return card.capabilities?.pushNotifications === true;
    },
    30_000,
  );
}

export const partnerToken = (stack: SecurityStack) =>
  mintA2AToken(stack.nodeConfig, 'orchestrator@acme-partner', 'acme-partner', ['recon.run']);

export const message = (text: string) => ({ messageId: `m-${randomBytes(4).toString('hex')}`, role: 'ROLE_USER', parts: [{ text }] });

/** A task of the partner's that waits for input (so it stays open until cancelled). */
export async function waitingTask(stack: SecurityStack, token: string): Promise<string> {
  const r = await a2aRpc(stack.nodeUrl, 'SendMessage', { message: message('look up an invoice please') }, bearer(token));
  const task = r.body.result?.task as { id: string; status: { state: string } } | undefined;
  if (task?.status.state !== 'TASK_STATE_INPUT_REQUIRED') throw new Error(`expected a waiting task, got ${JSON.stringify(r.body)}`);
  return task.id;
}
