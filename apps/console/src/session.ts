import { UserManager, WebStorageStateStore } from 'oidc-client-ts';

/** GET /console/config.json (the control plane's consoleSettings). */
export interface ConsoleSettings {
  graphqlPath: string;
  oidc: { issuer: string; clientId: string; scope: string; resource: string | null } | null;
  devSignIn: boolean;
  /** How long a screen waits for the API before it offers a retry, and when its spinner shows (older control planes send neither). */
  apiTimeoutMs?: number;
  spinnerDelayMs?: number;
}

/** A signed-in session: the bearer token the API verifies, and where it came from. */
export interface Session {
  token: string;
  via: 'dev' | 'oidc';
  expiresAt: number;
}

export const BASE = '/console';
const KEY = 'cp-console-session';

export async function loadSettings(): Promise<ConsoleSettings> {
  const res = await fetch(`${BASE}/config.json`, { headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`the control plane answered HTTP ${res.status} for ${BASE}/config.json`);
  return (await res.json()) as ConsoleSettings;
}

/** The session lives in sessionStorage: one tab, gone when it closes, never in a cookie the API would accept. */
export function storedSession(now = Date.now()): Session | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    if (!raw) return null;
    const session = JSON.parse(raw) as Session;
    return typeof session.token === 'string' && session.expiresAt > now ? session : null;
  } catch {
    return null;
  }
}

export function storeSession(session: Session | null): void {
  if (session) sessionStorage.setItem(KEY, JSON.stringify(session));
  else sessionStorage.removeItem(KEY);
}

export type DevKind = 'admin' | 'team-admin' | 'viewer';

/** The one-click development sign-in: the control plane mints a development token (never in production). */
export async function devSignIn(kind: DevKind, team?: string): Promise<Session> {
  const res = await fetch(`${BASE}/dev-sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(kind === 'team-admin' ? { kind, team } : { kind }),
  });
  const body = (await res.json().catch(() => ({}))) as { token?: string; expiresIn?: number; error?: { code: string; message: string } };
  if (!res.ok || !body.token)
    throw new Error(body.error ? `${body.error.code}: ${body.error.message}` : `sign-in failed (HTTP ${res.status})`);
  return { token: body.token, via: 'dev', expiresAt: Date.now() + (body.expiresIn ?? 3600) * 1000 };
}

/** Authorization code with PKCE (oidc-client-ts does the PKCE, state and nonce). */
export function oidcManager(oidc: NonNullable<ConsoleSettings['oidc']>): UserManager {
  const origin = window.location.origin;
  const resource = oidc.resource ? { resource: oidc.resource } : undefined;
  return new UserManager({
    authority: oidc.issuer,
    client_id: oidc.clientId,
    redirect_uri: `${origin}${BASE}/callback`,
    post_logout_redirect_uri: `${origin}${BASE}/`,
    response_type: 'code',
    scope: oidc.scope,
    extraQueryParams: resource,
    extraTokenParams: resource,
    automaticSilentRenew: false,
    userStore: new WebStorageStateStore({ store: window.sessionStorage }),
    stateStore: new WebStorageStateStore({ store: window.sessionStorage }),
  });
}

/**
 * One code exchange per callback URL: an authorization code is good once, and React may run the
 * effect that calls this twice (StrictMode, remounts); the second call gets the first one's answer.
 */
const callbacks = new Map<string, Promise<Session>>();

export function completeOidcSignIn(oidc: NonNullable<ConsoleSettings['oidc']>, url = window.location.href): Promise<Session> {
  let pending = callbacks.get(url);
  if (!pending) {
    pending = oidcManager(oidc)
      .signinRedirectCallback(url)
      .then((user) => ({ token: user.access_token, via: 'oidc' as const, expiresAt: (user.expires_at ?? Date.now() / 1000 + 300) * 1000 }));
    callbacks.set(url, pending);
  }
  return pending;
}
