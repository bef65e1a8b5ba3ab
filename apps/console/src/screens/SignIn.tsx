import { useId, useState } from 'react';
import { devSignIn, oidcManager, type ConsoleSettings, type DevKind, type Session } from '../session';

/** Sign in: the organisation's OpenID provider, and in development the one-click development tokens. */
export function SignIn({ settings, onSignedIn, error }: { settings: ConsoleSettings; onSignedIn: (s: Session) => void; error?: string }) {
  const [team, setTeam] = useState('finance-agents-team');
  // A failure of this form's own sign-in; `error` (the API refusing the signed-in token, a failed
  // OIDC callback) arrives later, while this form is already mounted, so it is shown as it comes.
  const [failure, setFailure] = useState('');
  const shown = failure || error;
  const teamId = useId();
  const dev = async (kind: DevKind) => {
    try {
      onSignedIn(await devSignIn(kind, kind === 'team-admin' ? team : undefined));
    } catch (e) {
      setFailure(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <main className="signin" aria-labelledby="signin-title">
      <h1 id="signin-title">Capability control plane</h1>
      <p>Sign in to the admin console.</p>
      {shown && (
        <p role="alert" className="error">
          {shown}
        </p>
      )}
      {settings.oidc && (
        <button type="button" className="primary" onClick={() => void oidcManager(settings.oidc!).signinRedirect()}>
          Sign in with your organisation
        </button>
      )}
      {settings.devSignIn && (
        <section aria-labelledby="dev-title" className="card">
          <h2 id="dev-title">Development sign-in</h2>
          <p>Development tokens, signed with the development secret (never offered in production).</p>
          <div className="actions">
            <button type="button" onClick={() => void dev('admin')}>
              Platform admin
            </button>
            <button type="button" onClick={() => void dev('viewer')}>
              Viewer
            </button>
          </div>
          <div className="field">
            <label htmlFor={teamId}>Team</label>
            <input id={teamId} value={team} onChange={(e) => setTeam(e.target.value)} maxLength={64} />
          </div>
          <button type="button" onClick={() => void dev('team-admin')}>
            Team admin of this team
          </button>
        </section>
      )}
      {!settings.oidc && !settings.devSignIn && (
        <p>No sign-in is configured: set CONSOLE_OIDC_ISSUER and CONSOLE_OIDC_CLIENT_ID (docs/console.md).</p>
      )}
    </main>
  );
}
