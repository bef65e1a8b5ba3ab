/** What every command gets: the reporter, the environment-derived settings, and a client factory. */
import { GraphQLClient } from './api/graphql-client';
import type { Reporter } from './output/reporter';

export const DEFAULT_URL = 'http://127.0.0.1:3000/graphql';
export const DEFAULT_TIMEOUT_MS = 15_000;

export interface GlobalOptions {
  json?: boolean;
  url?: string;
}

export interface CommandContext {
  reporter: Reporter;
  env: Record<string, string | undefined>;
  global: GlobalOptions;
}

/** --url, else CPCTL_URL, else the local default; the token only ever comes from CPCTL_TOKEN. */
export function clientFor(ctx: CommandContext): GraphQLClient {
  const timeout = Number(ctx.env.CPCTL_TIMEOUT_MS);
  return new GraphQLClient({
    url: ctx.global.url ?? ctx.env.CPCTL_URL ?? DEFAULT_URL,
    token: ctx.env.CPCTL_TOKEN || undefined,
    timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : DEFAULT_TIMEOUT_MS,
  });
}
