/**
 * The gateway's HTTP/1.1 client for its upstream agents (issue 28, ADR 0385): one request at a time
 * on keep-alive connections pooled per checked address, the request written in one piece, the
 * response read by a small parser that accepts only what an A2A answer needs and refuses the rest.
 * It replaces node:http's ClientRequest and Agent on this path, which cost the node about as much
 * CPU per forwarded call as all the gateway's own work (ADR 0385 has the profile).
 *
 * What the parser accepts: a status line `HTTP/1.0|1.1 NNN`, header lines `name: value` (16 KiB of
 * head at most), informational 1xx heads (skipped), a body delimited by `Content-Length` (every
 * copy equal) or `Transfer-Encoding: chunked` (trailers skipped), or read to the connection's end.
 * Everything else is an UpstreamError naming what was wrong: both delimiters, another transfer
 * coding, a malformed line or chunk size, folded headers, a 101. A connection is reused only when
 * its response was read to its end, it was not asked to close, and nothing followed the response:
 * a byte an upstream sends when no request is under way (a smuggled second answer) closes it.
 * Nothing of the upstream's headers is kept beyond the status and the content type.
 */
import net from 'node:net';
import tls from 'node:tls';

export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';
}

/** Where a request goes: the URL's parts and the address the SSRF check passed for its host. */
export interface HttpTarget {
  https: boolean;
  /** The URL's host without brackets: the TLS server name when it is not an address. */
  hostname: string;
  /** The Host header: the URL's host as written (with its port when it has one). */
  host: string;
  port: number;
  /** Checked by resolveAndCheck: the only address this request may connect to. */
  address: string;
}

export interface HttpRequest {
  method: 'GET' | 'POST';
  /** The path and query, as the URL parser encoded them. */
  path: string;
  /** Header lines (`name: value\r\n` each, no Host, no Content-Length), already checked. */
  headers: string;
  body?: string;
  connectTimeoutMs: number;
  /** The response's head must come within this. */
  headTimeoutMs: number;
  signal?: AbortSignal;
}

/** What a response's body sends its reader. */
export interface BodySink {
  data(chunk: Buffer): void;
  /** The body was read to its end. */
  end(): void;
  error(error: UpstreamError): void;
}

export interface HttpResponse {
  status: number;
  /** The Content-Type header's value ('' without one). */
  contentType: string;
  /** Starts delivering the body (once). */
  read(sink: BodySink): void;
  /** Stops receiving more of the body for now (backpressure) / again. */
  pause(): void;
  resume(): void;
  /** Done with it: an unread or partly read body closes the connection. */
  abort(): void;
}

const MAX_HEAD_BYTES = 16 * 1024;
const MAX_CHUNK_LINE = 1024;
/** A header value the node sends: printable ASCII and spaces, never a line break. */
export const HEADER_VALUE = /^[\x20-\x7e]*$/;

/** A response's body as it arrives, kept until its reader comes (the head resolves a promise first). */
class Body {
  private chunks: Buffer[] = [];
  private ended = false;
  private failure?: UpstreamError;
  private sink?: BodySink;

  push(chunk: Buffer): void {
    if (this.sink) this.sink.data(chunk);
    else this.chunks.push(chunk);
  }

  end(): void {
    this.ended = true;
    this.sink?.end();
  }

  fail(error: UpstreamError): void {
    if (this.ended || this.failure) return;
    this.failure = error;
    this.sink?.error(error);
  }

  attach(sink: BodySink): void {
    if (this.sink) throw new TypeError('the body is read once');
    this.sink = sink;
    const early = this.chunks;
    this.chunks = [];
    for (const c of early) sink.data(c);
    if (this.failure) sink.error(this.failure);
    else if (this.ended) sink.end();
  }
}

/** One request and its response on a connection. */
interface Exchange {
  request: HttpRequest;
  resolve(response: HttpResponse): void;
  reject(error: UpstreamError): void;
  /** Set once the head arrived. */
  body?: Body;
  timer: NodeJS.Timeout;
  onAbort?: () => void;
}

type Framing = { kind: 'length'; left: number } | { kind: 'chunked' } | { kind: 'close' } | { kind: 'none' };

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

class Connection {
  private buffer: Buffer | undefined;
  private exchange?: Exchange;
  private framing: Framing = { kind: 'none' };
  private chunkLeft = 0;
  private chunkState: 'size' | 'data' | 'crlf' | 'trailers' = 'size';
  /** Trailer bytes so far: bounded like a head. */
  private trailerBytes = 0;
  private reusable = false;
  private dead = false;

  constructor(
    readonly socket: net.Socket,
    private readonly pool: Pool,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('end', () => this.onClose(undefined));
    socket.on('close', () => this.onClose(undefined));
    socket.on('error', (e: NodeJS.ErrnoException) => this.onClose(e));
  }

