/**
 * What every A2A operation is given: who calls, in which protocol version, and where it logs.
 * Its own file so that the push code (push/*), which a2a-service.ts uses, can name these without
 * an import cycle (issue 29); a2a-service.ts re-exports them.
 */
import type { Caller } from '@cp/capabilities';
import type { ProtocolVersion } from './version';

export interface RequestContext {
  caller: Caller;
  /** The caller's raw token (token exchange); undefined for anonymous. */
  token?: string;
  /** Raw A2A-Extensions request header. */
  extensions?: string | string[];
  /** The protocol version the request speaks (0.3 requests are translated at the edge; default 1.0). */
  version?: ProtocolVersion;
}

export interface A2ALog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}
