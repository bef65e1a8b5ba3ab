import type { AppConfig } from '@cp/common';

/** Where the console is served (its Vite `base`). */
export const CONSOLE_PATH = '/console';

/** What the console fetches at start (GET /console/config.json): how to sign in. Nothing secret. */
export interface ConsoleSettings {
  graphqlPath: string;
  /** Authorization code + PKCE against this provider; null when none is configured. */
  oidc: { issuer: string; clientId: string; scope: string; resource: string | null } | null;
  /** Whether POST /console/dev-sign-in mints development tokens (never in production). */
  devSignIn: boolean;
}

export function consoleSettings(config: AppConfig): ConsoleSettings {
  return {
    graphqlPath: '/graphql',
    oidc:
      config.CONSOLE_OIDC_ISSUER && config.CONSOLE_OIDC_CLIENT_ID
        ? {
            issuer: config.CONSOLE_OIDC_ISSUER,
            clientId: config.CONSOLE_OIDC_CLIENT_ID,
            scope: config.CONSOLE_OIDC_SCOPE,
            resource: config.CONSOLE_OIDC_RESOURCE ?? null,
          }
        : null,
    devSignIn: config.CONSOLE_DEV_SIGN_IN,
  };
}

/**
 * The console's Content-Security-Policy: its own scripts only (Vite emits no inline script), the
 * API on this origin, and the OpenID provider's origin for discovery and the token request.
 * Inline styles are allowed (the charting library and the editor set style attributes).
 */
export function consoleCsp(config: Pick<AppConfig, 'CONSOLE_OIDC_ISSUER'>): string {
  const connect = ["'self'", ...(config.CONSOLE_OIDC_ISSUER ? [new URL(config.CONSOLE_OIDC_ISSUER).origin] : [])];
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src ${connect.join(' ')}`,
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Vite's hashed assets never change under their name; everything else is revalidated. */
export function cacheControlFor(relativePath: string): string {
  return /^assets\/[^/]+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/.test(relativePath) ? 'public, max-age=31536000, immutable' : 'no-cache';
}

export const DEV_SIGN_IN_KINDS = ['admin', 'team-admin', 'viewer'] as const;
export type DevSignInKind = (typeof DEV_SIGN_IN_KINDS)[number];
const TEAM = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/** The body of POST /console/dev-sign-in, checked: what is wrong is named, nothing is echoed back raw. */
export function parseDevSignIn(body: unknown): { kind: DevSignInKind; team?: string } | { error: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { error: 'the body must be a JSON object' };
  const { kind, team, ...rest } = body as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length)
    return {
      error: `unknown field(s): ${extra
        .slice(0, 5)
        .map((k) => JSON.stringify(k.slice(0, 40)))
        .join(', ')}`,
    };
  if (typeof kind !== 'string' || !(DEV_SIGN_IN_KINDS as readonly string[]).includes(kind))
    return { error: `"kind" must be one of ${DEV_SIGN_IN_KINDS.join(', ')}` };
  if (kind !== 'team-admin') return team === undefined ? { kind: kind as DevSignInKind } : { error: '"team" is only for kind team-admin' };
  if (typeof team !== 'string' || team.length > 64 || !TEAM.test(team))
    return { error: '"team" must be a team id (a slug of at most 64 characters)' };
  return { kind, team };
}