  get idle(): boolean {
    return !this.dead && !this.exchange;
  }

  /** Sends the request; `resolve` gets the response once its head arrived, `reject` anything before. */
  start(target: HttpTarget, request: HttpRequest, resolve: (r: HttpResponse) => void, reject: (e: UpstreamError) => void): void {
    const timer = setTimeout(
      () => this.destroy(new UpstreamError(`the upstream did not answer within ${request.headTimeoutMs} ms`)),
      request.headTimeoutMs,
    );
    const exchange: Exchange = { request, resolve, reject, timer };
    this.exchange = exchange;
    if (request.signal) {
      exchange.onAbort = () => this.destroy(new UpstreamError('the upstream call was canceled'));
      request.signal.addEventListener('abort', exchange.onAbort, { once: true });
    }
    this.buffer = undefined;
    this.reusable = true;
    let head = `${request.method} ${request.path} HTTP/1.1\r\nhost: ${target.host}\r\n${request.headers}`;
    if (request.body !== undefined) head += `content-length: ${Buffer.byteLength(request.body)}\r\n`;
    this.socket.write(`${head}\r\n${request.body ?? ''}`);
  }

  /** Ends this connection; the exchange under way (if any) fails with `error`. */
  destroy(error?: UpstreamError): void {
    if (this.dead) return;
    this.dead = true;
    this.pool.forget(this);
    this.socket.destroy();
    const exchange = this.exchange;
    this.exchange = undefined;
    if (!exchange) return;
    this.settle(exchange);
    const failure = error ?? new UpstreamError('the upstream connection was lost');
    if (exchange.body) exchange.body.fail(failure);
    else exchange.reject(failure);
  }

  /** The exchange needs neither its timer nor its cancel listener any more. */
  private settle(exchange: Exchange): void {
    clearTimeout(exchange.timer);
    if (exchange.onAbort) exchange.request.signal!.removeEventListener('abort', exchange.onAbort);
  }

  private onClose(error: NodeJS.ErrnoException | undefined): void {
    if (this.dead) return;
    const exchange = this.exchange;
    // A body delimited by the connection's end is complete when it ends cleanly.
    if (exchange?.body && this.framing.kind === 'close' && !error) {
      this.reusable = false;
      return this.finish();
    }
    this.destroy(
      exchange?.body
        ? new UpstreamError('the upstream connection was lost')
        : new UpstreamError(`the upstream could not be reached (${error?.code ?? 'closed'})`),
    );
  }

  private onData(chunk: Buffer): void {
    if (this.dead) return;
    // Bytes when no request is under way: never an answer to anything the node asked.
    if (!this.exchange) return this.destroy();
    this.buffer = this.buffer ? Buffer.concat([this.buffer, chunk]) : chunk;
    try {
      this.parse();
    } catch (error) {
      this.destroy(error instanceof UpstreamError ? error : new UpstreamError('the upstream sent a malformed answer'));
    }
  }

