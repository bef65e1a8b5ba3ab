import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react';
import { Api, toApiError, type ApiError } from './api/client';
import { MeQuery } from './api/operations';
import { ErrorBox } from './components/ErrorBox';
import { ConsoleContext, type Me } from './context';
import { AgentScreen } from './screens/AgentScreen';
import { AgentsScreen } from './screens/AgentsScreen';
import { AuditScreen } from './screens/AuditScreen';
import { ChangeRequestsScreen } from './screens/ChangeRequestsScreen';
import { CallerScreen } from './screens/CallerScreen';
import { FleetScreen } from './screens/FleetScreen';
import { PlanScreen } from './screens/PlanScreen';
import { SignIn } from './screens/SignIn';
import { UsageScreen } from './screens/UsageScreen';
import { BASE, completeOidcSignIn, oidcManager, storeSession, storedSession, type ConsoleSettings, type Session } from './session';

const ExplorerScreen = lazy(() => import('./screens/ExplorerScreen'));

const NAV = [
  ['/', 'Agents'],
  ['/caller', 'View as caller'],
  ['/plan', 'Plan & apply'],
  ['/fleet', 'Fleet'],
  ['/usage', 'Usage'],
  ['/audit', 'Audit log'],
  ['/change-requests', 'Approvals'],
  ['/explorer', 'GraphQL explorer'],
] as const;

/** The path inside the console (without /console). */
function currentPath(): string {
  const path = window.location.pathname.startsWith(BASE) ? window.location.pathname.slice(BASE.length) : '/';
  return path || '/';
}

export function App({ settings }: { settings: ConsoleSettings }) {
  const [session, setSession] = useState<Session | null>(() => storedSession());
  const [path, setPath] = useState(currentPath);
  const [me, setMe] = useState<Me>();
  const [meError, setMeError] = useState<ApiError>();
  const [signInError, setSignInError] = useState('');
  // graphql-request needs an absolute URL.
  const api = useMemo(
    () => new Api(new URL(settings.graphqlPath, window.location.origin).href, () => session?.token ?? null),
    [settings, session],
  );

  const navigate = useCallback((to: string) => {
    window.history.pushState(null, '', `${BASE}${to}`);
    setPath(to);
  }, []);
  useEffect(() => {
    const onPop = () => setPath(currentPath());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);

  // The OpenID provider sends the browser back to /console/callback?code=…&state=…
  useEffect(() => {
    if (path !== '/callback' || !settings.oidc) return;
    completeOidcSignIn(settings.oidc).then(
      (s) => (storeSession(s), setSignInError(''), setMeError(undefined), setSession(s), navigate('/')),
      (e: unknown) => (setSignInError(`sign-in failed: ${e instanceof Error ? e.message : String(e)}`), navigate('/')),
    );
  }, [path, settings, navigate]);

  useEffect(() => {
    if (!session) return;
    api.request(MeQuery, {}).then(
      (r) => (setMe(r.me), setMeError(undefined)),
      (e: unknown) => {
        const error = toApiError(e);
        // A token the API refuses is of no further use: a reload starts at the sign-in, not at this error.
        if (error.code === 'UNAUTHENTICATED') storeSession(null);
        setMeError(error);
      },
    );
  }, [api, session]);

  const signOut = () => {
    storeSession(null);
    setSession(null);
    setMe(undefined);
    if (session?.via === 'oidc' && settings.oidc) void oidcManager(settings.oidc).removeUser();
  };

  if (!session || (meError && meError.code === 'UNAUTHENTICATED')) {
    return (
      <SignIn
        settings={settings}
        error={signInError || (meError ? `${meError.code}: ${meError.message}` : undefined)}
        onSignedIn={(s) => {
          storeSession(s);
          setSignInError('');
          setMeError(undefined);
          setSession(s);
        }}
      />
    );
  }
  if (!me) return <main aria-busy="true">{meError ? <ErrorBox error={meError} /> : <p>Signing in…</p>}</main>;

  const agentMatch = /^\/agents\/([^/]+)$/.exec(path);
  const screen = agentMatch ? (
    <AgentScreen agentId={decodeURIComponent(agentMatch[1]!)} />
  ) : path === '/caller' ? (
    <CallerScreen />
  ) : path === '/plan' ? (
    <PlanScreen />
  ) : path === '/fleet' ? (
    <FleetScreen />
  ) : path === '/usage' ? (
    <UsageScreen />
  ) : path === '/audit' ? (
    <AuditScreen />
  ) : path === '/change-requests' ? (
    <ChangeRequestsScreen />
  ) : path === '/explorer' ? (
    <Suspense fallback={<p>Loading the explorer…</p>}>
      <ExplorerScreen token={session.token} />
    </Suspense>
  ) : (
    <AgentsScreen />
  );

  return (
    <ConsoleContext.Provider value={{ api, me, navigate }}>
      <a href="#main" className="skip">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Capability control plane</span>
        <nav aria-label="Screens">
          <ul>
            {NAV.map(([to, label]) => (
              <li key={to}>
                <a
                  href={`${BASE}${to}`}
                  aria-current={path === to || (to === '/' && !!agentMatch) ? 'page' : undefined}
                  onClick={(e) => {
                    e.preventDefault();
                    navigate(to);
                  }}
                >
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span className="who" data-testid="who">
          {me.subject} · {me.roles.join(', ')}
          {me.teams.length > 0 && ` · ${me.teams.join(', ')}`}
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {screen}
      </main>
    </ConsoleContext.Provider>
  );
}
