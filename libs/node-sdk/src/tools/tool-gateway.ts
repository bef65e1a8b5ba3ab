/**
 * The tool gateway (no confused deputy): a handler calls tools only through it, and every call
 * carries a credential downscoped to the CALLER (token exchange at the control plane: scopes =
 * caller ∩ tool, tenant pinned, act_sub = the caller), never the node's own. Every invocation is
 * logged with principal, tenant, tool and capability.
 */
import type { Caller } from '@cp/capabilities';
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
  private readonly cache = new Map<string, { token: string; expiresAt: number }>();

  constructor(
    private readonly exchanger: TokenExchanger,
    private readonly tools: ReadonlyMap<string, ToolImplementation>,
    private readonly log: ToolCallLog,
    private readonly maxCached = 1000,
  ) {}

  /** The invoker for one handler invocation: bound to its caller, caller token and capability. */
  forCall(scope: { caller: Caller; callerToken?: string; capabilityId: string }): ToolInvoker {
    return { call: (tool, input) => this.invoke(scope, tool, input) as Promise<never> };
  }

  private async invoke(
    scope: { caller: Caller; callerToken?: string; capabilityId: string },
    tool: string,
    input: unknown,
  ): Promise<unknown> {
    const fields = {
      principal: scope.caller?.principal ?? 'anonymous',
      tenant: scope.caller?.tenant ?? null,
      tool,
      capability: scope.capabilityId,
    };
    const impl = this.tools.get(tool);
    try {
      if (!impl) throw new ToolError(ToolErrorCode.UnknownTool, `no tool named "${tool}" is registered on this node`);
      // An anonymous caller has no credential to narrow: it gets no tool access at all.
      if (scope.caller === null || !scope.callerToken)
        throw new ToolError(ToolErrorCode.NoCallerCredential, `tool "${tool}" needs an authenticated caller`);
      const token = await this.credential(scope.callerToken, tool, scope.capabilityId);
      this.log.info(fields, 'tool invocation');
      return await impl(input, { token });
    } catch (error) {
      this.log.warn({ ...fields, error: (error as Error).message }, 'tool invocation refused or failed');
      throw error;
    }
  }

  private async credential(callerToken: string, tool: string, capabilityId: string): Promise<string> {
    const key = `${tool}\u0000${capabilityId}\u0000${callerToken}`;
    const hit = this.cache.get(key);
    if (hit && hit.expiresAt - REUSE_MARGIN_MS > Date.now()) return hit.token;
    const exchanged = await this.exchanger.exchange({ subjectToken: callerToken, tool, capabilityId });
    this.cache.delete(key);
    this.cache.set(key, { token: exchanged.accessToken, expiresAt: exchanged.expiresAt });
    while (this.cache.size > this.maxCached) this.cache.delete(this.cache.keys().next().value!);
    return exchanged.accessToken;
  }
}
