import { FleetQuery } from '../api/operations';
import { AgentPicker } from '../components/AgentPicker';
import { LoadState } from '../components/LoadState';
import { useConsole, useLoad } from '../context';
import { useTitle, useUrlState } from '../url';

const POLL_MS = 1000;

/** Every node of an agent: applied revision, lag, last seen, last error; polled every second. */
export function FleetScreen() {
  const { api } = useConsole();
  const [agentId, setAgentId] = useUrlState('agent');
  useTitle('Fleet', agentId);
  const fleet = useLoad(agentId ? `fleet:${agentId}` : null, () => api.request(FleetQuery, { agentId }), POLL_MS);
  const f = fleet.data?.fleet;
  const live = f?.nodes.filter((n) => n.live) ?? [];
  return (
    <section aria-labelledby="fleet-title">
      <h1 id="fleet-title">Fleet</h1>
      <AgentPicker value={agentId} onChange={setAgentId} />
      <LoadState loads={[fleet]} what="the fleet" />
      {f && (
        <>
          <p role="status" aria-live="polite" data-testid="fleet-summary">
            Revision {f.currentRevision}: {f.upToDate} of {live.length} live node(s) up to date
            {f.upToDate === live.length && live.length > 0 ? ' — converged' : ''}
          </p>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Nodes of {agentId}</caption>
              <thead>
                <tr>
                  <th scope="col">Node</th>
                  <th scope="col">Applied revision</th>
                  <th scope="col">Lag</th>
                  <th scope="col">Live</th>
                  <th scope="col">Last seen</th>
                  <th scope="col">Last error</th>
                </tr>
              </thead>
              <tbody>
                {f.nodes.map((n) => (
                  <tr key={n.nodeId}>
                    <td>
                      <code>{n.nodeId}</code>
                      {n.hostname && <small> {n.hostname}</small>}
                    </td>
                    <td>{n.appliedRevision ?? '—'}</td>
                    <td className={n.lag ? 'warn' : undefined}>{n.lag ?? '—'}</td>
                    <td>{n.live ? 'yes' : 'no'}</td>
                    <td>
                      <time dateTime={n.lastSeenAt}>{new Date(n.lastSeenAt).toLocaleString()}</time>
                    </td>
                    <td>{n.lastError ? `${n.lastError}${n.lastErrorAt ? ` (${new Date(n.lastErrorAt).toLocaleString()})` : ''}` : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
