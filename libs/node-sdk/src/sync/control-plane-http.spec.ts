/**
 * The node's keep-alive HTTP client (ADR 0194) against real node:http servers: one socket for
 * many requests, a body cap, redirects not followed, one deadline over headers and body, and a
 * request on a socket the server dropped retried once on a new socket.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ControlPlaneHttp, ControlPlaneRequestError } from './control-plane-http';

describe('ControlPlaneHttp', () => {
  let server: Server;
  let base: string;
  let connections: number;
  let handler: (req: IncomingMessage, res: ServerResponse, body: string) => void;
  const clients: ControlPlaneHttp[] = [];
  const client = (options: ConstructorParameters<typeof ControlPlaneHttp>[1] = {}, url = base) => {
    const c = new ControlPlaneHttp(url, options);
    clients.push(c);
    return c;
  };

  beforeEach(async () => {
    connections = 0;
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => handler(req, res, body));
    });
    server.on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    clients.splice(0).forEach((c) => c.close());
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('sends method, path under the base path, headers and body; many requests share one socket', async () => {
    const seen: string[] = [];
    handler = (req, res, body) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization} ${body}`);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ n: seen.length }));
    };
    const http = client({}, `${base}/prefix/`);
    for (let i = 0; i < 5; i++) {
      const answer = await http.send(i % 2 ? 'POST' : 'GET', '/node/v1/x', { authorization: 'Bearer t' }, i % 2 ? `{"i":${i}}` : undefined);
      expect(answer).toMatchObject({ status: 200, text: JSON.stringify({ n: i + 1 }) });
      expect(answer.headers['content-type']).toBe('application/json');
    }
    expect(seen).toEqual([
      'GET /prefix/node/v1/x Bearer t ',
      'POST /prefix/node/v1/x Bearer t {"i":1}',
      'GET /prefix/node/v1/x Bearer t ',
      'POST /prefix/node/v1/x Bearer t {"i":3}',
      'GET /prefix/node/v1/x Bearer t ',
    ]);
    expect(connections).toBe(1);
  });

  it('refuses a body over the cap, declared or streamed, and reads no further', async () => {
    const big = 'x'.repeat(64 * 1024);
    handler = (req, res) => {
      if (req.url === '/declared') {
        res.setHeader('content-length', String(big.length));
        res.end(big);
        return;
      }
      // Chunked, no length: the cap is found while reading.
      res.write(big.slice(0, 1000));
      setTimeout(() => res.end(big), 20);
    };
    const http = client({ maxBodyBytes: 10_000 });
    for (const path of ['/declared', '/streamed']) {
      const error = await http.send('GET', path, {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ControlPlaneRequestError);
      expect(error).toMatchObject({ code: 'ETOOLARGE', message: 'the answer is larger than 10000 bytes' });
    }
    // A body at the cap is read whole.
    handler = (_req, res) => res.end('y'.repeat(10_000));
    expect((await http.send('GET', '/ok', {})).text).toHaveLength(10_000);
  });

  it('does not follow a redirect: the 3xx is the answer', async () => {
    const hits: string[] = [];
    handler = (req, res) => {
      hits.push(req.url!);
      if (req.url === '/from') {
        res.statusCode = 302;
        res.setHeader('location', `${base}/to`);
      }
      res.end('moved');
    };
    const answer = await client().send('GET', '/from', {});
    expect(answer.status).toBe(302);
    expect(hits).toEqual(['/from']);
  });

  it('one deadline covers the whole body: a body that trickles past it fails', async () => {
    handler = (_req, res) => {
      res.write('{"a":');
      const drip = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(drip));
    };
    const started = Date.now();
    const error = await client({ timeoutMs: 300 })
      .send('GET', '/slow', {})
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ETIMEDOUT', message: 'no full answer within 300 ms' });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('a request on a kept-alive socket the server dropped is sent again on a new socket, once', async () => {
    let served = 0;
    const dropOn = new Set<number>([2]);
    handler = (req, res) => {
      served++;
      if (dropOn.has(served)) {
        req.socket.destroy();
        return;
      }
      res.end(`answer ${served}`);
    };
    const http = client();
    expect((await http.send('GET', '/a', {})).text).toBe('answer 1');
    // The second request reuses the socket; the server drops it unanswered: the client retries.
    expect((await http.send('POST', '/b', {}, '{}')).text).toBe('answer 3');
    expect(connections).toBe(2);
    // On a fresh socket there is no retry: a drop is the caller's error.
    http.close();
    dropOn.add(4);
    const error = await http.send('GET', '/c', {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ECONNRESET' });
    expect(served).toBe(4);
  });

  it('names a refused connection by its code', async () => {
    const error = await client({}, 'http://127.0.0.1:1')
      .send('GET', '/x', {})
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ECONNREFUSED', message: 'ECONNREFUSED' });
  });

  it('takes http and https URLs only, without credentials, query or fragment (the base path: first test)', () => {
    expect(() => new ControlPlaneHttp('ftp://cp.example')).toThrow(/expected http: or https:/);
    expect(() => new ControlPlaneHttp('http://user:pw@cp.example')).toThrow(/no credentials/);
    expect(() => new ControlPlaneHttp('http://cp.example/?x=1')).toThrow(/no credentials, query or fragment/);
  });
});
