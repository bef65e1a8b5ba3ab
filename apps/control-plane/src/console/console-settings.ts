import { isLoopbackHost, type AppConfig } from '@cp/common';

/** Where the console is served (its Vite `base`). */
export const CONSOLE_PATH = '/console';

/** What the console fetches at start (GET /console/config.json): how to sign in. Nothing secret. */
export interface ConsoleSettings {
  graphqlPath: string;
  /** Authorization code + PKCE against this provider; null when none is configured. */
  oidc: { issuer: string; clientId: string; scope: string; resource: string | null } | null;
  /** Whether POST /console/dev-sign-in mints development tokens (never in production). */
  devSignIn: boolean;
  /** How long a screen waits for the API before it offers a retry, and when its spinner shows. */
  apiTimeoutMs: number;
  spinnerDelayMs: number;
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
    apiTimeoutMs: config.CONSOLE_API_TIMEOUT_MS,
    spinnerDelayMs: config.CONSOLE_SPINNER_DELAY_MS,
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

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** `127.0.0.1:3000` → `127.0.0.1`, `[::1]:3000` → `::1`; undefined when it is no host[:port]. */
function hostOf(value: string): string | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::\d{1,5})?$/i.exec(value.trim());
  return match?.[1];
}

/**
 * Why a POST /console/dev-sign-in may not be answered even though the sign-in is on (ADR 0210).
 * The server listens on loopback only, but a page elsewhere can still reach it: through DNS
 * rebinding (the browser sends the attacker's name as Host and its origin as Origin) or through a
 * reverse proxy on the same host (which forwards anyone's request from loopback). So the request
 * must name a loopback Host, come from no proxy, and, from a browser, from a loopback origin.
 */
export function devSignInRefusal(headers: Headers): string | undefined {
  const host = headers.host;
  const hostName = typeof host === 'string' ? hostOf(host) : undefined;
  if (!hostName || !isLoopbackHost(hostName)) {
    return 'the development sign-in answers only requests to a loopback Host (localhost, 127.0.0.1, [::1])';
  }
  if (['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-real-ip'].some((name) => headers[name] !== undefined)) {
    return 'the development sign-in does not answer requests forwarded by a proxy';
  }
  const origin = headers.origin;
  if (origin !== undefined) {
    let originHost: string | undefined;
    try {
      originHost = typeof origin === 'string' && origin !== 'null' ? new URL(origin).hostname : undefined;
    } catch {
      originHost = undefined;
    }
    if (!originHost || !isLoopbackHost(originHost))
      return 'the development sign-in answers only pages served from this machine (a cross-site Origin)';
  }
  if (headers['sec-fetch-site'] === 'cross-site')
    return 'the development sign-in answers only pages served from this machine (Sec-Fetch-Site: cross-site)';
  return undefined;
}
