/**
 * The node's HTTP client to its control plane (ADR 0194): node:http / node:https with one
 * keep-alive agent per NodeSync (its one control-plane origin), instead of the global `fetch`.
 * `fetch` builds a WHATWG Request, Headers, an AbortSignal and a web stream per request; on a node
 * that applies a change it was the largest share of the CPU per apply (the bundle GET and the ack).
 *
 * What it keeps of `fetch`'s behaviour, and what it adds:
 * - one deadline per request covering the connect, the headers and the whole body (a slow body
 *   is an error, like `AbortSignal.timeout` on fetch + text());
 * - TLS for https URLs with the platform's verification (nothing is relaxed);
 * - a cap on the response body (`maxBodyBytes`): a larger answer is an error, read no further;
 * - redirects are never followed (a 3xx is returned as it is; NodeSync treats it as a failure);
 * - a request on a kept-alive socket the server closed meanwhile is retried once on a new one
 *   (what undici does for idempotent requests; the node's GET and POSTs are all repeatable).
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface ControlPlaneHttpOptions {
  /** Per request: connect, headers and body (default 5 s). */
  timeoutMs?: number;
  /** Largest response body read (default 256 MiB). */
  maxBodyBytes?: number;
}

export interface ControlPlaneAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** A failure with no answer read; the message is short (the code, or what went wrong), `code` says which. */
export class ControlPlaneRequestError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

export const DEFAULT_MAX_BODY_BYTES = 256 * 1024 * 1024;

export class ControlPlaneHttp {
  private readonly protocol: string;
  private readonly hostname: string;
  private readonly port: string;
  private readonly prefix: string;
  private readonly agent: HttpAgent;
  private readonly request: typeof httpRequest;
  private readonly timeoutMs: number;
  private readonly maxBodyBytes: number;

  constructor(baseUrl: string, options: ControlPlaneHttpOptions = {}) {
    const base = new URL(baseUrl);
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new Error(`control plane URL ${baseUrl}: expected http: or https:`);
    if (base.username || base.password || base.search || base.hash) {
      throw new Error(`control plane URL ${baseUrl}: no credentials, query or fragment (the node token authenticates)`);
    }
    this.protocol = base.protocol;
    this.hostname = base.hostname.replace(/^\[(.*)\]$/, '$1');
    this.port = base.port;
    this.prefix = base.pathname.replace(/\/+$/, '');
    const https = base.protocol === 'https:';
    this.agent = https ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
    this.request = https ? httpsRequest : httpRequest;
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  }

  async send(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string): Promise<ControlPlaneAnswer> {
    try {
      return await this.once(method, path, headers, body);
    } catch (error) {
      if (!(error as { staleSocket?: boolean }).staleSocket) throw error;
      return this.once(method, path, headers, body);
    }
  }

  /** Closes the kept-alive sockets (NodeSync.stop). */
  close(): void {
    this.agent.destroy();
  }

  private once(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string): Promise<ControlPlaneAnswer> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const all: Record<string, string | number> = { ...headers };
      if (body !== undefined) all['content-length'] = Buffer.byteLength(body);
      const req = this.request({
        protocol: this.protocol,
        hostname: this.hostname,
        port: this.port,
        path: `${this.prefix}${path}`,
        method,
        headers: all,
        agent: this.agent,
      });
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.destroy();
        reject(error);
      };
      const timer = setTimeout(
        () => fail(new ControlPlaneRequestError(`no full answer within ${this.timeoutMs} ms`, 'ETIMEDOUT')),
        this.timeoutMs,
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        // The server closed a kept-alive socket as we reused it: nothing was answered, try a new one.
        const stale = req.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
        const code = error.code ?? 'EREQUEST';
        fail(Object.assign(new ControlPlaneRequestError(code, code), { staleSocket: stale }));
      });
      req.on('response', (res: IncomingMessage) => {
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > this.maxBodyBytes) {
          fail(this.tooLarge());
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > this.maxBodyBytes) {
            fail(this.tooLarge());
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', (error: NodeJS.ErrnoException) =>
          fail(new ControlPlaneRequestError(error.code ?? error.message, error.code ?? 'EREQUEST')),
        );
        res.on('aborted', () => fail(new ControlPlaneRequestError('the answer was cut off', 'ECONNRESET')));
        res.on('end', () => {
          if (settled) return;
          if (!res.complete) {
            fail(new ControlPlaneRequestError('the answer was cut off', 'ECONNRESET'));
            return;
          }
          settled = true;
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks, size).toString('utf8') });
        });
      });
      req.end(body);
    });
  }

  private tooLarge(): ControlPlaneRequestError {
    return new ControlPlaneRequestError(`the answer is larger than ${this.maxBodyBytes} bytes`, 'ETOOLARGE');
  }
}
