import { useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { ManifestsQuery, UsageQuery } from '../api/operations';
import { AgentPicker } from '../components/AgentPicker';
import { ErrorBox } from '../components/ErrorBox';
import { useConsole, useLoad } from '../context';
import { pivot, remainingCallers } from '../logic/usage';

// Distinguishable on white and for common colour-vision deficiencies (Okabe–Ito).
const COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000'];

function Chart({ title, rows, series }: { title: string; rows: Record<string, string | number>[]; series: string[] }) {
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <ResponsiveContainer width="100%" height={260}>
        <BarChart data={rows} accessibilityLayer>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="day" />
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

/** Calls per capability per day and by tenant, and each deprecated capability's remaining callers and retirement outlook. */
export function UsageScreen({ initialAgent }: { initialAgent?: string }) {
  const { api } = useConsole();
  const [agentId, setAgentId] = useState(initialAgent ?? '');
  const usage = useLoad(agentId ? `usage:${agentId}` : null, () =>
    api.request(UsageQuery, { agentId, filter: { agentId }, page: { first: 100 } }),
  );
  const manifests = useLoad(agentId ? `manifests:${agentId}` : null, () => api.request(ManifestsQuery, { agentId }));
  const days = usage.data?.usage.nodes ?? [];
  const byCapability = pivot(days, (d) => d.capabilityId);
  const byTenant = pivot(days, (d) => d.tenantId);
  const deprecated = (manifests.data?.manifests.nodes ?? []).filter((m) => m.state === 'deprecated');
  const preview = usage.data?.retirementPreview;
  return (
    <section aria-labelledby="usage-title">
      <h1 id="usage-title">Usage</h1>
      <AgentPicker value={agentId} onChange={setAgentId} />
      <ErrorBox error={usage.error ?? manifests.error} />
      {usage.data && (
        <>
          {days.length === 0 ? (
            <p>No calls recorded for {agentId} yet.</p>
          ) : (
            <div className="grid">
              <Chart title="Calls per capability per day" {...byCapability} />
              <Chart title="Calls per tenant per day" {...byTenant} />
            </div>
          )}
          <h2>Deprecated capabilities</h2>
          {deprecated.length === 0 && <p>None.</p>}
          {deprecated.map((m) => {
            const callers = remainingCallers(days, m.id);
            const skip = preview?.skipped.find((s) => s.capabilityId === m.id);
            const retire = preview?.retire.find((r) => r.capabilityId === m.id);
            const eligible = skip?.reasons
              .map((r) => r.eligibleAt)
              .filter((d): d is string => Boolean(d))
              .sort()
              .pop();
            return (
              <article key={m.id} className="card" aria-label={`Deprecated ${m.id}`}>
                <h3>
                  <code>{m.id}</code> {m.replacedBy && <>→ {m.replacedBy}</>}
                </h3>
                <p data-testid={`retirement-${m.id}`}>
                  {retire
                    ? `The next retirement run retires it: ${retire.because}`
                    : eligible
                      ? `Projected retirement: ${new Date(eligible).toLocaleDateString()} at the earliest`
                      : skip
                        ? `Kept: ${skip.reasons.map((r) => r.message).join('; ')}`
                        : 'Not in the retirement preview.'}
                </p>
                {callers.length ? (
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
                      {callers.map((c) => (
                        <tr key={c.tenantId}>
                          <td>{c.tenantId}</td>
                          <td>{c.calls}</td>
                          <td>{new Date(c.lastCallAt).toLocaleString()}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                ) : (
                  <p>No caller in the recorded window.</p>
                )}
              </article>
            );
          })}
        </>
      )}
    </section>
  );
}
