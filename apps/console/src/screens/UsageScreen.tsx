import { useId } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { CapabilityImpactQuery, ManifestsQuery, UsageQuery } from '../api/operations';
import { AgentPicker } from '../components/AgentPicker';
import { LoadState } from '../components/LoadState';
import { useTitle, useUrlState } from '../url';
import { useConsole, useLoad } from '../context';
import type { CapabilityImpactQuery as CapabilityImpactData } from '../gql/graphql';
import { byNode, pivot } from '../logic/usage';

// Distinguishable on white and for common colour-vision deficiencies (Okabe–Ito).
const COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000'];

function Chart({
  title,
  rows,
  series,
  x = 'day',
}: {
  title: string;
  rows: Record<string, string | number>[];
  series: string[];
  x?: string;
}) {
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <ResponsiveContainer width="100%" height={260}>
        <BarChart data={rows} accessibilityLayer>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey={x} />
          <YAxis allowDecimals={false} />
          <Tooltip />
          <Legend />
          {series.map((s, i) => (
            <Bar key={s} dataKey={s} stackId="calls" fill={COLOURS[i % COLOURS.length]} isAnimationActive={false} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}

/** YYYY-MM-DD (UTC): the day the API's dates are counted in. */
const utcDay = (iso: string) => iso.slice(0, 10);

type Impact = CapabilityImpactData['capabilityImpact'];

/**
 * Calls per capability per day, by tenant and by node, and each deprecated capability's remaining
 * callers (tenants and nodes) with the projected retirement date (capabilityImpact: the retirement
 * rule, sunset date included, if nobody calls it again).
 */
export function UsageScreen() {
  const { api } = useConsole();
  const [agentId, setAgentId] = useUrlState('agent');
  // The time range (UTC days, inclusive) is in the URL with the agent: ?agent=…&from=2026-11-01&to=2026-11-30.
  const [from, setFrom] = useUrlState('from');
  const [to, setTo] = useUrlState('to');
  const fromId = useId();
  const toId = useId();
  useTitle('Usage', agentId);
  const usage = useLoad(agentId ? `usage:${agentId}:${from}:${to}` : null, () =>
    api.request(UsageQuery, { agentId, filter: { agentId, from: from || null, to: to || null }, page: { first: 100 } }),
  );
  const manifests = useLoad(agentId ? `manifests:${agentId}` : null, () => api.request(ManifestsQuery, { agentId }));
  const live = (manifests.data?.manifests.nodes ?? []).filter((m) => m.state !== 'removed');
  const ids = live.map((m) => m.id);
  // One capabilityImpact per capability (a handful per agent): calls by node, callers, retirement outlook.
  const impacts = useLoad(agentId && manifests.data ? `impact:${agentId}:${ids.join(',')}` : null, () =>
    Promise.all(ids.map((capabilityId) => api.request(CapabilityImpactQuery, { agentId, capabilityId }).then((r) => r.capabilityImpact))),
  );
  const impactOf = new Map<string, Impact>((impacts.data ?? []).map((i) => [i.capabilityId, i]));
  const days = usage.data?.usage.nodes ?? [];
  const byCapability = pivot(days, (d) => d.capabilityId);
  const byTenant = pivot(days, (d) => d.tenantId);
  const nodes = byNode(impacts.data ?? []);
  const deprecated = live.filter((m) => m.state === 'deprecated');
  const preview = usage.data?.retirementPreview;
  return (
    <section aria-labelledby="usage-title">
      <h1 id="usage-title">Usage</h1>
      <div className="filters">
        <AgentPicker value={agentId} onChange={setAgentId} />
        <div className="field">
          <label htmlFor={fromId}>From (UTC day)</label>
          <input id={fromId} type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={toId}>To (UTC day)</label>
          <input id={toId} type="date" value={to} onChange={(e) => setTo(e.target.value)} />
        </div>
      </div>
      <LoadState loads={[usage, manifests, impacts]} what="usage" />
      {usage.data && (
        <>
          {days.length === 0 ? (
            <p>No calls recorded for {agentId} yet.</p>
          ) : (
            <div className="grid">
              <Chart title="Calls per capability per day" {...byCapability} />
              <Chart title="Calls per tenant per day" {...byTenant} />
              {nodes.rows.length > 0 && <Chart title="Calls per node and capability (retirement window)" x="node" {...nodes} />}
            </div>
          )}
          <h2>Deprecated capabilities</h2>
          {deprecated.length === 0 && <p>None.</p>}
          {deprecated.map((m) => {
            const impact = impactOf.get(m.id);
            const retire = preview?.retire.find((r) => r.capabilityId === m.id);
            return (
              <article key={m.id} className="card" aria-label={`Deprecated ${m.id}`}>
                <h3>
                  <code>{m.id}</code> {m.replacedBy && <>→ {m.replacedBy}</>}
                </h3>
                {!impact ? (
                  <p>Loading who still calls it…</p>
                ) : (
                  <>
                    <p data-testid={`retirement-${m.id}`}>
                      {retire
                        ? `The next retirement run retires it: ${retire.because}`
                        : impact.earliestRetirementAt
                          ? `Projected retirement: ${utcDay(impact.earliestRetirementAt)} (UTC) at the earliest, if nobody calls it again`
                          : 'Projected retirement: unknown while usage is unknown'}
                      {impact.sunsetAt && ` · announced sunset ${utcDay(impact.sunsetAt)}`}
                    </p>
                    {impact.retirementBlockers.length > 0 && (
                      <ul aria-label={`Why ${m.id} is kept`}>
                        {impact.retirementBlockers.map((b) => (
                          <li key={b.code}>
                            <code>{b.code}</code> {b.message}
                          </li>
                        ))}
                      </ul>
                    )}
                    {impact.unknownUsage.length > 0 && (
                      <p className="warn">
                        Usage unknown from node(s) {[...new Set(impact.unknownUsage.map((u) => u.nodeId))].join(', ')}: they have not
                        reported.
                      </p>
                    )}
                    {impact.tenants.length ? (
                      <div className="grid">
                        <table>
                          <caption>Remaining callers of {m.id}</caption>
                          <thead>
                            <tr>
                              <th scope="col">Tenant</th>
                              <th scope="col">Calls</th>
                              <th scope="col">Last call</th>
                            </tr>
                          </thead>
                          <tbody>
                            {impact.tenants.map((c) => (
                              <tr key={c.tenantId}>
                                <td>{c.tenantId}</td>
                                <td>{c.calls}</td>
                                <td>{new Date(c.lastCallAt).toLocaleString()}</td>
                              </tr>
                            ))}
                          </tbody>
                        </table>
                        <table>
                          <caption>Nodes that served {m.id}</caption>
                          <thead>
                            <tr>
                              <th scope="col">Node</th>
                              <th scope="col">Calls</th>
                              <th scope="col">Last call</th>
                            </tr>
                          </thead>
                          <tbody>
                            {impact.nodes.map((n) => (
                              <tr key={n.nodeId}>
                                <td>
                                  <code>{n.nodeId}</code>
                                </td>
                                <td>{n.calls}</td>
                                <td>{new Date(n.lastCallAt).toLocaleString()}</td>
                              </tr>
                            ))}
                          </tbody>
                        </table>
                      </div>
                    ) : (
                      <p>No caller in the retirement window.</p>
                    )}
                  </>
                )}
              </article>
            );
          })}
        </>
      )}
    </section>
  );
}
