/**
 * The tool gateway (no confused deputy): a handler calls tools only through it, and every call
 * carries a credential downscoped to the CALLER (token exchange at the control plane: scopes =
 * caller ∩ tool, tenant pinned, act_sub = the caller), never the node's own. Every invocation is
 * logged with principal, tenant, tool and capability.
 */
import type { Caller } from '@cp/capabilities';
import { currentTraceId, inSpan, markSpanError, SpanKind, type Span } from '@cp/common/core';
import { NO_TOOL_OBSERVER, type ToolObserver } from '../observability/observer';
import type { TokenExchanger } from './token-exchange-client';
import { ToolError, ToolErrorCode } from './tool-errors';

/** A tool implementation receives only the downscoped credential. */
export type ToolImplementation = (input: unknown, credential: { token: string }) => Promise<unknown>;

/** What a handler sees: call a tool by name. */
export interface ToolInvoker {
  call<T = unknown>(tool: string, input: unknown): Promise<T>;
}

export interface ToolCallLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

const REUSE_MARGIN_MS = 30_000;

export class ToolGateway {
  private readonly cache = new Map<string, { token: string; expiresAt: number; scopes: string[] }>();

  constructor(
    private readonly exchanger: TokenExchanger,
    private readonly tools: ReadonlyMap<string, ToolImplementation>,
    private readonly log: ToolCallLog,
    private readonly maxCached = 1000,
    private readonly observer: ToolObserver = NO_TOOL_OBSERVER,
  ) {}

  /** Names of the tools registered here (the metrics' known set). */
  get toolNames(): string[] {
    return [...this.tools.keys()];
  }

  /** The invoker for one handler invocation: bound to its caller, caller token and capability. */
  forCall(scope: { caller: Caller; callerToken?: string; capabilityId: string }): ToolInvoker {
    return { call: (tool, input) => this.invoke(scope, tool, input) as Promise<never> };
  }

  /**
   * One tool call in a CLIENT span (tool, capability, tenant; never a token). The log line is the
   * node's half of the audit trail: trace id and the delegation chain, caller → capability → tool,
   * with the scopes the control plane actually granted.
   */
  private invoke(scope: { caller: Caller; callerToken?: string; capabilityId: string }, tool: string, input: unknown): Promise<unknown> {
    const attributes = { 'tool.name': tool, 'a2a.capability.id': scope.capabilityId, 'a2a.tenant': scope.caller?.tenant ?? '' };
    return inSpan(`tool.call ${this.tools.has(tool) ? tool : 'unknown'}`, attributes, (span) => this.call(scope, tool, input, span), {
      kind: SpanKind.CLIENT,
    });
  }

  private async call(
    scope: { caller: Caller; callerToken?: string; capabilityId: string },
    tool: string,
    input: unknown,
    span: Span | undefined,
  ): Promise<unknown> {
    const fields: Record<string, unknown> = {
      principal: scope.caller?.principal ?? 'anonymous',
      tenant: scope.caller?.tenant ?? null,
      tool,
      capability: scope.capabilityId,
      traceId: currentTraceId(),
    };
    const impl = this.tools.get(tool);
    let granted = false;
    try {
      if (!impl) throw new ToolError(ToolErrorCode.UnknownTool, `no tool named "${tool}" is registered on this node`);
      // An anonymous caller has no credential to narrow: it gets no tool access at all.
      if (scope.caller === null || !scope.callerToken)
        throw new ToolError(ToolErrorCode.NoCallerCredential, `tool "${tool}" needs an authenticated caller`);
      const credential = await this.credential(scope.callerToken, tool, scope.capabilityId);
      granted = true;
      fields.delegation = { principal: fields.principal, capability: scope.capabilityId, tool, scopes: credential.scopes };
      this.log.info(fields, 'tool invocation');
      const answer = await impl(input, { token: credential.token });
      this.observer.call(tool, 'ok');
      return answer;
    } catch (error) {
      this.observer.call(tool, granted ? 'failed' : 'refused');
      markSpanError(span, error instanceof ToolError ? error.code : 'TOOL_FAILED');
      this.log.warn({ ...fields, error: (error as Error).message }, 'tool invocation refused or failed');
      throw error;
    }
  }

  private async credential(callerToken: string, tool: string, capabilityId: string): Promise<{ token: string; scopes: string[] }> {
    const key = `${tool}\u0000${capabilityId}\u0000${callerToken}`;
    const hit = this.cache.get(key);
    if (hit && hit.expiresAt - REUSE_MARGIN_MS > Date.now()) {
      this.observer.token('cached');
      return hit;
    }
    let exchanged;
    try {
      exchanged = await this.exchanger.exchange({ subjectToken: callerToken, tool, capabilityId });
    } catch (error) {
      this.observer.token(error instanceof ToolError && error.code === ToolErrorCode.ExchangeRefused ? 'refused' : 'unavailable');
      throw error;
    }
    this.observer.token('exchanged');
    const entry = { token: exchanged.accessToken, expiresAt: exchanged.expiresAt, scopes: exchanged.scopes };
    this.cache.delete(key);
    this.cache.set(key, entry);
    while (this.cache.size > this.maxCached) this.cache.delete(this.cache.keys().next().value!);
    return entry;
  }
}
