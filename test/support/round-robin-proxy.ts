/**
 * Two (or more) node processes behind one address, like a load balancer: each HTTP request goes
 * to the next backend in turn, or to the one named by an `x-backend` index header (so a test can
 * say "create on A, subscribe on B"). Responses carry `x-served-by`. A client that goes away
 * takes its upstream request with it, as a real proxy does.
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection and a proxy must not forward them.
 * Forwarding the backend's `Keep-Alive: timeout=72` told clients to keep idle connections for 72 s
 * while this proxy closes them after 1 s, so a client's next request could meet a closing socket
 * (ECONNRESET under load).
 */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = String(headers.connection ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const out = { ...headers };
  for (const h of [...HOP_BY_HOP, ...named]) delete out[h];
  return out;
}

export interface RoundRobinProxy {
  url: string;
  close(): Promise<void>;
}

export async function startRoundRobinProxy(backends: () => string[]): Promise<RoundRobinProxy> {
  let turn = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const list = backends();
      const pinned = req.headers['x-backend'];
      const first = pinned !== undefined ? Number(pinned) : turn++ % list.length;
      const forward = (index: number, attempts: number) => {
        const target = new URL(req.url ?? '/', list[index]);
        const headers: IncomingHttpHeaders = { ...endToEnd(req.headers), host: target.host };
        delete headers['x-backend'];
        const upstream = request(target, { method: req.method, headers }, (up) => {
          res.writeHead(up.statusCode ?? 502, { ...endToEnd(up.headers), 'x-served-by': String(index) });
          up.pipe(res);
        });
        upstream.on('error', (error: NodeJS.ErrnoException) => {
          // A dead backend is skipped unless the request named it, as a load balancer's health check would.
          if (error.code === 'ECONNREFUSED' && pinned === undefined && attempts < list.length)
            return forward((index + 1) % list.length, attempts + 1);
          if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
          res.end('backend unavailable');
        });
        res.on('close', () => upstream.destroy());
        upstream.end(Buffer.concat(chunks));
      };
      forward(first, 1);
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
