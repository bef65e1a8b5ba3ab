/**
 * The gateway's HTTP/1.1 client (ADR 0385) against a raw TCP server that sends exactly the bytes a
 * test scripts: well-formed answers split at every byte, and every way a hostile upstream can bend
 * HTTP framing (both delimiters, another coding, a bad chunk, folded or huge heads, a smuggled
 * second answer, bytes on an idle connection). What must hold: the answer read is exactly the one
 * sent, a malformed one is a clear UpstreamError, and a connection is reused only when it is clean.
 */
import net from 'node:net';
import {
  closeUpstreamConnections,
  httpRequest,
  UpstreamError,
  type HttpRequest,
  type HttpResponse,
  type HttpTarget,
} from './upstream-http';
import { sendMessage, type UpstreamCall } from './upstream-client';

interface Script {
  /** What the server answers the n-th request (0-based) with, as bytes written in the pieces given. */
  answer(n: number, request: string): (string | Buffer)[];
}

/** A TCP server answering each complete request (head + content-length body) with the script's bytes. */
async function rawServer(
  script: Script,
): Promise<{ port: number; connections: () => number; requests: string[]; sockets: net.Socket[]; close(): void }> {
  const requests: string[] = [];
  const sockets: net.Socket[] = [];
  let count = 0;
  const server = net.createServer((socket) => {
    sockets.push(socket);
    let buffer = '';
    socket.setEncoding('latin1');
    socket.on('error', () => undefined);
    // Each answer's pieces go out one turn apart, in order, whatever else arrives meanwhile.
    let writing = Promise.resolve();
    const writeAll = async (pieces: (string | Buffer)[]) => {
      for (const piece of pieces) {
        if (socket.destroyed) return;
        socket.write(piece);
        await new Promise((r) => setImmediate(r));
      }
    };
    socket.on('data', (c: string) => {
      buffer += c;
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(buffer.slice(0, end))?.[1] ?? 0);
        if (buffer.length < end + 4 + length) return;
        const request = buffer.slice(0, end + 4 + length);
        requests.push(request);
        buffer = buffer.slice(end + 4 + length);
        const pieces = script.answer(count++, request);
        writing = writing.then(() => writeAll(pieces));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => sockets.length,
    requests,
    sockets,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

const target = (port: number): HttpTarget => ({
  https: false,
  hostname: '127.0.0.1',
  host: `127.0.0.1:${port}`,
  port,
  address: '127.0.0.1',
});
const post = (over: Partial<HttpRequest> = {}): HttpRequest => ({
  method: 'POST',
  path: '/a2a/jsonrpc',
  headers: 'accept: application/json\r\n',
  body: '{"hello":"wörld"}',
  connectTimeoutMs: 1000,
  headTimeoutMs: 1000,
  ...over,
});

/** The whole body (or the UpstreamError that ended it). */
const bodyOf = (res: HttpResponse): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.read({ data: (c) => chunks.push(c), end: () => resolve(Buffer.concat(chunks).toString('utf8')), error: reject });
  });

/** Every piece of `text`, one byte at a time. */
const bytewise = (text: string) => [...Buffer.from(text)].map((b) => Buffer.from([b]));

const JSON_BODY = '{"result":{"ok":"ünïcode"}}';
const lengthAnswer = (body = JSON_BODY, extra = '') =>
  `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
const chunkedAnswer = `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n5;ext=1\r\ndata:\r\n${Buffer.byteLength(
  ' {"a":"é"}\n\n',
).toString(16)}\r\n {"a":"é"}\n\n\r\n0\r\nx-trailer: t\r\n\r\n`;

let server: Awaited<ReturnType<typeof rawServer>> | undefined;
afterEach(() => {
  closeUpstreamConnections();
  server?.close();
  server = undefined;
});

describe('the gateway’s HTTP client for its upstreams (ADR 0385)', () => {
  it('sends the request in one piece with its Host and Content-Length, and reads a Content-Length answer split at every byte', async () => {
    server = await rawServer({ answer: () => bytewise(lengthAnswer()) });
    const res = await httpRequest(target(server.port), post());
    expect(res.status).toBe(200);
    expect(res.contentType).toBe('application/json');
    expect(await bodyOf(res)).toBe(JSON_BODY);
    expect(server.requests[0]).toBe(
      `POST /a2a/jsonrpc HTTP/1.1\r\nhost: 127.0.0.1:${server.port}\r\naccept: application/json\r\ncontent-length: 18\r\n\r\n{"hello":"wörld"}`.replace(
        'wörld',
        Buffer.from('wörld').toString('latin1'),
      ),
    );
  });

  it('reads a chunked answer (extensions, trailers) split at every byte, and reuses the clean connection', async () => {
    server = await rawServer({ answer: () => bytewise(chunkedAnswer) });
    for (let i = 0; i < 3; i++) {
      const res = await httpRequest(target(server.port), post());
      expect(await bodyOf(res)).toBe('data: {"a":"é"}\n\n');
    }
    expect(server.connections()).toBe(1);
  });

  it.each<[string, string, string]>([
    [
      'both Content-Length and Transfer-Encoding',
      'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      'both Content-Length and Transfer-Encoding',
    ],
    ['two different Content-Lengths', 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!', 'invalid Content-Length'],
    ['a negative Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n', 'invalid Content-Length'],
    [
      'a transfer coding other than chunked',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n',
      'unsupported Transfer-Encoding',
    ],
    ['a malformed status line', 'HTTP/2 200 OK\r\nContent-Length: 0\r\n\r\n', 'malformed status line'],
    ['a folded header line', 'HTTP/1.1 200 OK\r\nX-A: 1\r\n  continued\r\nContent-Length: 0\r\n\r\n', 'malformed header line'],
    ['a header name with a space', 'HTTP/1.1 200 OK\r\nContent Length: 0\r\n\r\n', 'malformed header line'],
    ['a head larger than 16 KiB', `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(17_000)}\r\n\r\n`, 'head larger than 16384 bytes'],
    ['a 101 switching protocols', 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n', 'switched protocols'],
  ])('refuses %s with a clear error and closes the connection', async (_name, answer, words) => {
    server = await rawServer({ answer: (n) => [n === 0 ? answer : lengthAnswer()] });
    const error = await httpRequest(target(server.port), post()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as Error).message).toContain(words);
    // The next request is answered on a new connection.
    expect(await bodyOf(await httpRequest(target(server.port), post()))).toBe(JSON_BODY);
    expect(server.connections()).toBe(2);
  });

  it.each<[string, string]>([
    ['a chunk size that is not hex', 'zz\r\nhello\r\n0\r\n\r\n'],
    ['a chunk size past 8 hex digits', '100000000\r\n'],
    ['a chunk not followed by its line end', '5\r\nhelloXX0\r\n\r\n'],
    ['a chunk-size line without end', `${'1'.repeat(2000)}`],
    ['trailers past 16 KiB in all', `0\r\n${'x-t: 1234567890\r\n'.repeat(1200)}\r\n`],
  ])('ends a chunked body on %s with a clear error, nothing of it read past the fault', async (_name, body) => {
    server = await rawServer({ answer: () => [`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${body}`] });
    const res = await httpRequest(target(server.port), post());
    const error = await bodyOf(res).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as Error).message).toMatch(/malformed chunk|trailers larger than 16384 bytes/);
  });

  it('skips an informational 1xx head and reads the answer after it', async () => {
    server = await rawServer({ answer: () => ['HTTP/1.1 100 Continue\r\n\r\n', lengthAnswer()] });
    const res = await httpRequest(target(server.port), post());
    expect(res.status).toBe(200);
    expect(await bodyOf(res)).toBe(JSON_BODY);
  });

  it('never takes bytes past an answer (a smuggled second answer) as the next answer: that connection is closed', async () => {
    const smuggled = lengthAnswer('{"result":"smuggled"}');
    server = await rawServer({ answer: (n) => [n === 0 ? lengthAnswer() + smuggled : lengthAnswer('{"result":"second"}')] });
    expect(await bodyOf(await httpRequest(target(server.port), post()))).toBe(JSON_BODY);
    expect(await bodyOf(await httpRequest(target(server.port), post()))).toBe('{"result":"second"}');
    expect(server.connections()).toBe(2);
  });

  it('closes an idle pooled connection that receives anything, and answers the next request on a new one', async () => {
    server = await rawServer({ answer: (n) => [lengthAnswer(`{"n":${n}}`)] });
    expect(await bodyOf(await httpRequest(target(server.port), post()))).toBe('{"n":0}');
    server.sockets[0].write(lengthAnswer('{"result":"unasked"}'));
    await new Promise((r) => setTimeout(r, 50));
    expect(await bodyOf(await httpRequest(target(server.port), post()))).toBe('{"n":1}');
    expect(server.connections()).toBe(2);
  });

  it('a target object kept by its caller reuses its pool, and never a pool closed since: its connections are pooled again', async () => {
    server = await rawServer({ answer: (n) => [lengthAnswer(`{"n":${n}}`)] });
    const kept = target(server.port);
    expect(await bodyOf(await httpRequest(kept, post()))).toBe('{"n":0}');
    expect(await bodyOf(await httpRequest(kept, post()))).toBe('{"n":1}');
    expect(server.connections()).toBe(1);
    closeUpstreamConnections();
    // The pool the target was given is closed: a request after it opens a connection in a new pool,
    // which keeps it for the next request (a closed pool would close every connection it got back).
    expect(await bodyOf(await httpRequest(kept, post()))).toBe('{"n":2}');
    expect(await bodyOf(await httpRequest(kept, post()))).toBe('{"n":3}');
    expect(server.connections()).toBe(2);
  });

  it('reads an answer without length to the connection’s end, and an answer asking to close is never reused', async () => {
    server = await rawServer({
      answer: (n) =>
        n === 0 ? ['HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok'] : ['HTTP/1.0 200 OK\r\n\r\nuntil the end'],
    });
    expect(await bodyOf(await httpRequest(target(server.port), post()))).toBe('ok');
    const res = await httpRequest(target(server.port), post());
    setTimeout(() => server!.sockets[1].end(), 20);
    expect(await bodyOf(res)).toBe('until the end');
    expect(server.connections()).toBe(2);
  });

  it('a connection lost in the middle of a body, no answer in time and a cancel are clear errors', async () => {
    server = await rawServer({
      answer: (n) => (n === 0 ? ['HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial'] : []),
    });
    const res = await httpRequest(target(server.port), post());
    setTimeout(() => server!.sockets[0].destroy(), 20);
    await expect(bodyOf(res)).rejects.toThrow('the upstream connection was lost');
    await expect(httpRequest(target(server.port), post({ headTimeoutMs: 50 }))).rejects.toThrow('did not answer within 50 ms');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    await expect(httpRequest(target(server.port), post({ signal: controller.signal }))).rejects.toThrow('canceled');
  });

  it('at 256 connections to one address a request waits for one, and that wait counts against its answer time', async () => {
    server = await rawServer({ answer: () => [] });
    const held = Array.from({ length: 256 }, () =>
      httpRequest(target(server!.port), post({ headTimeoutMs: 5000 })).catch((e: unknown) => e),
    );
    await expect(httpRequest(target(server.port), post({ headTimeoutMs: 100 }))).rejects.toThrow('did not answer within 100 ms');
    closeUpstreamConnections();
    for (const h of await Promise.all(held)) expect(h).toBeInstanceOf(UpstreamError);
  });

  it('an upstream that refuses the connection is a clear error naming the code', async () => {
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise((r) => probe.close(r));
    await expect(httpRequest(target(port), post())).rejects.toThrow('the upstream could not be reached (ECONNREFUSED)');
  });
});

describe('the upstream client on it', () => {
  const call = (port: number, over: Partial<UpstreamCall> = {}): UpstreamCall => ({
    spec: { url: `http://127.0.0.1:${port}/a2a/jsonrpc`, binding: 'jsonrpc', version: '1.0' },
    allow: ['127.0.0.1'],
    maxEventBytes: 4096,
    ...over,
  });
  const message = { messageId: 'm', role: 'ROLE_USER' as const, parts: [{ text: 'hi' }] };

  it('never sends a token that would add a header line (CR/LF in it): nothing reaches the upstream', async () => {
    server = await rawServer({ answer: () => [lengthAnswer()] });
    await expect(sendMessage(call(server.port, { token: 'abc\r\nx-injected: 1' }), message, [])).rejects.toThrow(
      'the upstream token is not a valid header value',
    );
    expect(server.requests).toHaveLength(0);
  });

  it('checks an address upstream against the allow list in force: an address allowed once is refused once the list drops it', async () => {
    server = await rawServer({
      answer: (_n, request) => {
        // The JSON-RPC id the node chose, echoed as an upstream does.
        const id = (JSON.parse(request.slice(request.indexOf('\r\n\r\n') + 4)) as { id: string }).id;
        const body = JSON.stringify({
          jsonrpc: '2.0',
          id,
          result: { task: { id: 'u', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } },
        });
        return [lengthAnswer(body)];
      },
    });
    const s = server;
    const allowed = await sendMessage(call(s.port), message, []);
    expect((allowed.task as { id: string }).id).toBe('u');
    await expect(sendMessage(call(s.port, { allow: [] }), message, [])).rejects.toThrow('the upstream address is not allowed');
    await expect(sendMessage(call(s.port, { allow: ['10.0.0.0/8'] }), message, [])).rejects.toThrow('not allowed');
    expect(s.requests).toHaveLength(1);
  });
});
