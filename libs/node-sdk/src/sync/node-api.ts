/**
 * The node API as one node calls it: its token on every request, the trace headers of the
 * current span, and one keep-alive ControlPlaneHttp (ADR 0194) for the bundle GET and the POSTs.
 */
import { injectTraceHeaders } from '@cp/common/core';
import { nodeApiPaths } from '@cp/node-protocol';
import { ControlPlaneHttp, ControlPlaneRequestError, type ControlPlaneAnswer } from './control-plane-http';
import type { NodeSyncLogger } from './node-sync-types';

/** A POST's result; `status` is undefined when there was no answer (unreachable, timeout). */
export interface PostAnswer {
  ok: boolean;
  status?: number;
  detail: string;
}

export class NodeApi {
  private readonly http: ControlPlaneHttp;

  constructor(
    controlPlaneUrl: string,
    private readonly nodeToken: string,
    options: { timeoutMs?: number; maxBodyBytes?: number },
    private readonly log: NodeSyncLogger,
  ) {
    this.http = new ControlPlaneHttp(controlPlaneUrl, options);
  }

  /** GET bundle with the conditional headers the caller chose (If-None-Match, bundle-delta-base). Throws when unanswered. */
  getBundle(conditional: Record<string, string>): Promise<ControlPlaneAnswer> {
    const headers = injectTraceHeaders({ authorization: `Bearer ${this.nodeToken}`, accept: 'application/json' });
    return this.http.send('GET', nodeApiPaths.bundle, { ...headers, ...conditional });
  }

  /** One JSON POST; throws when there is no answer. */
  postJson(path: string, body: unknown): Promise<ControlPlaneAnswer> {
    const headers = injectTraceHeaders({ authorization: `Bearer ${this.nodeToken}`, 'content-type': 'application/json' });
    return this.http.send('POST', path, headers, JSON.stringify(body));
  }

  /** One POST, never throwing. */
  async send(path: string, body: unknown): Promise<PostAnswer> {
    try {
      const { status, text } = await this.postJson(path, body);
      return { ok: status >= 200 && status <= 299, status, detail: text.slice(0, 300) };
    } catch (error) {
      return { ok: false, detail: describeError(error) };
    }
  }

  /** send(), logging a refusal (warn) or a failure to reach the control plane (debug). */
  async post(path: string, body: unknown): Promise<boolean> {
    const answer = await this.send(path, body);
    if (!answer.ok && answer.status !== undefined) this.log.warn(`POST ${path} answered ${answer.status}: ${answer.detail}`);
    if (!answer.ok && answer.status === undefined) this.log.debug?.(`POST ${path} failed: ${answer.detail}`);
    return answer.ok;
  }

  /** Closes the kept-alive sockets (NodeSync.stop). */
  close(): void {
    this.http.close();
  }
}

/** The short reason a request got no answer: the error code where there is one. */
export function describeError(error: unknown): string {
  if (error instanceof ControlPlaneRequestError) return error.message;
  const e = error as Error & { cause?: { code?: string; message?: string } };
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(error);
}
