/**
 * A local HTTP server for the specs' fake OpenAI-compatible endpoints (real HTTP on 127.0.0.1, a
 * free port): `answer` gets each request with its whole body and answers with `send`.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Send = (status: number, payload: unknown) => void;

export interface LocalJsonServer {
  /** http://127.0.0.1:<port>/v1, the base URL the classifiers are given. */
  url: string;
  close(): Promise<void>;
}

export async function serveJsonLocally(answer: (req: IncomingMessage, body: string, send: Send) => void): Promise<LocalJsonServer> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () =>
      answer(req, body, (status, payload) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