  private parse(): void {
    while (this.exchange && this.buffer && this.buffer.length > 0) {
      const exchange = this.exchange;
      if (exchange.body) {
        // Waiting for the rest of a chunk-size line or trailer.
        if (!this.body(exchange.body)) return;
        continue;
      }
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end < 0 ? this.buffer.length > MAX_HEAD_BYTES : end > MAX_HEAD_BYTES)
        throw new UpstreamError(`the upstream sent a head larger than ${MAX_HEAD_BYTES} bytes`);
      if (end < 0) return;
      const head = this.buffer.toString('latin1', 0, end);
      this.buffer = this.buffer.subarray(end + 4);
      this.onHead(head, exchange);
    }
    // A head-only answer (or one whose body ended with the head) completes here.
    if (this.exchange?.body && this.framing.kind === 'none') this.finish();
  }

  private onHead(text: string, exchange: Exchange): void {
    const lines = text.split('\r\n');
    const status = /^HTTP\/1\.([01]) ([1-5]\d\d)(?: [^\r\n]*)?$/.exec(lines[0]);
    if (!status) throw new UpstreamError('the upstream sent a malformed status line');
    const code = Number(status[2]);
    const http10 = status[1] === '0';
    let length: string | undefined;
    let chunked = false;
    let contentType = '';
    let close = http10;
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i];
      const colon = line.indexOf(':');
      // A folded line (leading white space) or a name with anything but token characters is refused.
      if (colon <= 0 || !TOKEN.test(line.slice(0, colon))) throw new UpstreamError('the upstream sent a malformed header line');
      const name = line.slice(0, colon).toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-length') {
        if (!/^\d{1,15}$/.test(value) || (length !== undefined && length !== value))
          throw new UpstreamError('the upstream sent an invalid Content-Length');
        length = value;
      } else if (name === 'transfer-encoding') {
        if (chunked || value.toLowerCase() !== 'chunked') throw new UpstreamError('the upstream sent an unsupported Transfer-Encoding');
        chunked = true;
      } else if (name === 'content-type') contentType ||= value;
      else if (name === 'connection') {
        const tokens = value
          .toLowerCase()
          .split(',')
          .map((t) => t.trim());
        if (tokens.includes('close')) close = true;
        else if (http10 && tokens.includes('keep-alive')) close = false;
      }
    }
    if (code === 101) throw new UpstreamError('the upstream switched protocols');
    // An informational head: the answer's own head follows.
    if (code < 200) return;
    if (chunked && length !== undefined) throw new UpstreamError('the upstream sent both Content-Length and Transfer-Encoding');
    if (close) this.reusable = false;
    if (code === 204 || code === 304) this.framing = { kind: 'none' };
    else if (chunked) {
      this.framing = { kind: 'chunked' };
      this.chunkState = 'size';
    } else if (length !== undefined) this.framing = Number(length) === 0 ? { kind: 'none' } : { kind: 'length', left: Number(length) };
    else {
      this.framing = { kind: 'close' };
      this.reusable = false;
    }
    const body = new Body();
    exchange.body = body;
    // The head came in time; a cancel still ends the connection while the body is read.
    clearTimeout(exchange.timer);
    exchange.resolve({
      status: code,
      contentType,
      read: (sink) => body.attach(sink),
      pause: () => this.socket.pause(),
      resume: () => this.socket.resume(),
      abort: () => {
        if (this.exchange === exchange) this.destroy();
      },
    });
  }

  /** Takes what the framing allows from the buffer; false when a line is not whole yet. */
  private body(body: Body): boolean {
    const buffer = this.buffer!;
    const f = this.framing;
    if (f.kind === 'close') {
      this.buffer = undefined;
      body.push(buffer);
      return true;
    }
    if (f.kind === 'none') {
      this.finish();
      return true;
    }
    if (f.kind === 'length' || this.chunkState === 'data') {
      const left = f.kind === 'length' ? f.left : this.chunkLeft;
      const take = Math.min(left, buffer.length);
      if (f.kind === 'length') f.left -= take;
      else this.chunkLeft -= take;
      this.buffer = buffer.subarray(take);
      body.push(buffer.subarray(0, take));
      // Its reader may have given up on it meanwhile (too large): the connection is gone then.
      if (this.dead) return true;
      if (left === take) {
        if (f.kind === 'length') this.finish();
        else this.chunkState = 'crlf';
      }
      return true;
    }
    const eol = buffer.indexOf('\r\n');
    if (eol < 0 ? buffer.length > (this.chunkState === 'trailers' ? MAX_HEAD_BYTES : MAX_CHUNK_LINE) : eol > MAX_HEAD_BYTES)
      throw new UpstreamError('the upstream sent a malformed chunk');
    if (eol < 0) return false;
    const line = buffer.toString('latin1', 0, eol);
    this.buffer = buffer.subarray(eol + 2);
    if (this.chunkState === 'crlf') {
      if (line !== '') throw new UpstreamError('the upstream sent a malformed chunk');
      this.chunkState = 'size';
    } else if (this.chunkState === 'trailers') {
      this.trailerBytes += eol + 2;
      if (this.trailerBytes > MAX_HEAD_BYTES) throw new UpstreamError(`the upstream sent trailers larger than ${MAX_HEAD_BYTES} bytes`);
      if (line === '') this.finish();
    } else {
      const size = /^([0-9A-Fa-f]{1,8})[ \t]*(?:;[^\r\n]*)?$/.exec(line);
      if (!size) throw new UpstreamError('the upstream sent a malformed chunk');
      this.chunkLeft = parseInt(size[1], 16);
      this.chunkState = this.chunkLeft === 0 ? 'trailers' : 'data';
      this.trailerBytes = 0;
    }
    return true;
  }

  /** The response was read to its end: the connection goes back to its pool, then its reader hears so. */
  private finish(): void {
    const exchange = this.exchange;
    if (!exchange) return;
    this.exchange = undefined;
    this.settle(exchange);
    this.framing = { kind: 'none' };
    // Bytes past the end of the answer: nothing the node asked for.
    const extra = this.buffer !== undefined && this.buffer.length > 0;
    this.buffer = undefined;
    if (this.reusable && !extra && !this.dead) this.pool.release(this);
    else this.destroy();
    exchange.body!.end();
  }
}

/** The connections to one checked address. */
class Pool {
  private readonly free: Connection[] = [];
  private readonly all = new Set<Connection>();
  private readonly waiting: ((c: Connection | undefined) => void)[] = [];
  closed = false;

