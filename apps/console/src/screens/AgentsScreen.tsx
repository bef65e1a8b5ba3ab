import { useId } from 'react';
import { AgentsQuery, TeamsQuery } from '../api/operations';
import { NewAgentForm } from '../components/AgentForms';
import { LoadState } from '../components/LoadState';
import { useConsole, useLoad } from '../context';
import { useTitle, useUrlState } from '../url';

/** Agents and teams: search, team filter, each agent's revision, live nodes and worst lag at a glance. */
export function AgentsScreen() {
  const { api, navigate } = useConsole();
  useTitle('Agents');
  const [team, setTeam] = useUrlState('team');
  const [search, setSearch] = useUrlState('q');
  const searchId = useId();
  const teamId = useId();
  const teams = useLoad('teams', () => api.request(TeamsQuery, {}));
  const agents = useLoad(`agents:${team}`, () =>
    api.request(AgentsQuery, { filter: team ? { teamId: team } : null, page: { first: 100 } }),
  );
  const needle = search.trim().toLowerCase();
  const list = (agents.data?.agents.nodes ?? []).filter(
    (a) => !needle || [a.id, a.name, a.description, a.teamId].some((s) => s.toLowerCase().includes(needle)),
  );
  return (
    <section aria-labelledby="agents-title">
      <h1 id="agents-title">Agents</h1>
      <div className="filters">
        <div className="field">
          <label htmlFor={searchId}>Search</label>
          <input id={searchId} type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="id, name, team…" />
        </div>
        <div className="field">
          <label htmlFor={teamId}>Team</label>
          <select id={teamId} value={team} onChange={(e) => setTeam(e.target.value)}>
            <option value="">All teams I can see</option>
            {(teams.data?.teams.nodes ?? []).map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </div>
      </div>
      <NewAgentForm onCreated={(id) => navigate(`/agents/${encodeURIComponent(id)}`)} />
      <LoadState loads={[agents, teams]} what="agents" />
      <div className="table-wrap">
        <table>
          <caption className="sr-only">Agents</caption>
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col">Team</th>
              <th scope="col">Revision</th>
              <th scope="col">Live nodes</th>
              <th scope="col">Worst lag</th>
            </tr>
          </thead>
          <tbody>
            {list.map((a) => {
              const live = a.nodes.filter((n) => n.live);
              const lag = Math.max(0, ...live.map((n) => n.lag ?? 0));
              return (
                <tr key={a.id}>
                  <td>
                    <a
                      href={`/console/agents/${encodeURIComponent(a.id)}`}
                      onClick={(e) => {
                        e.preventDefault();
                        navigate(`/agents/${encodeURIComponent(a.id)}`);
                      }}
                    >
                      {a.name}
                    </a>{' '}
                    <code>{a.id}</code>
                  </td>
                  <td>{a.teamId}</td>
                  <td>{a.revision}</td>
                  <td>
                    {live.length} / {a.nodes.length}
                  </td>
                  <td className={lag > 0 ? 'warn' : undefined}>{live.length ? lag : '—'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {agents.data && list.length === 0 && <p>No agent matches.</p>}
    </section>
  );
}
