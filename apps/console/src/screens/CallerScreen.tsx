import { useId, useState } from 'react';
import { toApiError, type ApiError } from '../api/client';
import { CallerViewQuery, CallersQuery, ExplainQuery, ExtendedCardQuery, RouteTestQuery } from '../api/operations';
import { AgentPicker } from '../components/AgentPicker';
import { ErrorBox } from '../components/ErrorBox';
import { ExplainView, type Explanation } from '../components/ExplainView';
import { Json } from '../components/Json';
import { RouteDecision, type RouteResult } from '../components/RouteDecision';
import { useConsole, useLoad } from '../context';
import { useTitle, useUrlList, useUrlState } from '../url';
import { LoadState } from '../components/LoadState';

/**
 * View as caller: a tenant and scopes (or anonymous), and what that caller gets from the agent:
 * public card, extended card, router index, execution policy; explainVisibility on any
 * capability; a test message routed through that agent's router.
 */
export function CallerScreen() {
  const { api } = useConsole();
  const [agentId, setAgentId] = useUrlState('agent');
  const [tenant, setTenant] = useUrlState('tenant');
  const [scopes, setScopes] = useUrlList('scopes');
  const tenantId = useId();
  const callers = useLoad('callers', () => api.request(CallersQuery, {}));
  const as = tenant ? { tenant, scopes } : null;
  const caller = tenant ? `${tenant}${scopes.length ? ` [${scopes.join(' ')}]` : ''}` : 'anonymous';
  const key = agentId ? `caller:${agentId}:${tenant}:${scopes.join(',')}` : null;
  const view = useLoad(key, () => api.request(CallerViewQuery, { agentId, as }));
  const extended = useLoad(key && tenant ? key : null, () => api.request(ExtendedCardQuery, { agentId, as: { tenant, scopes } }));
  useTitle('View as caller', agentId, agentId && caller);
  const [explained, setExplained] = useState<{ explanation?: Explanation; error?: ApiError }>({});

  const explain = async (capabilityId: string) => {
    try {
      const r = await api.request(ExplainQuery, { agentId, as, capabilityId });
      setExplained({ explanation: r.explainVisibility });
    } catch (error) {
      setExplained({ error: toApiError(error) });
    }
  };

  return (
    <section aria-labelledby="caller-title">
      <h1 id="caller-title">View as caller</h1>
      <div className="filters">
        <AgentPicker value={agentId} onChange={setAgentId} />
        <div className="field">
          <label htmlFor={tenantId}>Caller</label>
          <select
            id={tenantId}
            value={tenant}
            onChange={(e) => {
              setTenant(e.target.value);
              setExplained({});
            }}
          >
            <option value="">Anonymous (no token)</option>
            {(callers.data?.tenants.nodes ?? []).map((t) => (
              <option key={t.id} value={t.id}>
                {t.name} ({t.id})
              </option>
            ))}
          </select>
        </div>
        {tenant && (
          <fieldset className="field">
            <legend>Scopes in the token</legend>
            {(callers.data?.scopes.nodes ?? []).map((s) => (
              <label key={s.name} className="check">
                <input
                  type="checkbox"
                  checked={scopes.includes(s.name)}
                  onChange={(e) => setScopes(e.target.checked ? [...scopes, s.name].sort() : scopes.filter((x) => x !== s.name))}
                />{' '}
                {s.name}
              </label>
            ))}
          </fieldset>
        )}
      </div>
      <LoadState loads={[callers, view]} what="what this caller sees" />
      {view.data && (
        <>
          <h2>Capabilities for {caller}</h2>
          <p>Why can or cannot this caller see a capability? Pick one:</p>
          <ul className="chips" aria-label="Explain a capability">
            {view.data.manifests.nodes.map((m) => (
              <li key={m.id}>
                <button type="button" onClick={() => void explain(m.id)} aria-label={`Explain ${m.id} for ${caller}`}>
                  {m.id}{' '}
                  <small>
                    ({m.state}, {m.visibility})
                  </small>
                </button>
              </li>
            ))}
          </ul>
          <ErrorBox error={explained.error} />
          {explained.explanation && <ExplainView explanation={explained.explanation} caller={caller} />}
          <RouteTester agentId={agentId} tenant={tenant} scopes={scopes} caller={caller} />
          <div className="grid">
            <div>
              <h2>Public card</h2>
              <p>revision {view.data.publicCard.revision}, what everyone sees</p>
              <Json value={view.data.publicCard.card} label="Public card" />
            </div>
            <div>
              <h2>Extended card</h2>
              {tenant ? (
                <>
                  <ErrorBox error={extended.error} />
                  {extended.data && <Json value={extended.data.extendedCard.card} label={`Extended card for ${caller}`} />}
                </>
              ) : (
                <p>An anonymous caller has no extended card: it sees the public card only.</p>
              )}
            </div>
            <div>
              <h2>Router index</h2>
              <Json value={view.data.routerIndex.value} label={`Router index for ${caller}`} />
            </div>
            <div>
              <h2>Execution policy</h2>
              <Json value={view.data.executionPolicy.value} label={`Execution policy for ${caller}`} />
            </div>
          </div>
        </>
      )}
    </section>
  );
}

/** A test message through the router index this caller gets (routeTest with the caller's tenant and scopes), and the decision layer by layer. */
function RouteTester({ agentId, tenant, scopes, caller }: { agentId: string; tenant: string; scopes: string[]; caller: string }) {
  const { api } = useConsole();
  const [text, setText] = useState('');
  // Kept with the caller and agent it was routed for: another caller's decision is never shown as this one's.
  const [result, setResult] = useState<{ for?: string; result?: RouteResult; revision?: number; error?: ApiError }>({});
  const current = `${agentId}\n${caller}`;
  const shown = result.for === current ? result : {};
  const id = useId();
  const send = async () => {
    try {
      // `expect: clarify` is always a valid expectation; the answer is in `got`.
      const test = tenant ? { text, expect: 'clarify', tenant, scopes } : { text, expect: 'clarify', anonymous: true };
      const r = await api.request(RouteTestQuery, { input: { agentId, tests: { tests: [test] } } });
      setResult({ for: current, result: r.routeTest.results[0], revision: r.routeTest.revision });
    } catch (error) {
      setResult({ for: current, error: toApiError(error) });
    }
  };
  return (
    <form
      className="route-test"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <h2>Test message as {caller}</h2>
      <div className="field">
        <label htmlFor={id}>Message text</label>
        <input id={id} value={text} onChange={(e) => setText(e.target.value)} maxLength={4000} />
      </div>
      <button type="submit" disabled={!text.trim()}>
        Route it
      </button>
      <ErrorBox error={shown.error} />
      {shown.result && <RouteDecision result={shown.result} revision={shown.revision ?? 0} />}
    </form>
  );
}
