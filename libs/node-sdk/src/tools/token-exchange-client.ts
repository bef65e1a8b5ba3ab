/** Client of the control plane's POST /node/v1/token-exchange (node JWT + the caller's a2a token). */
import { inSpan, injectTraceHeaders, markSpanError, SpanKind } from '@cp/common/core';
import { nodeApiPaths } from '@cp/node-protocol';
import { ToolError, ToolErrorCode } from './tool-errors';

export interface ExchangedToken {
  accessToken: string;
  /** Epoch ms. */
  expiresAt: number;
  scopes: string[];
}

export interface TokenExchanger {
  exchange(request: { subjectToken: string; tool: string; capabilityId: string }): Promise<ExchangedToken>;
}

export class HttpTokenExchanger implements TokenExchanger {
  constructor(
    private readonly controlPlaneUrl: string,
    /** The node's own credential: stays inside the gateway, never reaches a handler. */
    private readonly nodeToken: () => string,
    private readonly timeoutMs = 5000,
  ) {}

  /** A CLIENT span; the control plane continues the trace from the `traceparent` header. */
  exchange(request: { subjectToken: string; tool: string; capabilityId: string }): Promise<ExchangedToken> {
    return inSpan(
      'tool.token_exchange',
      { 'tool.name': request.tool, 'a2a.capability.id': request.capabilityId },
      async (span) => {
        try {
          return await this.post(request);
        } catch (error) {
          markSpanError(span, (error as ToolError).code ?? 'EXCHANGE_FAILED');
          throw error;
        }
      },
      { kind: SpanKind.CLIENT },
    );
  }

  /** An upstream token (ADR 0231): audience the capability's upstream, subject the caller, act the node. */
  exchangeUpstream(request: { subjectToken: string; capabilityId: string }): Promise<ExchangedToken> {
    return inSpan(
      'upstream.token_exchange',
      { 'a2a.capability.id': request.capabilityId },
      () => this.post({ ...request, kind: 'upstream' }),
      {
        kind: SpanKind.CLIENT,
      },
    );
  }

  private async post(request: { subjectToken: string; tool?: string; kind?: 'upstream'; capabilityId: string }): Promise<ExchangedToken> {
    let res: Response;
    try {
      res = await fetch(new URL(nodeApiPaths.tokenExchange, this.controlPlaneUrl), {
        method: 'POST',
        headers: injectTraceHeaders({ authorization: `Bearer ${this.nodeToken()}`, 'content-type': 'application/json' }),
        body: JSON.stringify(request),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new ToolError(ToolErrorCode.ExchangeUnavailable, `token exchange unreachable: ${(error as Error).message}`);
    }
    const body = (await res.json().catch(() => ({}))) as {
      accessToken?: string;
      expiresIn?: number;
      scopes?: string[];
      error?: { message?: string };
    };
    if (res.status >= 500) throw new ToolError(ToolErrorCode.ExchangeUnavailable, `token exchange failed with HTTP ${res.status}`);
    if (!res.ok || typeof body.accessToken !== 'string' || typeof body.expiresIn !== 'number') {
      throw new ToolError(
        ToolErrorCode.ExchangeRefused,
        `token exchange refused (HTTP ${res.status}): ${body.error?.message ?? 'no reason given'}`,
      );
    }
    return { accessToken: body.accessToken, expiresAt: Date.now() + body.expiresIn * 1000, scopes: body.scopes ?? [] };
  }
}
