import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react';
import { Api, type ApiError } from './api/client';
import { MeQuery } from './api/operations';
import { LoadState } from './components/LoadState';
import { ConsoleContext, DEFAULT_TIMING, TimingContext, useLoad } from './context';
import { AgentScreen } from './screens/AgentScreen';
import { AgentsScreen } from './screens/AgentsScreen';
import { AuditScreen } from './screens/AuditScreen';
import { ChangeRequestsScreen } from './screens/ChangeRequestsScreen';
import { CallerScreen } from './screens/CallerScreen';
import { DirectoryScreen } from './screens/DirectoryScreen';
import { FleetScreen } from './screens/FleetScreen';
import { PlanScreen } from './screens/PlanScreen';
import { SettingsScreen } from './screens/SettingsScreen';
import { SignIn } from './screens/SignIn';
import { UsageScreen } from './screens/UsageScreen';
import { Title } from './url';
import { BASE, completeOidcSignIn, oidcManager, storeSession, storedSession, type ConsoleSettings, type Session } from './session';

const ExplorerScreen = lazy(() => import('./screens/ExplorerScreen'));

const NAV = [
  ['/', 'Agents'],
  ['/caller', 'View as caller'],
  ['/plan', 'Plan & apply'],
  ['/fleet', 'Fleet'],
  ['/usage', 'Usage'],
  ['/audit', 'Audit log'],
  ['/directory', 'Directory'],
  ['/change-requests', 'Approvals'],
  ['/settings', 'Settings'],
  ['/explorer', 'GraphQL'],
] as const;

/** The path inside the console (without /console and without the query). */
function currentPath(): string {
  const path = window.location.pathname.startsWith(BASE) ? window.location.pathname.slice(BASE.length) : '/';
  return path || '/';
}

export function App({ settings }: { settings: ConsoleSettings }) {
  const timing = useMemo(
    () => ({
      apiTimeoutMs: settings.apiTimeoutMs ?? DEFAULT_TIMING.apiTimeoutMs,
      spinnerDelayMs: settings.spinnerDelayMs ?? DEFAULT_TIMING.spinnerDelayMs,
    }),
    [settings],
  );
  return (
    <TimingContext.Provider value={timing}>
      <Console settings={settings} />
    </TimingContext.Provider>
  );
}

function Console({ settings }: { settings: ConsoleSettings }) {
  const [session, setSession] = useState<Session | null>(() => storedSession());
  const [path, setPath] = useState(currentPath);
  const [signInError, setSignInError] = useState('');
  // graphql-request needs an absolute URL.
  const api = useMemo(
    () => new Api(new URL(settings.graphqlPath, window.location.origin).href, () => session?.token ?? null),
    [settings, session],
  );

  const navigate = useCallback((to: string) => {
    window.history.pushState(null, '', `${BASE}${to}`);
    setPath(currentPath());
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
      (s) => (storeSession(s), setSignInError(''), setSession(s), navigate('/')),
      (e: unknown) => (setSignInError(`sign-in failed: ${e instanceof Error ? e.message : String(e)}`), navigate('/')),
    );
  }, [path, settings, navigate]);

  const meLoad = useLoad(session ? `me:${session.token}` : null, () => api.request(MeQuery, {}));
  const me = meLoad.data?.me;
  const meError: ApiError | undefined = meLoad.error;
  // A token the API refuses is of no further use: a reload starts at the sign-in, not at this error.
  useEffect(() => {
    if (meError?.code === 'UNAUTHENTICATED') storeSession(null);
  }, [meError]);

  const signOut = () => {
    storeSession(null);
    setSession(null);
    if (session?.via === 'oidc' && settings.oidc) void oidcManager(settings.oidc).removeUser();
  };

  if (!session || (meError && meError.code === 'UNAUTHENTICATED')) {
    return (
      <>
        <Title name="Sign in" />
        <SignIn
          settings={settings}
          error={signInError || (meError ? `${meError.code}: ${meError.message}` : undefined)}
          onSignedIn={(s) => {
            storeSession(s);
            setSignInError('');
            setSession(s);
          }}
        />
      </>
    );
  }
  const agentMatch = /^\/agents\/([^/]+)$/.exec(path);
  const header = (
    <>
      <a href="#main" className="skip">
        Skip to content
      </a>
      <header className="top">
        <span className="brand" title="Capability control plane">
          Control plane
        </span>
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
        <span className="user">
          <span
            className="who"
            data-testid="who"
            title={me ? `${me.subject} · ${me.roles.join(', ')}${me.teams.length ? ` · ${me.teams.join(', ')}` : ''}` : undefined}
          >
            {me ? (
              <>
                {me.subject} · {me.roles.join(', ')}
                {me.teams.length > 0 && ` · ${me.teams.join(', ')}`}
              </>
            ) : (
              'not signed in yet'
            )}
          </span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </span>
      </header>
    </>
  );

  // The shell stands even when the API does not answer: the navigation, the sign-out, what went wrong and a retry.
  if (!me)
    return (
      <>
        <Title name={meError || meLoad.timedOut ? 'API unavailable' : 'Signing in'} />
        {header}
        <main id="main" tabIndex={-1} aria-busy={!meError && !meLoad.timedOut}>
          <h1>{meError || meLoad.timedOut ? 'The control plane API is not answering' : 'Signing in…'}</h1>
          <LoadState loads={[meLoad]} what="who you are" />
        </main>
      </>
    );

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
  ) : path === '/directory' ? (
    <DirectoryScreen />
  ) : path === '/change-requests' ? (
    <ChangeRequestsScreen />
  ) : path === '/settings' ? (
    <SettingsScreen />
  ) : path === '/explorer' ? (
    <Suspense fallback={<p role="status">Loading the explorer…</p>}>
      <ExplorerScreen token={session.token} />
    </Suspense>
  ) : (
    <AgentsScreen />
  );

  return (
    <ConsoleContext.Provider value={{ api, me, navigate }}>
      {header}
      <main id="main" tabIndex={-1}>
        {screen}
      </main>
    </ConsoleContext.Provider>
  );
}