  constructor(
    readonly target: HttpTarget,
    private readonly maxConnections: number,
    private readonly maxFree: number,
  ) {}

  /** A free connection (the most recent first), a new one, or the next one freed when at the limit. */
  async acquire(connectTimeoutMs: number, waitMs: number): Promise<Connection> {
    for (let c = this.free.pop(); c; c = this.free.pop()) if (c.idle) return c;
    if (this.all.size >= this.maxConnections) {
      // Waiting for a connection counts against the answer's time, as a queued request's would.
      const c = await new Promise<Connection | undefined>((resolve, reject) => {
        const waiter = (got: Connection | undefined) => {
          clearTimeout(timer);
          resolve(got);
        };
        const timer = setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          reject(new UpstreamError(`the upstream did not answer within ${waitMs} ms`));
        }, waitMs);
        this.waiting.push(waiter);
      });
      if (c) return c;
    }
    return this.connect(connectTimeoutMs);
  }

  private connect(timeoutMs: number): Promise<Connection> {
    const t = this.target;
    const socket = t.https
      ? tls.connect({
          host: t.address,
          port: t.port,
          servername: net.isIP(t.hostname) ? undefined : t.hostname,
          ALPNProtocols: ['http/1.1'],
        })
      : net.connect({ host: t.address, port: t.port });
    const connection = new Connection(socket, this);
    this.all.add(connection);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => fail(new UpstreamError('the upstream did not accept the connection in time')), timeoutMs);
      const fail = (error: UpstreamError) => {
        clearTimeout(timer);
        socket.off(t.https ? 'secureConnect' : 'connect', ok);
        connection.destroy();
        reject(error);
      };
      const ok = () => {
        clearTimeout(timer);
        socket.off('error', onError);
        resolve(connection);
      };
      const onError = (e: NodeJS.ErrnoException) => fail(new UpstreamError(`the upstream could not be reached (${e.code ?? 'error'})`));
      socket.once(t.https ? 'secureConnect' : 'connect', ok);
      socket.once('error', onError);
    });
  }

  release(c: Connection): void {
    const next = this.waiting.shift();
    if (next) return next(c);
    if (this.closed || this.free.length >= this.maxFree) return c.destroy();
    this.free.push(c);
  }

  forget(c: Connection): void {
    this.all.delete(c);
    const i = this.free.indexOf(c);
    if (i >= 0) this.free.splice(i, 1);
    // Room for one more: a waiter opens its own connection.
    this.waiting.shift()?.(undefined);
  }

  /** Idle connections closed now, busy ones once their answer was read (`all`: every one now). */
  close(all = false): void {
    this.closed = true;
    for (const c of [...this.all]) if (all || c.idle) c.destroy(new UpstreamError('the upstream connection was closed by the node'));
  }
}

/**
 * Keep-alive connections, one pool per checked address (ADR 0271): a pooled connection was made to
 * the address that passed the SSRF check for that very host, so reusing it never reaches an address
 * the check did not pass (a DNS answer that changes selects another pool). Bounded: the oldest pool
 * is closed when there are more than MAX_POOLS.
 */
const MAX_POOLS = 256;
const pools = new Map<string, Pool>();
/** The pool a target object was last given (a caller that keeps its targets skips the key). */
const poolOfTarget = new WeakMap<HttpTarget, Pool>();
function poolFor(target: HttpTarget): Pool {
  const known = poolOfTarget.get(target);
  // A pool closed since (more than MAX_POOLS, or closeUpstreamConnections) is never reused.
  if (known && !known.closed) return known;
  const key = `${target.https ? 'https' : 'http'}://${target.host}@${target.address}`;
  let pool = pools.get(key);
  if (!pool) {
    pool = new Pool(target, 256, 64);
    pools.set(key, pool);
    if (pools.size > MAX_POOLS) {
      const [oldest, closing] = pools.entries().next().value!;
      pools.delete(oldest);
      closing.close();
    }
  }
  poolOfTarget.set(target, pool);
  return pool;
}

/** One request; resolves with the response once its head arrived (within `headTimeoutMs`). */
export async function httpRequest(target: HttpTarget, request: HttpRequest): Promise<HttpResponse> {
  if (request.signal?.aborted) throw new UpstreamError('the upstream call was canceled');
  const pool = poolFor(target);
  const connection = await pool.acquire(request.connectTimeoutMs, request.headTimeoutMs);
  if (request.signal?.aborted) {
    pool.release(connection);
    throw new UpstreamError('the upstream call was canceled');
  }
  return new Promise<HttpResponse>((resolve, reject) => connection.start(target, request, resolve, reject));
}

/** Every pool's connections closed, also those under way (tests, shutdown). */
export function closeUpstreamConnections(): void {
  for (const pool of pools.values()) pool.close(true);
  pools.clear();
}
